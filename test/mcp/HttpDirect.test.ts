// The direct road for plain calls over Streamable HTTP (internal/httpDirect), driven over real
// loopback HTTP: what it answers as JSON stores nothing, what streams after all is the SDK's
// resumable stream, a session ending answers what still waits, and it takes only what the SDK's
// own schema would accept as it stands.
import { assert, describe, it } from "@effect/vitest"
import { JSONRPCRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Deferred, Effect, Fiber, Option, Schema, Stream } from "effect"
import { Caller, Tools } from "effect-surface"
import { McpEventStore, McpHttp } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import * as HttpDirect from "../../src/mcp/v2025/internal/httpDirect.ts"
import { errorCode, events, headers, post, rawSession, resumeGet, text } from "./httpRaw.ts"

/** A store that remembers every event id it issued, by session and stream. */
const observedStore = () => {
  const store = McpEventStore.makeMemory()
  const issued: Array<{ readonly session: string; readonly stream: string; readonly id: string }> = []
  const observed = McpEventStore.EventStore.of({
    ...store,
    append: (session, stream, message) =>
      Effect.tap(
        store.append(session, stream, message),
        (id) => Effect.sync(() => issued.push({ session, stream, id }))
      )
  })
  return { store: observed, issued }
}

const tools = (gate: Deferred.Deferred<void>, started: Deferred.Deferred<void>, runs: { count: number }) => ({
  counted: Tools.make({
    description: "Count a run, log a line, answer.",
    mutates: true,
    handler: () =>
      Effect.sync(() => ++runs.count).pipe(Effect.andThen(Effect.logInfo("counted")), Effect.as("counted answer"))
  }),
  plain: Tools.make({ description: "Answer at once.", mutates: false, handler: () => Effect.succeed("plain answer") }),
  logs: Tools.make({
    description: "Log a line, then answer.",
    mutates: false,
    handler: () => Effect.as(Effect.logInfo("on my way"), "logged answer")
  }),
  waits: Tools.make({
    description: "Wait to be let through.",
    mutates: false,
    handler: () =>
      Deferred.succeed(started, undefined).pipe(Effect.andThen(Deferred.await(gate)), Effect.as("let through"))
  }),
  polled: Tools.make({
    description: "Close the response stream, then wait to be let through.",
    mutates: false,
    handler: () =>
      Caller.closeResponseStream.pipe(
        Effect.andThen(Deferred.succeed(started, undefined)),
        Effect.andThen(Deferred.await(gate)),
        Effect.as("answered after the poll")
      )
  })
})

const serve = Effect.gen(function*() {
  const { issued, store } = observedStore()
  const gate = yield* Deferred.make<void>()
  const started = yield* Deferred.make<void>()
  const runs = { count: 0 }
  const options = yield* serverOptions
  const served = yield* McpHttp.serve({
    ...options,
    tools: { ...options.tools, ...tools(gate, started, runs) },
    http: { port: 0 }
  }).pipe(Effect.provideService(McpEventStore.EventStore, store))
  const session = yield* rawSession(served.url)
  const postStreams = () => issued.filter((event) => event.session === session && event.stream !== "_GET_stream")
  return { served, session, gate, started, postStreams, runs }
})

const call = (id: number, name: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: {} }
})

describe("MCP over Streamable HTTP: the direct road for plain calls", () => {
  it.live("a call that produces only its answer is one JSON body with the session's id and stores no event; one that logs first is a stream whose events are stored", () =>
    Effect.gen(function*() {
      const { postStreams, served, session } = yield* serve
      // What the `initialize` stream stored is the SDK's.
      const initialized = postStreams().length
      const since = () => postStreams().slice(initialized)
      const plain = yield* post(served.url, call(2, "plain"), session)
      assert.strictEqual(plain.status, 200)
      assert.strictEqual(plain.headers.get("content-type"), "application/json")
      assert.strictEqual(plain.headers.get("mcp-session-id"), session)
      const answer: unknown = JSON.parse(yield* text(plain))
      assert.deepInclude(answer, { jsonrpc: "2.0", id: 2 })
      assert.include(JSON.stringify(answer), "plain answer")
      assert.deepStrictEqual(since(), [])

      const logs = yield* post(served.url, call(3, "logs"), session)
      assert.strictEqual(logs.headers.get("content-type"), "text/event-stream")
      const streamed = yield* events(logs).pipe(Stream.runCollect)
      assert.deepStrictEqual(streamed.map((event) => event.data.includes("on my way")), [true, false])
      assert.include(streamed[1]?.data ?? "", "logged answer")
      // The priming event, the log line and the answer, each with the id the client saw.
      assert.strictEqual(since().length, 3)
      assert.includeMembers(since().map((event) => event.id), streamed.map((event) => event.id ?? ""))
    }))

  it.live("a call whose handler closes its stream before answering is answered on the client's resume", () =>
    Effect.gen(function*() {
      const { gate, served, session, started } = yield* serve
      const cut = yield* post(served.url, call(4, "polled"), session)
      assert.strictEqual(cut.headers.get("content-type"), "text/event-stream")
      // The stream ends with its priming event alone: the cursor to resume from.
      const body = yield* text(cut).pipe(Effect.timeout("5 seconds"))
      const lastEventId = /^id: ?(.+)$/m.exec(body)?.[1] ?? ""
      assert.notStrictEqual(lastEventId, "")
      yield* Deferred.await(started)
      const resumed = yield* resumeGet(served.url, session, lastEventId)
      assert.strictEqual(resumed.status, 200)
      yield* Deferred.succeed(gate, undefined)
      const answer = yield* events(resumed).pipe(
        Stream.filter((event) => event.data.includes("\"id\":4")),
        Stream.runHead,
        Effect.timeout("5 seconds")
      )
      assert.include(Option.getOrUndefined(answer)?.data ?? "", "answered after the poll")
    }))

  it.live("a session ended while a plain call waits answers that call with an error in a sentence, so its client is not left hanging", () =>
    Effect.gen(function*() {
      const { served, session, started } = yield* serve
      const waiting = yield* post(served.url, call(5, "waits"), session).pipe(Effect.flatMap(text), Effect.forkChild)
      yield* Deferred.await(started)
      const deleted = yield* Effect.promise(() => fetch(served.url, { method: "DELETE", headers: headers(session) }))
      assert.strictEqual(deleted.status, 200)
      const body = yield* Fiber.join(waiting).pipe(Effect.timeout("5 seconds"))
      assert.strictEqual(errorCode(body), -32000)
      assert.include(body, "The session ended before the request was answered")
    }))

  it.live("a client gone before its plain call is answered leaves nothing waiting: the late answer goes nowhere and the session serves on", () =>
    Effect.gen(function*() {
      const { gate, served, session, started } = yield* serve
      const controller = new AbortController()
      const gone = yield* Effect.promise(() =>
        fetch(served.url, {
          method: "POST",
          headers: headers(session),
          body: JSON.stringify(call(9, "waits")),
          signal: controller.signal
        }).then(() => "answered", () => "aborted")
      ).pipe(Effect.forkChild)
      yield* Deferred.await(started)
      controller.abort()
      assert.strictEqual(yield* Fiber.join(gone), "aborted")
      yield* Deferred.succeed(gate, undefined)
      const again = yield* Effect.flatMap(post(served.url, call(10, "plain"), session), text)
      assert.deepInclude(JSON.parse(again), { jsonrpc: "2.0", id: 10 })
      assert.include(again, "plain answer")
      assert.deepStrictEqual(yield* served.sessions, [session])
    }))

  it.live("a Content-Type the SDK's transport refuses (415) is refused before any tool runs, whichever road the call would take", () =>
    Effect.gen(function*() {
      const { runs, served, session } = yield* serve
      for (const contentType of ["application/json; charset=utf-8, text/plain", "application/json;,x"]) {
        const refused = yield* Effect.promise(() =>
          fetch(served.url, {
            method: "POST",
            headers: { ...headers(session), "content-type": contentType },
            body: JSON.stringify(call(4, "counted"))
          })
        )
        yield* text(refused)
        assert.strictEqual(refused.status, 415, contentType)
      }
      assert.strictEqual(runs.count, 0)
    }))

  it.live("a request labelled with a protocol version the SDK does not support is 400 before any tool runs; a supported older one is served", () =>
    Effect.gen(function*() {
      const { runs, served, session } = yield* serve
      const labelled = (version: string, id: number) =>
        Effect.promise(() =>
          fetch(served.url, {
            method: "POST",
            headers: { ...headers(session), "mcp-protocol-version": version },
            body: JSON.stringify(call(id, "counted"))
          })
        )
      for (const [i, version] of ["1900-01-01", "2024-13-99"].entries()) {
        const refused = yield* labelled(version, 30 + i)
        yield* text(refused)
        assert.strictEqual(refused.status, 400, version)
      }
      assert.strictEqual(runs.count, 0)
      const older = yield* labelled("2025-06-18", 40)
      assert.include(yield* text(older), "counted answer")
    }))

  it.live("a request id reused while its first request is in flight is refused with -32600, and neither call is answered with the other's result", () =>
    Effect.gen(function*() {
      const { gate, runs, served, session, started } = yield* serve
      const first = yield* post(served.url, call(20, "waits"), session).pipe(Effect.flatMap(text), Effect.forkChild)
      yield* Deferred.await(started)
      const reused = { ...call(20, "counted"), params: { name: "counted", arguments: {}, _meta: {} } }
      const second = yield* Effect.flatMap(post(served.url, reused, session), text).pipe(Effect.timeout("5 seconds"))
      assert.include(second, "-32600")
      assert.notInclude(second, "let through")
      yield* Deferred.succeed(gate, undefined)
      const answered = yield* Fiber.join(first)
      assert.include(answered, "let through")
      assert.notInclude(answered, "counted")
      assert.strictEqual(runs.count, 0)
    }))

  it.live("what the road does not take — a request with _meta, a batch — is answered by the SDK's transport as before", () =>
    Effect.gen(function*() {
      const { postStreams, served, session } = yield* serve
      const initialized = postStreams().length
      const withMeta = { ...call(6, "plain"), params: { name: "plain", arguments: {}, _meta: { progressToken: 6 } } }
      assert.include(yield* Effect.flatMap(post(served.url, withMeta, session), text), "plain answer")
      const batch = yield* Effect.flatMap(post(served.url, [call(7, "plain"), call(8, "plain")], session), text)
      assert.deepStrictEqual((JSON.parse(batch) as ReadonlyArray<{ readonly id: number }>).map((a) => a.id), [7, 8])
      // Each went through the SDK's stream, which stores its priming event.
      assert.isAbove(postStreams().length, initialized)
    }))
})

// Candidates near a plain request, each field sometimes right and sometimes not.
const candidate = Schema.Struct({
  jsonrpc: Schema.Union([Schema.Literal("2.0"), Schema.Json]),
  id: Schema.Union([Schema.String, Schema.Int, Schema.Finite, Schema.Json]),
  method: Schema.Union([Schema.Literals(["tools/call", "initialize", "ping"]), Schema.Json]),
  params: Schema.optionalKey(Schema.Union([Schema.Record(Schema.String, Schema.Json), Schema.Json])),
  extra: Schema.optionalKey(Schema.Json)
})

// A value's JSON with its keys in order, own `__proto__` keys included: equal exactly when the values are.
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    typeof inner === "object" && inner !== null && !Array.isArray(inner)
      ? Object.keys(inner).sort().map((key) => [key, (inner as Record<string, unknown>)[key]])
      : inner)

describe("the direct road's look at a body", () => {
  it.prop(
    "it takes a message exactly when the SDK's schema accepts it, unchanged, as a request other than initialize with no _meta",
    { message: candidate },
    ({ message }) => {
      const { extra, ...fields } = message
      const body: unknown = extra === undefined ? fields : { ...fields, extra }
      const parsed = JSONRPCRequestSchema.safeParse(body)
      const params: unknown = (body as { readonly params?: unknown }).params
      // Accepted unchanged: the message the SDK's transport would deliver is the body itself.
      const sdkTakes = parsed.success && canonical(parsed.data) === canonical(body) &&
        parsed.data.method !== "initialize" &&
        !(typeof params === "object" && params !== null && "_meta" in params)
      assert.strictEqual(HttpDirect.plainRequest(body) !== undefined, sdkTakes, JSON.stringify(body))
    },
    { arbitrary: { runs: 500 } }
  )

  it("params the SDK's schema would copy differently (an own __proto__ from JSON.parse) are left to the SDK", () => {
    const body: unknown = JSON.parse(
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"__proto__\":{\"x\":1}}}"
    )
    assert.isUndefined(HttpDirect.plainRequest(body))
    assert.isDefined(HttpDirect.plainRequest({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x" } }))
  })
})
