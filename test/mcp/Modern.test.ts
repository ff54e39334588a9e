// MCP 2026-07-28 on the HTTP face, through the official v2 client: one endpoint serves both eras,
// a handler's questions travel as input-required round trips continued by a signed state, listen
// streams carry what they asked for, and what the revision removed is refused as it says.
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Ref } from "effect"
import { Progress, Tools } from "effect-surface"
import { McpHttp } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import { openGet, rawSession } from "./httpRaw.ts"
import { contentOf, interview, overHttp, raw } from "./modern.ts"

/** The board over HTTP, with tools that ask, count what they did and say when they end. */
const serve = (ttl: Duration.Input = "10 minutes") =>
  Effect.gen(function*() {
    const options = yield* serverOptions
    const started = yield* Ref.make(0)
    const ended = yield* Deferred.make<void>()
    const tools = {
      ...options.tools,
      interview: interview(started, ended)
    }
    const stopped = yield* Deferred.make<"quiet" | "streaming">()
    const waiting = (name: "quiet" | "streaming") =>
      Tools.make({
        description: "Waits for ever, reporting progress first when streaming.",
        mutates: false,
        handler: () =>
          (name === "streaming" ? Progress.report({ progress: 1, total: 2 }) : Effect.void).pipe(
            Effect.andThen(Effect.never),
            Effect.onInterrupt(() => Deferred.succeed(stopped, name))
          )
      })
    const served = yield* McpHttp.serve({
      ...options,
      tools: { ...tools, quiet: waiting("quiet"), streaming: waiting("streaming") },
      requestState: { ttl },
      http: { port: 0 }
    })
    return { served, started, ended, stopped }
  })

describe("MCP 2026-07-28 over Streamable HTTP", () => {
  it.live("one endpoint serves a 2025 client and a 2026 client alike: the same tools, the same answers", () =>
    Effect.gen(function*() {
      const { served } = yield* serve()
      const legacy = yield* overHttp(served.url, "legacy")
      const modern = yield* overHttp(served.url, "auto")
      assert.strictEqual(legacy.getProtocolEra(), "legacy")
      assert.strictEqual(modern.getProtocolEra(), "modern")
      assert.strictEqual(modern.getNegotiatedProtocolVersion(), "2026-07-28")
      const names = (listed: { readonly tools: ReadonlyArray<{ readonly name: string }> }) =>
        listed.tools.map((tool) => tool.name)
      assert.deepStrictEqual(
        names(yield* Effect.promise(() => modern.listTools())),
        names(yield* Effect.promise(() => legacy.listTools()))
      )
      const focus = { name: "board_focus", arguments: { value: "both eras" } }
      const a = yield* Effect.promise(() => legacy.callTool(focus))
      const b = yield* Effect.promise(() => modern.callTool(focus))
      assert.deepStrictEqual(contentOf(b), contentOf(a))
      const read = yield* Effect.promise(() => modern.readResource({ uri: "surface://cells/focus" }))
      assert.deepStrictEqual(read.contents[0], {
        uri: "surface://cells/focus",
        mimeType: "application/json",
        text: "\"both eras\""
      })
    }).pipe(Effect.scoped))

  it.live("a handler's form and model questions complete in 2026 as round trips the v2 client answers, the handler run once", () =>
    Effect.gen(function*() {
      const { served, started } = yield* serve()
      const posts: Array<string> = []
      const counting: typeof fetch = (input, init) => {
        const body = typeof init?.body === "string" ? JSON.parse(init.body) : undefined
        if (body?.method === "tools/call") posts.push(body.params.requestState === undefined ? "fresh" : "retry")
        return fetch(input, init)
      }
      const client = yield* overHttp(served.url, "pin", {
        elicit: () => ({ name: "Ada" }),
        sample: () => "hello there"
      }, counting)
      const result = yield* Effect.promise(() => client.callTool({ name: "interview", arguments: {} }))
      assert.deepStrictEqual(contentOf(result), [{ type: "text", text: "Ada: hello there" }])
      // One question a round: the call, then a retry for each answer.
      assert.deepStrictEqual(posts, ["fresh", "retry", "retry"])
      assert.strictEqual(yield* Ref.get(started), 1, "the handler ran once across its three requests")
    }).pipe(Effect.scoped))

  it.live("a retry whose requestState was altered is refused with a sentence, and the call is not run again", () =>
    Effect.gen(function*() {
      const { served, started } = yield* serve()
      const capabilities = { elicitation: {} }
      const first = yield* raw(served.url, 1, "tools/call", { name: "interview", arguments: {} }, capabilities)
      const result = first.answer.result!
      assert.strictEqual(result["resultType"], "input_required")
      const state = result["requestState"] as string
      const [key] = Object.keys(result["inputRequests"] as object)
      const tampered = `${state.slice(0, -2)}${state.endsWith("AA") ? "BB" : "AA"}`
      const retry = yield* raw(served.url, 2, "tools/call", {
        name: "interview",
        arguments: {},
        requestState: tampered,
        inputResponses: { [key!]: { action: "accept", content: { name: "Mallory" } } }
      }, capabilities)
      assert.strictEqual(retry.answer.error?.code, -32602)
      assert.include(retry.answer.error?.message ?? "", "requestState refused: its signature does not match")
      // Bound to its request: the same state on another tool's call is refused too.
      const foreign = yield* raw(served.url, 3, "tools/call", {
        name: "board_focus",
        arguments: { value: "x" },
        requestState: state,
        inputResponses: {}
      }, capabilities)
      assert.include(foreign.answer.error?.message ?? "", "belongs to another request")
      assert.strictEqual(yield* Ref.get(started), 1)
    }).pipe(Effect.scoped))

  it.live("a state presented after its lifetime is refused, and the call parked on it has ended through its finalizers", () =>
    Effect.gen(function*() {
      const { ended, served } = yield* serve("300 millis")
      const capabilities = { elicitation: {} }
      const first = yield* raw(served.url, 1, "tools/call", { name: "interview", arguments: {} }, capabilities)
      const result = first.answer.result!
      yield* Deferred.await(ended)
      const [key] = Object.keys(result["inputRequests"] as object)
      const late = yield* raw(served.url, 2, "tools/call", {
        name: "interview",
        arguments: {},
        requestState: result["requestState"],
        inputResponses: { [key!]: { action: "accept", content: { name: "Ada" } } }
      }, capabilities)
      assert.strictEqual(late.answer.error?.code, -32602)
      assert.include(late.answer.error?.message ?? "", "expired")
    }).pipe(Effect.scoped))

  it.live("GET and DELETE are 405 to a 2026 client, while a 2025 client's GET stream still opens", () =>
    Effect.gen(function*() {
      const { served } = yield* serve()
      for (const method of ["GET", "DELETE"]) {
        const refused = yield* Effect.promise(() =>
          fetch(served.url, { method, headers: { "mcp-protocol-version": "2026-07-28" } })
        )
        assert.strictEqual(refused.status, 405)
        assert.strictEqual(refused.headers.get("allow"), "POST")
        yield* Effect.promise(() => refused.text())
      }
      const session = yield* rawSession(served.url)
      const stream = yield* openGet(served.url, session)
      assert.strictEqual(stream.status, 200)
      assert.strictEqual(stream.headers.get("content-type"), "text/event-stream")
      yield* Effect.promise(() => stream.body!.cancel())
    }).pipe(Effect.scoped))

  it.live("a listen stream opens with its acknowledgement and then hears the list moves it asked for, and only those", () =>
    Effect.gen(function*() {
      const { served } = yield* serve()
      const client = yield* overHttp(served.url, "pin")
      const heard: Array<string> = []
      for (const method of ["notifications/tools/list_changed", "notifications/prompts/list_changed"] as const) {
        client.setNotificationHandler(method, (notification) => {
          heard.push(notification.method)
        })
      }
      const subscription = yield* Effect.promise(() => client.listen({ toolsListChanged: true }))
      assert.deepStrictEqual(subscription.honoredFilter, { toolsListChanged: true })
      yield* served.face.setPrompts({})
      yield* served.face.setTools({})
      yield* Effect.promise(async () => {
        for (let waited = 0; waited < 2000 && heard.length === 0; waited += 20) {
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
      })
      assert.deepStrictEqual(heard, ["notifications/tools/list_changed"])
      yield* Effect.promise(() => subscription.close())
    }).pipe(Effect.scoped))

  for (const name of ["quiet", "streaming"] as const) {
    it.live(`a client that goes away cancels its call (${name === "quiet" ? "before any answer" : "mid-stream"})`, () =>
      Effect.gen(function*() {
        const { served, stopped } = yield* serve()
        const abort = new AbortController()
        const client = yield* overHttp(served.url, "pin")
        const call = client.callTool({ name, arguments: {} }, { signal: abort.signal, onprogress: () => abort.abort() })
          .catch(() => "cancelled")
        if (name === "quiet") {
          yield* Effect.sleep("200 millis")
          abort.abort()
        }
        assert.strictEqual(yield* Deferred.await(stopped).pipe(Effect.timeout("5 seconds")), name)
        yield* Effect.promise(() => call)
      }).pipe(Effect.scoped))
  }

  it.live("methods the revision removed answer 404 with -32601, and a missing _meta is -32602 with 400", () =>
    Effect.gen(function*() {
      const { served } = yield* serve()
      for (const method of ["initialize", "ping", "logging/setLevel", "resources/subscribe"]) {
        const removed = yield* raw(served.url, 5, method, {})
        assert.strictEqual(removed.status, 404)
        assert.strictEqual(removed.answer.error?.code, -32601)
      }
      const bare = yield* Effect.promise(async () => {
        const response = await fetch(served.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/list"
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list", params: {} })
        })
        const body = await response.json() as { readonly id: number; readonly error: { readonly code: number } }
        return { status: response.status, body }
      })
      assert.strictEqual(bare.status, 400)
      assert.strictEqual(bare.body.error.code, -32602)
      assert.strictEqual(bare.body.id, 9)
    }).pipe(Effect.scoped))
})
