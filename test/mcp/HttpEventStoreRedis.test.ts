// The resumability store kept in a real Redis (started for this file on a free port, the clock live
// throughout): the same bounds and keying as the in-memory store, a time to live on every key, and
// the HTTP face resuming a client from it.
import { NodeRedis } from "@effect/platform-node"
import { assert, describe, it, layer } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Option, Queue, Stream } from "effect"
import * as Redis from "effect/persistence/Redis"
import { McpEventStore, McpEventStoreRedis, McpHttp } from "effect-surface/mcp"
import type { McpTransport } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import { events, openGet, post, rawSession, resumeGet, text } from "./httpRaw.ts"
import * as RedisServer from "./redisServer.ts"

const note = (n: number): McpTransport.Message => ({
  jsonrpc: "2.0",
  method: "notifications/message",
  params: { level: "info", data: n }
})

const dataOf = (replay: Option.Option<McpEventStore.Replay>) =>
  Option.match(replay, {
    onNone: () => undefined,
    onSome: (r) => r.events.map((e) => (e.message["params"] as { readonly data?: unknown } | undefined)?.data)
  })

/** An id before a stream's first event (ids are `<stream serial>-<sequence>`), to replay all it keeps. */
const fromStart = (id: string) => id.replace(/-\d+$/, "-0")

/** A store of its own within the file's Redis: a prefix no other test writes. */
const storeFor = (options?: McpEventStoreRedis.Options) =>
  McpEventStoreRedis.make({ ...options, prefix: `test:${crypto.randomUUID()}:` })

layer(RedisServer.layer, { timeout: 30_000, excludeTestServices: true })(
  "MCP over Streamable HTTP: the event store in Redis",
  (it) => {
    it.effect("a stream keeps its newest events, and a resume replays those after the id given", () =>
      Effect.gen(function*() {
        const store = yield* storeFor({ maxEventsPerStream: 3 })
        const ids = []
        for (let n = 1; n <= 5; n++) ids.push(yield* store.append("s1", "_GET_stream", note(n)))
        assert.deepStrictEqual(dataOf(yield* store.after("s1", ids[0] ?? "")), [3, 4, 5])
        assert.deepStrictEqual(dataOf(yield* store.after("s1", ids[3] ?? "")), [5])
        assert.deepStrictEqual(dataOf(yield* store.after("s1", ids[4] ?? "")), [])
      }))

    it.effect("an event id is unknown to any other session, to a forgotten session, and when malformed", () =>
      Effect.gen(function*() {
        const store = yield* storeFor()
        const id = yield* store.append("s1", "_GET_stream", note(1))
        yield* store.append("s2", "_GET_stream", note(2))
        assert.isTrue(Option.isNone(yield* store.after("s2", id)))
        assert.isTrue(Option.isNone(yield* store.after("s1", "not-an-id")))
        yield* store.forget("s1")
        assert.isTrue(Option.isNone(yield* store.after("s1", id)))
      }))

    it.effect("a session keeps its most recently written streams, and its events within its byte budget, oldest first", () =>
      Effect.gen(function*() {
        const streams = yield* storeFor({ maxStreamsPerSession: 2 })
        const a = yield* streams.append("s1", "a", note(1))
        const b = yield* streams.append("s1", "b", note(2))
        yield* streams.append("s1", "a", note(3))
        yield* streams.append("s1", "c", note(4))
        assert.isTrue(Option.isSome(yield* streams.after("s1", a)))
        assert.isTrue(Option.isNone(yield* streams.after("s1", b)))

        const size = JSON.stringify(note(1)).length
        const bytes = yield* storeFor({ maxBytesPerSession: 3 * size })
        const other = yield* bytes.append("s2", "_GET_stream", note(0))
        const ids = []
        for (let n = 1; n <= 5; n++)
          ids.push(yield* bytes.append("s1", n % 2 === 0 ? "post-1" : "_GET_stream", note(n)))
        assert.deepStrictEqual(dataOf(yield* bytes.after("s1", fromStart(ids[0] ?? ""))), [3, 5])
        assert.deepStrictEqual(dataOf(yield* bytes.after("s1", fromStart(ids[1] ?? ""))), [4])
        assert.deepStrictEqual(dataOf(yield* bytes.after("s2", fromStart(other))), [0])
      }))

    it.effect("a stream dropped as delivered resumes nothing, the session's other streams stay, and another session cannot drop it", () =>
      Effect.gen(function*() {
        const store = yield* storeFor()
        const live = yield* store.append("s1", "_GET_stream", note(1))
        const answered = yield* store.append("s1", "post-1", note(2))
        const kept = yield* store.append("s1", "post-2", note(3))
        yield* store.drop("s2", kept)
        yield* store.drop("s1", answered)
        assert.isTrue(Option.isNone(yield* store.after("s1", answered)))
        assert.isTrue(Option.isSome(yield* store.after("s1", live)))
        assert.deepStrictEqual(dataOf(yield* store.after("s1", fromStart(kept))), [3])
      }))

    it.effect("every key a session writes expires within the time to live, and a forgotten session leaves no key behind", () =>
      Effect.gen(function*() {
        const redis = yield* Redis.Redis
        const prefix = `test:${crypto.randomUUID()}:`
        const store = yield* McpEventStoreRedis.make({ prefix, timeToLive: "1 minute" })
        yield* store.append("s1", "_GET_stream", note(1))
        yield* store.append("s1", "post-1", note(2))
        const keys = yield* redis.send<ReadonlyArray<string>>("KEYS", `${prefix}*`)
        assert.isAbove(keys.length, 0)
        for (const key of keys) {
          const ttl = yield* redis.send<number>("PTTL", key)
          assert.isTrue(ttl > 0 && ttl <= 60_000, `${key}: ${ttl}`)
        }
        yield* store.forget("s1")
        assert.deepStrictEqual(yield* redis.send<ReadonlyArray<string>>("KEYS", `${prefix}*`), [])
      }))

    it.effect("a held stream is published to its holder from then on; a hold from an id answers what the stream kept after it; a release stops it", () =>
      Effect.gen(function*() {
        const redis = yield* Redis.Redis
        const tailable = yield* McpEventStoreRedis.makeTailable({ prefix: `test:${crypto.randomUUID()}:` })
        const { store } = tailable
        const channel = `holder:${crypto.randomUUID()}`
        const published = yield* redis.subscribe(channel)
        const standalone = Option.getOrThrow(yield* tailable.hold("s1", undefined, channel))
        assert.strictEqual(standalone.stream, "_GET_stream")
        assert.deepStrictEqual(standalone.events, [])
        assert.deepStrictEqual(yield* tailable.standaloneHolder("s1"), Option.some(channel))
        const id = yield* store.append("s1", "_GET_stream", note(1))
        yield* store.append("s2", "_GET_stream", note(9))
        const first = JSON.parse((yield* Queue.take(published).pipe(Effect.timeout("5 seconds"))).message)
        assert.deepStrictEqual({ ...first, message: JSON.parse(first.message) }, {
          kind: "event",
          session: "s1",
          stream: "_GET_stream",
          id,
          message: note(1)
        })

        const post = yield* store.append("s1", "post-1", note(2))
        yield* store.append("s1", "post-1", note(3))
        const resumed = Option.getOrThrow(yield* tailable.hold("s1", post, channel))
        assert.strictEqual(resumed.stream, "post-1")
        assert.deepStrictEqual(resumed.events.map((event) => event.message), [note(3)])
        assert.isTrue(Option.isNone(yield* tailable.hold("s2", post, channel)))
        yield* tailable.release("s1", standalone, "someone-else")
        yield* tailable.release("s1", standalone, channel)
        // Released, the standalone stream publishes nothing; the post stream is still held.
        yield* store.append("s1", "_GET_stream", note(4))
        yield* store.append("s1", "post-1", note(5))
        const next = yield* Queue.take(published).pipe(Effect.timeout("5 seconds"))
        assert.strictEqual(JSON.parse(JSON.parse(next.message).message).params.data, 5)
      }))

    it.effect("the HTTP face over the Redis store resumes a client's GET stream with the events it missed", () =>
      Effect.gen(function*() {
        const store = yield* storeFor()
        const options = yield* serverOptions
        const served = yield* McpHttp.serve({ ...options, http: { port: 0 } }).pipe(
          Effect.provide(Layer.succeed(McpEventStore.EventStore, store))
        )
        const session = yield* rawSession(served.url)
        const first = yield* openGet(served.url, session)
        const reading = yield* events(first).pipe(Stream.runHead, Effect.forkChild)
        yield* served.face.setPrompts({})
        const lastEventId = Option.getOrUndefined(yield* Fiber.join(reading).pipe(Effect.timeout("5 seconds")))?.id ??
          ""
        // Missed while away (one move: moves made together may be announced as one), then resumed.
        yield* served.face.setPrompts({})
        const resumed = yield* resumeGet(served.url, session, lastEventId)
        assert.strictEqual(resumed.status, 200)
        const replayed = yield* events(resumed).pipe(Stream.runHead, Effect.timeout("5 seconds"))
        const missed = Option.getOrUndefined(replayed)
        assert.include(missed?.data ?? "", "prompts/list_changed")
        assert.notStrictEqual(missed?.id, lastEventId)
      }))
  }
)

describe("MCP over Streamable HTTP: an event store in a Redis that stalls or goes", () => {
  it.live(
    "an operation fails with EventStoreError past its timeout or at once when Redis is gone; a call is still answered, a resume refused 503 in a sentence",
    () =>
      Effect.gen(function*() {
        const server = yield* RedisServer.start
        // Offline, a command fails at once instead of waiting in the client for Redis to come back.
        const context = yield* Layer.build(NodeRedis.layer({ url: server.url, disableOfflineQueue: true }))
        const redis = Context.get(context, Redis.Redis)
        const store = yield* McpEventStoreRedis.make({ prefix: `test:${crypto.randomUUID()}:`, timeout: "300 millis" })
          .pipe(Effect.provideContext(context))
        const options = yield* serverOptions
        const served = yield* McpHttp.serve({ ...options, http: { port: 0 } }).pipe(
          Effect.provide(Layer.succeed(McpEventStore.EventStore, store))
        )
        const session = yield* rawSession(served.url)
        const stored = yield* store.append(session, "_GET_stream", note(1))

        // A Redis that answers nobody for a second: the store gives up at its timeout.
        yield* redis.send("CLIENT", "PAUSE", "1000", "ALL")
        const stalled = yield* Effect.flip(store.append("s1", "_GET_stream", note(2)))
        assert.strictEqual(stalled.message, "the event store failed: Redis gave no answer within 300ms")
        yield* Effect.sleep("1 second")

        yield* server.stop
        const gone = yield* Effect.flip(store.after("s1", stored))
        assert.strictEqual(gone._tag, "EventStoreError")
        assert.include(gone.message, "the event store failed: Redis failed:")
        // Its events go unstored, and the answer still arrives.
        const call = {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "tasks_add", arguments: { title: "offline" } }
        }
        assert.include(yield* Effect.flatMap(post(served.url, call, session), text), "\"result\"")
        const resumed = yield* openGet(served.url, session, stored)
        assert.strictEqual(resumed.status, 503)
        assert.strictEqual(resumed.headers.get("retry-after"), "1")
        assert.include(yield* text(resumed), "cannot resume: the event store failed: Redis failed:")
      }),
    { timeout: 30_000 }
  )
})
