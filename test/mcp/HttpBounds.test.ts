// The bounds a public Streamable HTTP server needs, each driven over real loopback HTTP: stored
// events, subscriptions, bodies, requests in flight, sessions, unread streams, and a rebinding
// guard that would check nothing.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Deferred, Effect, Exit, Fiber, Option, Ref, Schedule, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as Net from "node:net"
import { Tools } from "effect-surface"
import { McpEventStore, McpHttp, McpHttpChecks } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import { errorCode, events, headers, initialize, openGet, post, rawSession, resumeGet, text } from "./httpRaw.ts"

const serveBoard = (http: McpHttp.HttpOptions = {}) =>
  Effect.flatMap(
    serverOptions,
    (options) => McpHttp.serve({ ...options, coalesce: "1 millis", http: { port: 0, ...http } })
  )

/** A store that remembers every event id it issued, by session and stream. */
const observedStore = (options?: McpEventStore.MemoryOptions) => {
  const store = McpEventStore.makeMemory(options)
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

/** A tool that logs, then waits for `gate` before answering. */
const gated = (gate: Deferred.Deferred<void>, started?: Deferred.Deferred<void>) =>
  Tools.make({
    description: "Log a line, then wait to be let through.",
    mutates: false,
    handler: () =>
      Effect.logInfo("started").pipe(
        Effect.andThen(started === undefined ? Effect.void : Deferred.succeed(started, undefined)),
        Effect.andThen(Deferred.await(gate)),
        Effect.as("let through")
      )
  })

const callTool = (id: number, name: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: {} }
})

/** Wait (bounded) until `read` satisfies `done`, and answer its last value. */
const eventually = <A>(read: Effect.Effect<A>, done: (a: A) => boolean) =>
  Effect.repeat(read, { until: done, schedule: Schedule.spaced("10 millis"), times: 500 })

/** `eventually` under the TestClock, where a spaced schedule would never wake: yield instead of sleeping. */
const eventuallyNow = <A>(read: Effect.Effect<A>, done: (a: A) => boolean) => {
  const step: Effect.Effect<A> = Effect.flatMap(read, (a) => Effect.as(Effect.yieldNow, a))
  return Effect.repeat(step, { until: done, times: 1000 })
}

describe("MCP over Streamable HTTP: bounds", () => {
  it.live("a POST stream's stored events go once its answers are delivered, and a stream cut off before its answer resumes with it", () =>
    Effect.gen(function*() {
      const { issued, store } = observedStore()
      const gate = yield* Deferred.make<void>()
      const options = yield* serverOptions
      const served = yield* McpHttp.serve({
        ...options,
        tools: { ...options.tools, gated: gated(gate) },
        http: { port: 0 }
      }).pipe(
        Effect.provideService(McpEventStore.EventStore, store)
      )
      const session = yield* rawSession(served.url)
      // Answered as JSON (nothing before the answer), and as a stream (a log line first).
      yield* Effect.flatMap(post(served.url, { jsonrpc: "2.0", id: 2, method: "tools/list" }, session), text)
      assert.include(
        yield* Effect.flatMap(
          post(
            served.url,
            { ...callTool(3, "tasks_add"), params: { name: "tasks_add", arguments: { title: "x" } } },
            session
          ),
          text
        ),
        "added"
      )
      const answered = issued.filter((event) => event.session === session && event.stream !== "_GET_stream")
      assert.isAbove(answered.length, 0)
      const gone = Effect.forEach(
        answered,
        (event) => Effect.map(Effect.orDie(store.after(session, event.id)), Option.isNone)
      )
      assert.deepStrictEqual(yield* eventually(gone, (all) => all.every(Boolean)), answered.map(() => true))

      // Cut off after its log line: the stream stays, and the answer given later reaches the resume.
      const controller = new AbortController()
      const cut = yield* post(served.url, callTool(4, "gated"), session, controller.signal)
      const head = yield* events(cut).pipe(Stream.take(1), Stream.runCollect)
      assert.include(head[0]?.data ?? "", "started")
      const lastEventId = head[0]?.id ?? ""
      controller.abort()
      // Refused (409) until the server has seen the stream go.
      const resumed = yield* resumeGet(served.url, session, lastEventId)
      assert.strictEqual(resumed.status, 200)
      yield* Deferred.succeed(gate, undefined)
      const answer = yield* events(resumed).pipe(
        Stream.filter((event) => event.data.includes("\"id\":4")),
        Stream.runHead,
        Effect.timeout("5 seconds")
      )
      assert.include(Option.getOrUndefined(answer)?.data ?? "", "let through")
    }))

  it.live("a session holds at most maxSubscriptionsPerSession URIs: one more is refused in a sentence, a URI held or freed is accepted", () =>
    Effect.gen(function*() {
      const served = yield* serveBoard({ maxSubscriptionsPerSession: 2 })
      const client = new Client({ name: "bounds", version: "1.0.0" })
      yield* Effect.acquireRelease(
        Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(served.url)))),
        () => Effect.promise(() => client.close())
      )
      const subscribe = (uri: string) => Effect.tryPromise(() => client.subscribeResource({ uri })).pipe(Effect.exit)
      assert.isTrue(Exit.isSuccess(yield* subscribe("surface://cells/focus")))
      assert.isTrue(Exit.isSuccess(yield* subscribe("surface://cells/stopwatch/laps")))
      const third = yield* Effect.flip(
        Effect.tryPromise(() => client.subscribeResource({ uri: "surface://streams/activity" }))
      )
      assert.include(String(third.cause), "Too many subscriptions: a session may hold at most 2")
      // A URI already held is no new subscription.
      assert.isTrue(Exit.isSuccess(yield* subscribe("surface://cells/focus")))
      yield* Effect.promise(() => client.unsubscribeResource({ uri: "surface://cells/stopwatch/laps" }))
      assert.isTrue(Exit.isSuccess(yield* subscribe("surface://streams/activity")))
      // Another session has a cap of its own.
      const other = yield* rawSession(served.url)
      for (const [id, uri] of [[2, "surface://cells/focus"], [3, "surface://cells/stopwatch/laps"]] as const) {
        const answer = yield* Effect.flatMap(
          post(served.url, { jsonrpc: "2.0", id, method: "resources/subscribe", params: { uri } }, other),
          text
        )
        assert.include(answer, "\"result\"")
      }
    }))

  it.live("a request naming an unknown session is refused 404 before its body is read", () =>
    Effect.gen(function*() {
      const served = yield* serveBoard({ maxBodyBytes: 1024 })
      const unknown = crypto.randomUUID()
      // Declared over the bound: the session is refused first, not the size.
      const declared = yield* post(served.url, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: { padding: "x".repeat(4096) }
      }, unknown)
      assert.strictEqual(declared.status, 404)
      assert.strictEqual(errorCode(yield* text(declared)), -32001)
      // Streamed, with no length: answered long before the 64 MiB offered were read.
      const pulled = { bytes: 0 }
      const chunk = new Uint8Array(16 * 1024).fill(0x20)
      const body = new ReadableStream<Uint8Array>({
        pull: (controller) => {
          if (pulled.bytes >= 64 * 1024 * 1024) return controller.close()
          pulled.bytes += chunk.byteLength
          controller.enqueue(chunk)
        }
      })
      // Node's fetch needs `duplex` for a streamed body; the DOM `RequestInit` type lacks it.
      const streamed = yield* Effect.promise(() =>
        fetch(served.url, { method: "POST", headers: headers(unknown), body, duplex: "half" } as RequestInit)
      )
      assert.strictEqual(streamed.status, 404)
      assert.isBelow(pulled.bytes, 16 * 1024 * 1024)
    }))

  it.live("past maxRequestsInFlight a request is answered 503 with Retry-After, a notification still passes, and once the call answers requests are served", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const options = yield* serverOptions
      const served = yield* McpHttp.serve({
        ...options,
        tools: { ...options.tools, gated: gated(gate, started) },
        http: { port: 0, maxRequestsInFlight: 1 }
      })
      const session = yield* rawSession(served.url)
      const holding = yield* Effect.flatMap(post(served.url, callTool(2, "gated"), session), text).pipe(
        Effect.forkChild
      )
      yield* Deferred.await(started).pipe(Effect.timeout("5 seconds"))
      const refused = yield* post(served.url, { jsonrpc: "2.0", id: 3, method: "tools/list" }, session)
      assert.strictEqual(refused.status, 503)
      assert.strictEqual(refused.headers.get("retry-after"), "1")
      assert.strictEqual(errorCode(yield* text(refused)), -32000)
      // An `initialize` refused at the cap leaves no session behind.
      const opening = yield* post(served.url, initialize)
      assert.strictEqual(opening.status, 503)
      yield* text(opening)
      assert.deepStrictEqual(yield* served.sessions, [session])
      const notified = yield* post(served.url, { jsonrpc: "2.0", method: "notifications/roots/list_changed" }, session)
      assert.strictEqual(notified.status, 202)
      yield* Deferred.succeed(gate, undefined)
      assert.include(yield* Fiber.join(holding).pipe(Effect.timeout("5 seconds")), "let through")
      const served_ = yield* post(served.url, { jsonrpc: "2.0", id: 4, method: "tools/list" }, session)
      assert.strictEqual(served_.status, 200)
      assert.include(yield* text(served_), "tasks_add")
    }))

  it.effect("a full session table evicts its least recently used idle session; with every session in use it answers 503 with Retry-After", () =>
    Effect.gen(function*() {
      const served = yield* serveBoard({ maxSessions: 2 })
      const a = yield* rawSession(served.url)
      yield* TestClock.adjust("1 minute")
      const b = yield* rawSession(served.url)
      yield* TestClock.adjust("1 minute")
      // `a` is used again, so `b` is now the least recently used.
      yield* Effect.flatMap(post(served.url, { jsonrpc: "2.0", id: 2, method: "tools/list" }, a), text)
      yield* TestClock.adjust("1 minute")
      const c = yield* rawSession(served.url)
      assert.sameMembers([...(yield* served.sessions)], [a, c])
      const evicted = yield* post(served.url, { jsonrpc: "2.0", id: 3, method: "tools/list" }, b)
      assert.strictEqual(evicted.status, 404)
      yield* text(evicted)

      // Both sessions keep a GET stream open: neither is idle, so a third is refused.
      const streams = [yield* openGet(served.url, a), yield* openGet(served.url, c)]
      const refused = yield* post(served.url, initialize)
      assert.strictEqual(refused.status, 503)
      assert.strictEqual(refused.headers.get("retry-after"), "1")
      assert.include(yield* text(refused), "all 2 sessions are in use")
      for (const stream of streams) yield* Effect.promise(() => stream.body?.cancel() ?? Promise.resolve())
      // With the streams gone, the sessions are idle again and a new one takes the older's place.
      const d = yield* eventuallyNow(Effect.exit(rawSessionOrFail(served.url)), Exit.isSuccess)
      assert.isTrue(Exit.isSuccess(d))
      assert.strictEqual((yield* served.sessions).length, 2)
    }))

  it.live(
    "a GET stream nobody reads is closed past its buffer, and the client resuming with Last-Event-ID receives every event it missed",
    () =>
      Effect.gen(function*() {
        const { issued, store } = observedStore({
          maxEventsPerStream: 1_000_000,
          maxBytesPerSession: 256 * 1024 * 1024,
          maxBytes: 256 * 1024 * 1024
        })
        const served = yield* serveBoard({ maxStreamBufferBytes: 16 * 1024 }).pipe(
          Effect.provideService(McpEventStore.EventStore, store)
        )
        const session = yield* rawSession(served.url)
        const reader = yield* unreadGet(served.port, session)
        // One event read, then nothing more: the client stops reading.
        yield* served.face.setPrompts({})
        const firstId = yield* reader.firstEventId.pipe(Effect.timeout("5 seconds"))
        yield* Effect.sync(() => reader.socket.pause())

        // Events until the server has let the stream go: a resume is refused (409) while it holds it.
        let resumed: Response | undefined
        for (let round = 0; round < 200 && resumed === undefined; round++) {
          for (let n = 0; n < 500; n++) yield* served.face.setPrompts({})
          const attempt = yield* openGet(served.url, session, firstId)
          if (attempt.status === 409) yield* text(attempt)
          else resumed = attempt
        }
        assert.isDefined(resumed)
        assert.strictEqual(resumed?.status, 200)
        const stored = issued.filter((event) => event.session === session && event.stream === "_GET_stream").map((
          event
        ) => event.id)
        const missed = stored.slice(stored.indexOf(firstId) + 1)
        // More than the buffer and the sockets could hold went unread.
        assert.isAbove(missed.length, 1000)
        const replayed = yield* events(resumed!).pipe(
          Stream.take(missed.length),
          Stream.map((event) => event.id),
          Stream.runCollect,
          Effect.timeout("20 seconds")
        )
        assert.deepStrictEqual(replayed, missed)
      }),
    { timeout: 60_000 }
  )

  it.live("dnsRebindingProtection on a bind that is not loopback, with no allow-list, refuses to start and says what to add", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(serveBoard({ host: "0.0.0.0", dnsRebindingProtection: true }))
      assert.strictEqual(refused._tag, "UnguardedBind")
      assert.include(refused.message, "add allowedHosts")
      assert.include(refused.message, "0.0.0.0")
      // Given a list, or left to its default (off, with a warning), the bind is allowed.
      assert.isTrue(
        Exit.isSuccess(
          yield* Effect.exit(
            McpHttpChecks.checkBind({ host: "0.0.0.0", protect: true, allowedHosts: ["mcp.example.com"] })
          )
        )
      )
      assert.isTrue(Exit.isSuccess(yield* Effect.exit(McpHttpChecks.checkBind({ host: "0.0.0.0" }))))
    }))
})

/** `rawSession`, failing (rather than asserting) when the server refuses it. */
const rawSessionOrFail = (url: string) =>
  Effect.flatMap(
    post(url, initialize),
    (response) =>
      Effect.flatMap(text(response), () => response.status === 200 ? Effect.void : Effect.fail(response.status))
  )

/** A GET stream over a raw socket, so the test decides when the client stops reading. */
const unreadGet = (port: number, session: string) =>
  Effect.gen(function*() {
    const firstId = yield* Deferred.make<string>()
    const opened = yield* Deferred.make<void>()
    const seen = yield* Ref.make("")
    const socket = yield* Effect.acquireRelease(
      Effect.sync(() => Net.connect({ host: "127.0.0.1", port })),
      (socket) => Effect.sync(() => socket.destroy())
    )
    socket.on("error", () => undefined)
    socket.on("data", (chunk: Buffer) => {
      const all = Effect.runSync(Ref.updateAndGet(seen, (text) => text + chunk.toString()))
      if (all.includes(": stream open")) Deferred.doneUnsafe(opened, Exit.void)
      const id = /^id: (\S+)\ndata: \{/m.exec(all)?.[1]
      if (id !== undefined) Deferred.doneUnsafe(firstId, Exit.succeed(id))
    })
    socket.write(
      `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\nMcp-Session-Id: ${session}\r\nMcp-Protocol-Version: 2025-11-25\r\n\r\n`
    )
    yield* Deferred.await(opened).pipe(Effect.timeout("5 seconds"))
    return { socket, firstEventId: Deferred.await(firstId) }
  })
