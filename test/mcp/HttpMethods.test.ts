// The methods a 2025 Streamable HTTP session answers, driven by the official SDK client over real
// loopback HTTP: a session installs its handlers on each method's first request, so every method is
// asked on a fresh session first, then again; and a method no session answers is refused as the
// SDK refuses one.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import {
  type CallToolResult,
  CallToolResultSchema,
  EmptyResultSchema,
  McpError
} from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { McpHttp } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import { post, rawSession, text } from "./httpRaw.ts"

const serveBoard = Effect.flatMap(serverOptions, (options) => McpHttp.serve({ ...options, http: { port: 0 } }))

const connect = (url: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "methods-test", version: "1.0.0" }, { capabilities: {} })
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

/** Ask the same of the session twice: its first answer (through the installing fallback) and its second. */
const twice = <A>(ask: () => Promise<A>) => Effect.promise(async () => [await ask(), await ask()] as const)

/** The JSON-RPC error code a request was refused with. */
const refusal = (ask: () => Promise<unknown>) =>
  Effect.promise(() =>
    ask().then(
      () => undefined,
      (error: unknown) => (error instanceof McpError ? error.code : `not an McpError: ${String(error)}`)
    )
  )

describe("MCP over Streamable HTTP: the methods a session answers", () => {
  it.live("a session answers every method it advertises on its first request exactly as on later ones", () =>
    Effect.gen(function*() {
      const served = yield* serveBoard
      const client = yield* connect(served.url)
      assert.deepStrictEqual(Object.keys(client.getServerCapabilities() ?? {}).sort(), [
        "completions",
        "logging",
        "prompts",
        "resources",
        "tools"
      ])

      const [tools, toolsAgain] = yield* twice(() => client.listTools())
      assert.isTrue(tools.tools.some((tool) => tool.name === "board_focus"))
      assert.deepStrictEqual(toolsAgain, tools)

      const [called, calledAgain] = yield* twice(() =>
        client.callTool({ name: "board_focus", arguments: { value: "methods" } }) as Promise<CallToolResult>
      )
      assert.isNotTrue(called.isError)
      assert.deepStrictEqual(calledAgain, called)

      const [read, readAgain] = yield* twice(() => client.readResource({ uri: "surface://cells/focus" }))
      assert.include(JSON.stringify(read.contents), "methods")
      assert.deepStrictEqual(readAgain, read)

      const [resources, resourcesAgain] = yield* twice(() => client.listResources())
      assert.isTrue(resources.resources.some((resource) => resource.uri === "surface://cells/focus"))
      assert.deepStrictEqual(resourcesAgain, resources)

      const [templates, templatesAgain] = yield* twice(() => client.listResourceTemplates())
      assert.isAbove(templates.resourceTemplates.length, 0)
      assert.deepStrictEqual(templatesAgain, templates)

      const [prompts, promptsAgain] = yield* twice(() => client.listPrompts())
      assert.deepStrictEqual(prompts.prompts.map((prompt) => prompt.name).sort(), ["plan_next", "review_task"])
      assert.deepStrictEqual(promptsAgain, prompts)

      const [prompt, promptAgain] = yield* twice(() => client.getPrompt({ name: "plan_next" }))
      assert.include(JSON.stringify(prompt.messages), "methods")
      assert.deepStrictEqual(promptAgain, prompt)

      const [completed, completedAgain] = yield* twice(() =>
        client.complete({ ref: { type: "ref/prompt", name: "review_task" }, argument: { name: "id", value: "t" } })
      )
      assert.isArray(completed.completion.values)
      assert.deepStrictEqual(completedAgain, completed)

      const subscribed = yield* twice(() => client.subscribeResource({ uri: "surface://cells/focus" }))
      const unsubscribed = yield* twice(() => client.unsubscribeResource({ uri: "surface://cells/focus" }))
      const levelled = yield* twice(() => client.setLoggingLevel("debug"))
      const pinged = yield* twice(() => client.ping())
      assert.deepStrictEqual([...subscribed, ...unsubscribed, ...levelled, ...pinged], [{}, {}, {}, {}, {}, {}, {}, {}])
    }).pipe(Effect.scoped))

  it.live("a malformed call as a session's first request is refused with -32602, as on a session that called before", () =>
    Effect.gen(function*() {
      const served = yield* serveBoard
      const malformed = (client: Client) => () =>
        client.request({ method: "tools/call", params: { name: "board_focus", arguments: 0 } }, CallToolResultSchema)
      const fresh = yield* connect(served.url)
      const first = yield* refusal(malformed(fresh))
      const used = yield* connect(served.url)
      yield* Effect.promise(() => used.callTool({ name: "board_focus", arguments: { value: "x" } }))
      const later = yield* refusal(malformed(used))
      assert.deepStrictEqual([first, later], [-32602, -32602])
    }).pipe(Effect.scoped))

  it.live("a method no session answers is refused with -32601 \"Method not found\", every time it is asked", () =>
    Effect.gen(function*() {
      const served = yield* serveBoard
      const client = yield* connect(served.url)
      const unknown = () => client.request({ method: "tools/unknown" }, EmptyResultSchema)
      assert.deepStrictEqual([yield* refusal(unknown), yield* refusal(unknown)], [-32601, -32601])
      // The answer on the wire, to the byte the SDK writes for a method it has no handler for.
      const session = yield* rawSession(served.url)
      const answered = yield* post(served.url, { jsonrpc: "2.0", id: 7, method: "nope/never" }, session)
      assert.deepStrictEqual(JSON.parse(yield* text(answered)), {
        jsonrpc: "2.0",
        id: 7,
        error: { code: -32601, message: "Method not found" }
      })
      // Still served afterwards.
      const [tools] = yield* twice(() => client.listTools())
      assert.isAbove(tools.tools.length, 0)
    }).pipe(Effect.scoped))
})
