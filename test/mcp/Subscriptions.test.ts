import { assert, describe, it } from "@effect/vitest"
import type { Duration } from "effect"
import { Effect, Option, Queue, Schema, Stream, SubscriptionRef } from "effect"
import type { Client } from "effect-surface"
import { Surface } from "effect-surface"
import { connect } from "./harness.ts"

const Gauge = Surface.make({
  cells: { level: Surface.cell(Schema.Int, 0) },
  collections: { slow: Surface.collection(Schema.String, Schema.Int) }
})

/** A hand-built client: a live cell, and a collection whose item lookups never answer. */
const gauge = Effect.gen(function*() {
  const level = yield* SubscriptionRef.make(0)
  const client: Client.AnyClient = {
    spec: Gauge,
    cells: { level: { read: SubscriptionRef.get(level), subscribe: SubscriptionRef.changes(level) } },
    collections: {
      slow: {
        read: Effect.succeed(new Map()),
        subscribe: Stream.succeed(new Map()),
        get: () => Effect.never.pipe(Effect.as(Option.none()))
      }
    },
    streams: {},
    events: {},
    procedures: {}
  }
  return { level, client }
})

const serve = (client: Client.AnyClient, coalesce: Duration.Input) =>
  connect({
    core: { surface: Gauge, expose: { cells: { level: true }, collections: { slow: true } } },
    client: Effect.succeed({ core: client, clients: {} }),
    coalesce,
    itemDeadline: "200 millis"
  })

const drain = (queue: Queue.Queue<string>) => Effect.map(Queue.clear(queue), (all) => all.length)

describe("resource subscriptions", () => {
  it.live("a burst of changes is coalesced into a bounded number of updates, the last change included", () =>
    Effect.gen(function*() {
      const { client, level } = yield* gauge
      const c = yield* serve(client, "100 millis")
      yield* Effect.promise(() => c.client.subscribeResource({ uri: "surface://cells/level" }))
      yield* Effect.sleep("50 millis")
      // 50 changes within ~50 ms: at most a leading and a trailing update per 100 ms window.
      for (let n = 1; n <= 50; n++) yield* SubscriptionRef.set(level, n)
      yield* Effect.sleep("400 millis")
      const updates = yield* drain(c.updated)
      assert.isAtLeast(updates, 1)
      assert.isAtMost(updates, 3)
      // The trailing update is what makes a coalesced burst safe: the last state is announced.
      yield* SubscriptionRef.set(level, 99)
      assert.strictEqual(yield* Queue.take(c.updated), "surface://cells/level")
    }))

  it.live("after unsubscribe no update arrives for that URI", () =>
    Effect.gen(function*() {
      const { client, level } = yield* gauge
      const c = yield* serve(client, "1 millis")
      yield* Effect.promise(() => c.client.subscribeResource({ uri: "surface://cells/level" }))
      yield* Effect.sleep("50 millis")
      yield* SubscriptionRef.set(level, 1)
      assert.strictEqual(yield* Queue.take(c.updated), "surface://cells/level")
      yield* Effect.promise(() => c.client.unsubscribeResource({ uri: "surface://cells/level" }))
      yield* SubscriptionRef.set(level, 2)
      yield* SubscriptionRef.set(level, 3)
      yield* Effect.sleep("100 millis")
      assert.strictEqual(yield* drain(c.updated), 0)
    }))

  it.live("an item read whose source never answers fails at its deadline, naming the URI", () =>
    Effect.gen(function*() {
      const { client } = yield* gauge
      const c = yield* serve(client, "1 millis")
      const started = Date.now()
      const failed = yield* Effect.flip(Effect.tryPromise(() => c.client.readResource({ uri: "surface://collections/slow/k1" })))
      assert.isBelow(Date.now() - started, 5_000)
      assert.include(String(failed.cause), "surface://collections/slow/k1")
      assert.include(String(failed.cause), "did not answer within")
    }))
})
