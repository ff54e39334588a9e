// The resumability store behind the Streamable HTTP face: bounded, and keyed so one session can
// never replay another's events.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { McpEventStore } from "effect-surface/mcp"
import type { McpTransport } from "effect-surface/mcp"

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

describe("MCP over Streamable HTTP: the event store", () => {
  it.effect("a stream keeps its newest events, and a resume replays those after the id given", () =>
    Effect.gen(function*() {
      const store = McpEventStore.makeMemory({ maxEventsPerStream: 3 })
      const ids = []
      for (let n = 1; n <= 5; n++) ids.push(yield* store.append("s1", "_GET_stream", note(n)))
      // The first id was dropped by the bound, yet still names its stream: what is kept is replayed.
      assert.deepStrictEqual(dataOf(yield* store.after("s1", ids[0] ?? "")), [3, 4, 5])
      assert.deepStrictEqual(dataOf(yield* store.after("s1", ids[3] ?? "")), [5])
      assert.deepStrictEqual(dataOf(yield* store.after("s1", ids[4] ?? "")), [])
    }))

  it.effect("an event id is unknown to any other session, to a forgotten session, and when malformed", () =>
    Effect.gen(function*() {
      const store = McpEventStore.makeMemory()
      const id = yield* store.append("s1", "_GET_stream", note(1))
      yield* store.append("s2", "_GET_stream", note(2))
      assert.isTrue(Option.isNone(yield* store.after("s2", id)))
      assert.isTrue(Option.isNone(yield* store.after("s1", "not-an-id")))
      yield* store.forget("s1")
      assert.isTrue(Option.isNone(yield* store.after("s1", id)))
    }))

  it.effect("a session keeps its most recently written streams; the least recent is dropped whole", () =>
    Effect.gen(function*() {
      const store = McpEventStore.makeMemory({ maxStreamsPerSession: 2 })
      const a = yield* store.append("s1", "a", note(1))
      const b = yield* store.append("s1", "b", note(2))
      yield* store.append("s1", "a", note(3))
      yield* store.append("s1", "c", note(4))
      assert.isTrue(Option.isSome(yield* store.after("s1", a)))
      assert.isTrue(Option.isNone(yield* store.after("s1", b)))
    }))

  it.effect("the SDK's view of a session replays messages, not the priming events that only carry a cursor", () =>
    Effect.gen(function*() {
      const store = McpEventStore.makeMemory()
      const sdk = McpEventStore.forSession(store, "s1", Effect.runPromise)
      // The SDK stores a priming event as an empty object.
      const primed = yield* Effect.promise(() => sdk.storeEvent("post-1", {} as McpTransport.Message))
      yield* Effect.promise(() => sdk.storeEvent("post-1", note(1)))
      const sent: Array<McpTransport.Message> = []
      const stream = yield* Effect.promise(() =>
        sdk.replayEventsAfter("0-0", {
          send: async (_, message) => {
            sent.push(message)
          }
        }).catch(() => "refused")
      )
      assert.strictEqual(stream, "refused")
      const replayed = yield* Effect.promise(() =>
        sdk.replayEventsAfter(primed, {
          send: async (_, message) => {
            sent.push(message)
          }
        })
      )
      assert.strictEqual(replayed, "post-1")
      assert.deepStrictEqual(sent, [note(1)])
      assert.strictEqual(
        yield* Effect.promise(() => sdk.getStreamIdForEventId?.(primed) ?? Promise.resolve(undefined)),
        "post-1"
      )
      const other = McpEventStore.forSession(store, "s2", Effect.runPromise)
      assert.isUndefined(
        yield* Effect.promise(() => other.getStreamIdForEventId?.(primed) ?? Promise.resolve(undefined))
      )
    }))

  it.effect("a session's events are kept within its byte budget, oldest first, and no other session loses any", () =>
    Effect.gen(function*() {
      const size = JSON.stringify(note(1)).length
      const store = McpEventStore.makeMemory({ maxBytesPerSession: 3 * size })
      const other = yield* store.append("s2", "_GET_stream", note(0))
      const ids = []
      for (let n = 1; n <= 5; n++) ids.push(yield* store.append("s1", n % 2 === 0 ? "post-1" : "_GET_stream", note(n)))
      // Oldest first across the session's streams: 1 and 2 have gone, 3, 4 and 5 are kept.
      assert.deepStrictEqual(dataOf(yield* store.after("s1", fromStart(ids[0] ?? ""))), [3, 5])
      assert.deepStrictEqual(dataOf(yield* store.after("s1", fromStart(ids[1] ?? ""))), [4])
      assert.deepStrictEqual(dataOf(yield* store.after("s2", fromStart(other))), [0])
    }))

  it.effect("the store keeps within its byte budget in all: the least recently written session gives up its oldest events first", () =>
    Effect.gen(function*() {
      const size = JSON.stringify(note(1)).length
      const store = McpEventStore.makeMemory({ maxBytes: 4 * size })
      const a = yield* store.append("a", "_GET_stream", note(1))
      yield* store.append("a", "_GET_stream", note(2))
      const b = yield* store.append("b", "_GET_stream", note(3))
      yield* store.append("b", "_GET_stream", note(4))
      // A fifth event over a budget of four: `a` was written least recently, and gives up its oldest.
      const c = yield* store.append("c", "_GET_stream", note(5))
      assert.deepStrictEqual(dataOf(yield* store.after("a", fromStart(a))), [2])
      yield* store.append("c", "_GET_stream", note(6))
      assert.deepStrictEqual(dataOf(yield* store.after("a", fromStart(a))), [])
      assert.deepStrictEqual(dataOf(yield* store.after("b", fromStart(b))), [3, 4])
      assert.deepStrictEqual(dataOf(yield* store.after("c", fromStart(c))), [5, 6])
    }))

  it.effect("what a forgotten session or a dropped stream held is counted no more against the budget", () =>
    Effect.gen(function*() {
      const size = JSON.stringify(note(1)).length
      const store = McpEventStore.makeMemory({ maxBytes: 2 * size })
      yield* store.append("a", "_GET_stream", note(1))
      const answered = yield* store.append("a", "post-1", note(2))
      yield* store.forget("a")
      const b = yield* store.append("b", "_GET_stream", note(3))
      const delivered = yield* store.append("b", "post-2", note(4))
      yield* store.drop("b", delivered)
      yield* store.append("c", "_GET_stream", note(5))
      assert.isTrue(Option.isNone(yield* store.after("a", answered)))
      assert.deepStrictEqual(dataOf(yield* store.after("b", fromStart(b))), [3])
    }))

  it.effect("a stream dropped as delivered resumes nothing, the session's other streams stay, and another session cannot drop it", () =>
    Effect.gen(function*() {
      const store = McpEventStore.makeMemory()
      const live = yield* store.append("s1", "_GET_stream", note(1))
      const answered = yield* store.append("s1", "post-1", note(2))
      const kept = yield* store.append("s1", "post-2", note(3))
      yield* store.drop("s2", kept)
      yield* store.drop("s1", answered)
      assert.isTrue(Option.isNone(yield* store.after("s1", answered)))
      assert.isTrue(Option.isSome(yield* store.after("s1", live)))
      assert.deepStrictEqual(dataOf(yield* store.after("s1", fromStart(kept))), [3])
    }))
})
