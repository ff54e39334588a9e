// The resumability store behind the Streamable HTTP face: bounded, and keyed so one session can
// never replay another's events.
import { assert, describe, it } from "@effect/vitest"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Option } from "effect"
import { McpEventStore } from "effect-surface/mcp"

const note = (n: number): JSONRPCMessage => ({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: n } })

const dataOf = (replay: Option.Option<McpEventStore.Replay>) =>
  Option.match(replay, {
    onNone: () => undefined,
    onSome: (r) => r.events.map((e) => "params" in e.message ? e.message.params?.["data"] : undefined)
  })

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
      const primed = yield* Effect.promise(() => sdk.storeEvent("post-1", {} as JSONRPCMessage))
      yield* Effect.promise(() => sdk.storeEvent("post-1", note(1)))
      const sent: Array<JSONRPCMessage> = []
      const stream = yield* Effect.promise(() => sdk.replayEventsAfter("0-0", { send: async (_, message) => { sent.push(message) } }).catch(() => "refused"))
      assert.strictEqual(stream, "refused")
      const replayed = yield* Effect.promise(() => sdk.replayEventsAfter(primed, { send: async (_, message) => { sent.push(message) } }))
      assert.strictEqual(replayed, "post-1")
      assert.deepStrictEqual(sent, [note(1)])
      assert.strictEqual(yield* Effect.promise(() => sdk.getStreamIdForEventId?.(primed) ?? Promise.resolve(undefined)), "post-1")
      const other = McpEventStore.forSession(store, "s2", Effect.runPromise)
      assert.isUndefined(yield* Effect.promise(() => other.getStreamIdForEventId?.(primed) ?? Promise.resolve(undefined)))
    }))
})
