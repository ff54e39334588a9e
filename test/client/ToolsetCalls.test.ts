// The call path of the client toolset, against in-process servers written with the 1.x SDK (a
// 2025-11-25 session): a content type from a later revision passed on unchanged, `null` under an
// optional property read as absent but kept where the schema admits it or requires the property, a
// tagged failure's structured detail, a form answer checked before it is sent, progress asked for
// only when the caller can hear it, and the Promise API's reads, templates and prompts.
import { assert, describe, it } from "@effect/vitest"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect, References, Schema } from "effect"
import { Progress, Tools } from "effect-surface"
import { McpHttp } from "effect-surface/mcp"
import { mcpTools, McpCallResult, McpPolicy, McpToolset } from "effect-surface/client"
import type { McpConfig, McpToolError } from "effect-surface/client"
import { serverOptions } from "../../examples/board/app.ts"
import { everythingStdio } from "./servers.ts"

type Params = {
  readonly name: string
  readonly arguments?: Record<string, unknown> | undefined
  readonly _meta?: unknown
}
type Handler = (params: Params, sdk: Server) => unknown

// A 2025 server with the given tools, each answered by `handler`; what each call received is kept.
const inMemory = (tools: ReadonlyArray<Record<string, unknown>>, handler: Handler) => {
  const received: Array<Params> = []
  const server: McpConfig.Custom = {
    name: "mem",
    type: "transport",
    protocol: "2025-11-25",
    open: () => {
      const [client, end] = InMemoryTransport.createLinkedPair()
      const sdk = new Server({ name: "mem", version: "1.0.0" }, { capabilities: { tools: {} } })
      sdk.setRequestHandler(ListToolsRequestSchema, () => ({ tools }))
      sdk.setRequestHandler(CallToolRequestSchema, (request) => {
        received.push(request.params)
        return handler(request.params, sdk) as never
      })
      void sdk.connect(end)
      return client
    }
  }
  return { server, received }
}

// A 2025 server answering by hand, as a server on a later revision's SDK would write its answer: the
// 1.x SDK's own Server refuses to send a content type it does not know, so it cannot play one.
const byHand = (answer: unknown): McpConfig.Custom => ({
  name: "mem",
  type: "transport",
  protocol: "2025-11-25",
  open: () => {
    const [client, end] = InMemoryTransport.createLinkedPair()
    const reply = (id: unknown, result: unknown) => void end.send({ jsonrpc: "2.0", id, result } as never)
    end.onmessage = (message) => {
      const { id, method } = message as { readonly id?: unknown; readonly method?: string }
      if (id === undefined) return
      if (method === "initialize") {
        reply(id, {
          protocolVersion: "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "mem", version: "1.0.0" }
        })
      } else if (method === "tools/list") reply(id, { tools: [{ name: "draw", inputSchema: { type: "object" } }] })
      else if (method === "tools/call") reply(id, answer)
      else void end.send({ jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } } as never)
    }
    void end.start()
    return client
  }
})

describe("the toolset's call path", () => {
  it.live("a content block of a kind from a later revision reaches the caller unchanged on a 2025 session", () =>
    Effect.gen(function*() {
      const block = { type: "widget", spec: { kind: "chart", points: [1, 2, 3] } }
      const server = byHand({ content: [{ type: "text", text: "drawn" }, block] })
      const toolset = yield* McpToolset.make([server])
      const answer = yield* toolset.call("mem__draw", {})
      assert.deepStrictEqual(answer.content, [{ type: "text", text: "drawn" }, block])
      assert.strictEqual(McpCallResult.textOf(answer), "drawn")
    }))
})

const filters = {
  type: "object",
  properties: {
    all: { type: "boolean" },
    note: { type: ["string", "null"] },
    page: { type: "object", properties: { size: { type: "integer" } } },
    id: { type: "string" }
  },
  required: ["id"]
}

describe("arguments and answers", () => {
  it.live("null under an optional property is left out, at any depth; null the schema admits is kept", () =>
    Effect.gen(function*() {
      const { received, server } = inMemory([{ name: "find", inputSchema: filters }], () => ({ content: [] }))
      const toolset = yield* McpToolset.make([server])
      yield* toolset.call("mem__find", { id: "n1", all: null, note: null, page: { size: null } })
      assert.deepStrictEqual(received[0]?.arguments, { id: "n1", note: null, page: {} })
    }))

  it.live("null for a required property is still refused, naming it, and nothing is sent", () =>
    Effect.gen(function*() {
      const { received, server } = inMemory([{ name: "find", inputSchema: filters }], () => ({ content: [] }))
      const toolset = yield* McpToolset.make([server])
      const refused = yield* Effect.flip(toolset.call("mem__find", { id: null }))
      assert.strictEqual(refused._tag, "InvalidArguments")
      assert.include(refused.message, "\"id\"")
      assert.lengthOf(received, 0)
    }))

  it.live("an isError answer's structuredContent stays on the error; one without it carries none", () =>
    Effect.gen(function*() {
      const { server } = inMemory(
        [{ name: "add", inputSchema: { type: "object" } }],
        (params) =>
          params.arguments?.["tagged"] === true
            ? { isError: true, content: [{ type: "text", text: "empty" }], structuredContent: { _tag: "EmptyNote" } }
            : { isError: true, content: [{ type: "text", text: "plain" }] }
      )
      const toolset = yield* McpToolset.make([server])
      const tagged = (yield* Effect.flip(toolset.call("mem__add", { tagged: true }))) as McpToolError
      assert.deepStrictEqual(tagged.structuredContent, { _tag: "EmptyNote" })
      assert.strictEqual(tagged.message, "MCP tool error: empty")
      const plain = (yield* Effect.flip(toolset.call("mem__add", {}))) as McpToolError
      assert.isUndefined(plain.structuredContent)
    }))

  it.live("a call asks for progress only when its caller holds a Progress with a token", () =>
    Effect.gen(function*() {
      const { received, server } = inMemory(
        [{ name: "work", inputSchema: { type: "object" } }],
        () => ({ content: [] })
      )
      const toolset = yield* McpToolset.make([server])
      yield* toolset.call("mem__work", {})
      yield* toolset.call("mem__work", {}).pipe(Effect.provideService(Progress.Progress, Progress.none))
      const progress = yield* Progress.make("caller", () => Effect.void)
      yield* toolset.call("mem__work", {}).pipe(Effect.provideService(Progress.Progress, progress))
      const tokens = received.map((params) => (params._meta as { progressToken?: unknown } | undefined)?.progressToken)
      assert.isUndefined(tokens[0])
      assert.isUndefined(tokens[1])
      assert.isString(tokens[2])
    }))

  it.live("a 2025 server asking a form gets an error, never an answer that does not fit its schema", () =>
    Effect.gen(function*() {
      const heard: Array<string> = []
      const { server } = inMemory(
        [{ name: "deploy", inputSchema: { type: "object" } }],
        (_params, sdk) =>
          sdk.elicitInput({
            message: "Go?",
            requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] }
          }).then(
            (answer) => ({ content: [{ type: "text", text: `answered ${JSON.stringify(answer.content)}` }] }),
            (error: Error) => {
              heard.push(error.message)
              return { isError: true, content: [{ type: "text", text: error.message }] }
            }
          )
      )
      const toolset = yield* McpToolset.make([server], {
        elicit: () => ({ action: "accept", content: { confirm: "yes" } })
      })
      const refused = yield* Effect.flip(toolset.call("mem__deploy", {}))
      assert.include(refused.message, "value at \"confirm\": expected a boolean")
      assert.lengthOf(heard, 1)
      assert.include(heard[0], "does not fit the form")
    }))
})

describe("the Promise API's reads and prompts", () => {
  it.live(
    "lists resources, resource templates and prompts, reads a resource and fills in a prompt",
    () =>
      Effect.gen(function*() {
        const toolset = yield* Effect.acquireRelease(
          Effect.promise(() => mcpTools([everythingStdio()])),
          (opened) => Effect.promise(() => opened.close())
        )
        const resources = yield* Effect.promise(() => toolset.resources())
        assert.isAbove(resources.length, 0)
        const templates = yield* Effect.promise(() => toolset.resourceTemplates())
        assert.isAbove(templates.length, 0)
        assert.strictEqual(templates[0]?.server, "everything")
        assert.include(templates[0]?.uriTemplate ?? "", "{")
        const contents = yield* Effect.promise(() => toolset.readResource("everything", resources[0]!.uri))
        assert.strictEqual(contents[0]?.uri, resources[0]!.uri)
        const prompts = yield* Effect.promise(() => toolset.prompts())
        assert.isTrue(prompts.some((prompt) => prompt.name === "everything__args-prompt"))
        const filled = yield* Effect.promise(() => toolset.getPrompt("everything__args-prompt", { city: "Lisbon" }))
        assert.include(JSON.stringify(filled.messages), "Lisbon")
      }),
    30_000
  )

  it.live("a refused read names the read by its URI, not as a tool", () =>
    Effect.gen(function*() {
      const toolset = yield* McpToolset.make([everythingStdio()], {
        policy: { decide: () => McpPolicy.deny("no reads") }
      })
      const denied = yield* Effect.flip(toolset.readResource("everything", "demo://resource/static/document/x.md"))
      assert.strictEqual(denied._tag, "PolicyDenied")
      assert.include(denied.message, "resources/read of demo://resource/static/document/x.md")
      assert.notInclude(denied.message, "everything__resources/read")
      const open = yield* McpToolset.make([everythingStdio()])
      const missing = yield* Effect.flip(open.readResource("everything", "demo://nothing/here"))
      assert.include(missing.message, "resources/read of demo://nothing/here")
      assert.notInclude(missing.message, "__resources/read")
    }), 30_000)
})

// This project's own face over HTTP with one tool that reports progress on each step: in 2026 the
// reports travel on the call's own response stream, in 2025 on the session's.
const counting = Effect.gen(function*() {
  const options = yield* serverOptions
  const served = yield* McpHttp.serve({
    ...options,
    tools: {
      count: Tools.make({
        description: "Count to three, telling each step.",
        input: Schema.Struct({}),
        mutates: false,
        handler: () =>
          Effect.forEach([1, 2, 3], (step) => Progress.report({ progress: step, total: 3, message: `step ${step}` }))
            .pipe(Effect.as("counted"))
      })
    },
    http: { port: 0 }
  }).pipe(Effect.provideService(References.MinimumLogLevel, "Warn"))
  return served.url
})

describe("progress over HTTP", () => {
  for (const protocol of ["2026-07-28", "2025-11-25"] as const) {
    it.live(
      `${protocol}: each report the server sends reaches the caller's Progress, in order`,
      () =>
        Effect.gen(function*() {
          const url = yield* counting
          const toolset = yield* McpToolset.make([{ name: "face", type: "streamable-http", url, protocol }], {
            allowedHosts: ["127.0.0.1"]
          })
          const seen: Array<Progress.Notification> = []
          const progress = yield* Progress.make("caller", (n) => Effect.sync(() => void seen.push(n)))
          yield* toolset.call("face__count", {}).pipe(Effect.provideService(Progress.Progress, progress))
          assert.deepStrictEqual(seen.map((n) => [n.progress, n.total, n.message]), [
            [1, 3, "step 1"],
            [2, 3, "step 2"],
            [3, 3, "step 3"]
          ])
        }),
      30_000
    )
  }
})
