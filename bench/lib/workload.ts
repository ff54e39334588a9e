// The shared workload every competitor serves: one tool, `echo_say({ text })` answering `{ text }`,
// backed by the same plain implementation, and one cell for the resource fan-out. Ours serves it
// as a surface procedure; the raw SDK peer with a hand-written `tools/call` handler (a plain check
// of the arguments, the same framing: JSON text plus `structuredContent`); effect/ai as a Toolkit.
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js"
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Effect, Layer, Schema, SubscriptionRef } from "effect"
import { McpServer as AiMcpServer, Tool, Toolkit } from "effect/ai"
import { Client, Expose, Implementation, Surface } from "effect-surface"
import type { McpFace } from "effect-surface/mcp"

/** The one implementation every competitor calls. */
export const say = (input: { readonly text: string }): { readonly text: string } => ({ text: input.text })

export const TOOL = "echo_say"
export const ARGS = { text: "hello, surface" } as const
export const DESCRIPTION = "Echo the given text back."

export const Echo = Surface.make({
  cells: { count: Surface.cell(Schema.Int, 0) },
  procedures: {
    echo: {
      say: {
        input: Schema.Struct({ text: Schema.String }),
        output: Schema.Struct({ text: Schema.String }),
        mutates: false,
        description: DESCRIPTION
      }
    }
  }
})

export const echoExpose = Expose.make(Echo, { cells: { count: true }, procedures: { "echo.say": true } })

/** Our face options over a fresh implementation, and the implementation's cell (for fan-out). */
export const makeOurs = Effect.gen(function*() {
  const cells = yield* Implementation.cells(Echo)
  const implemented = Implementation.make(Echo, {
    cells,
    procedures: { echo: { say: (input) => Effect.sync(() => say(input)) } }
  })
  const clients = { core: Client.erase(Client.directDispatch(implemented)), clients: {} }
  const options: McpFace.Options = {
    core: { surface: Echo, expose: echoExpose },
    client: Effect.succeed(clients),
    serverInfo: { name: "echo-ours", version: "0.0.0" }
  }
  return { options, count: cells.count, setCount: (n: number) => SubscriptionRef.set(cells.count, n) }
})

const inputSchema = {
  type: "object",
  properties: { text: { type: "string" } },
  required: ["text"]
} as const

const lazyValidator = (): jsonSchemaValidator => {
  let built: AjvJsonSchemaValidator | undefined
  return { getValidator: (schema) => (built ??= new AjvJsonSchemaValidator()).getValidator(schema) }
}

const rpcError = (code: number, message: string): Error => Object.assign(new Error(message), { code })

/**
 * The raw SDK peer: the low-level `Server` with hand-written handlers doing the same work — decode
 * the arguments with a plain check, call the same implementation, frame the same text and
 * `structuredContent`. Extra capabilities (resources) are for the fan-out peer.
 */
export const makeRawServer = (options?: { readonly resources?: boolean; readonly tuned?: boolean }): Server => {
  const server = new Server(
    { name: "echo-raw", version: "0.0.0" },
    {
      // Tuned as ours is: the Ajv validator the SDK builds for every session's elicitations is
      // built on the first one (no session here elicits).
      ...(options?.tuned === true ? { jsonSchemaValidator: lazyValidator() } : {}),
      capabilities: {
        tools: { listChanged: true },
        ...(options?.resources === true ? { resources: { subscribe: true } } : {})
      }
    }
  )
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{
      name: TOOL,
      description: DESCRIPTION,
      inputSchema,
      annotations: { readOnlyHint: true, destructiveHint: false }
    }]
  }))
  server.setRequestHandler(CallToolRequestSchema, (request): CallToolResult => {
    if (request.params.name !== TOOL) throw rpcError(-32602, `unknown tool "${request.params.name}"`)
    const args = request.params.arguments
    const text: unknown = args?.["text"]
    if (typeof text !== "string") {
      return { isError: true, content: [{ type: "text", text: "text: expected a string" }] }
    }
    const out = say({ text })
    return { content: [{ type: "text", text: JSON.stringify(out) }], structuredContent: out }
  })
  if (options?.resources === true) {
    server.setRequestHandler(SubscribeRequestSchema, () => ({}))
    server.setRequestHandler(UnsubscribeRequestSchema, () => ({}))
  }
  return server
}

/** effect/ai's tool: the same name, schema and implementation, as a Toolkit registration. */
export const EchoSay = Tool.make(TOOL, {
  description: DESCRIPTION,
  parameters: Schema.Struct({ text: Schema.String }),
  success: Schema.Struct({ text: Schema.String })
})
export const EchoKit = Toolkit.make(EchoSay)

export const aiRegistrations = AiMcpServer.toolkit(EchoKit).pipe(
  Layer.provide(EchoKit.toLayer({ [TOOL]: (input: { readonly text: string }) => Effect.sync(() => say(input)) }))
)

export const aiServerInfo = { name: "echo-effect-ai", version: "0.0.0" } as const
