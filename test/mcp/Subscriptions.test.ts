import { assert, describe, it } from "@effect/vitest"
import type { Duration } from "effect"
import { Effect, Logger, Queue, Ref, Schedule, SubscriptionRef } from "effect"
import type { Bundle, Client } from "effect-surface"
import * as Face from "../../src/mcp/face/Face.ts"
import * as GaugeSource from "./gauge.ts"
import { connect, connectTo } from "./harness.ts"

const serve = (client: Client.AnyClient, coalesce: Duration.Input) =>
  connect({
    core: { surface: GaugeSource.Gauge, expose: { cells: { level: true }, collections: { slow: true } } },
    client: Effect.succeed({ core: client, clients: {} }),
    coalesce,
    itemDeadline: "200 millis"
  })

const drain = (queue: Queue.Queue<string>) => Effect.map(Queue.clear(queue), (all) => all.length)

describe("resource subscriptions", () => {
  it.live("a burst of changes is coalesced into a bounded number of updates, the last change included", () =>
    Effect.gen(function*() {
      const { client, level } = yield* GaugeSource.makeGauge()
      const c = yield* serve(client, "100 millis")
      yield* Effect.promise(() => c.client.subscribeResource({ uri: "surface://cells/level" }))
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
      const { client, level } = yield* GaugeSource.makeGauge()
      const c = yield* serve(client, "1 millis")
      yield* Effect.promise(() => c.client.subscribeResource({ uri: "surface://cells/level" }))
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
      const { client } = yield* GaugeSource.makeGauge()
      const c = yield* serve(client, "1 millis")
      // A source that never answers: only the deadline can end the read, within the test's timeout.
      const failed = yield* Effect.flip(
        Effect.tryPromise(() => c.client.readResource({ uri: "surface://collections/slow/k1" }))
      )
      assert.include(String(failed.cause), "surface://collections/slow/k1")
      assert.include(String(failed.cause), "did not answer within")
    }))
})

const serveGauge = (gauge: GaugeSource.Gauge, options: Partial<Face.Options> = {}) =>
  connect({
    core: { surface: GaugeSource.Gauge, expose: { cells: { level: true, stuck: true } } },
    client: Effect.succeed({ core: gauge.client, clients: {} }),
    coalesce: "1 millis",
    resubscribe: Schedule.max([Schedule.spaced("5 millis"), Schedule.recurs(2)]),
    ...options
  })

const subscribe = (
  c: { readonly client: { subscribeResource: (p: { uri: string }) => Promise<unknown> } },
  uri: string
) => Effect.promise(() => c.client.subscribeResource({ uri }))

/** The next update, or a failure naming what was awaited. */
const nextUpdate = (updated: Queue.Queue<string>, what: string) =>
  Queue.take(updated).pipe(
    Effect.timeoutOrElse({ duration: "2 seconds", orElse: () => Effect.die(`no update: ${what}`) })
  )

/** Every log line at warning or above, as "<level> <message>". */
const capturing = (lines: Array<string>) =>
  Logger.layer([Logger.make((options) => {
    if (options.logLevel === "Warn" || options.logLevel === "Error")
      lines.push(`${options.logLevel} ${String(options.message)}`)
  })])

describe("a subscription's life", () => {
  it.live("a link that drops again and again is followed as long as each open delivers: the retry budget starts again", () =>
    Effect.gen(function*() {
      const gauge = yield* GaugeSource.makeGauge()
      const c = yield* serveGauge(gauge)
      yield* subscribe(c, GaugeSource.level)
      // Far more drops than the budget of 2 retries: each open delivered its first frame first.
      for (let drop = 1; drop <= 8; drop++) {
        assert.strictEqual(
          yield* GaugeSource.eventually(Ref.get(gauge.opens), (n) => n === drop),
          drop,
          `open #${drop}`
        )
        yield* Effect.sleep("20 millis")
        yield* gauge.drop
      }
      assert.strictEqual(yield* GaugeSource.eventually(Ref.get(gauge.opens), (n) => n === 9), 9)
      assert.deepStrictEqual(yield* c.session.subscriptions, [GaugeSource.level])
      // A re-open that finds the state as it was sends nothing; a change is still announced.
      assert.strictEqual(yield* Queue.size(c.updated), 0)
      yield* SubscriptionRef.set(gauge.level, 7)
      assert.strictEqual(yield* nextUpdate(c.updated, "a change after the drops"), GaugeSource.level)
    }))

  it.live("a subscription that gives up tells its host with a last update and the server's log with a warning", () =>
    Effect.gen(function*() {
      const logged: Array<string> = []
      yield* Effect.gen(function*() {
        const gauge = yield* GaugeSource.makeGauge()
        yield* Ref.set(gauge.down, true)
        const c = yield* serveGauge(gauge)
        yield* subscribe(c, GaugeSource.level)
        assert.strictEqual(yield* nextUpdate(c.updated, "the subscription gave up"), GaugeSource.level)
        assert.strictEqual(yield* Ref.get(gauge.opens), 3)
        assert.deepStrictEqual(yield* GaugeSource.eventually(c.session.subscriptions, (uris) => uris.length === 0), [])
      }).pipe(Effect.provide(capturing(logged)))
      assert.isTrue(
        logged.some((line) =>
          line.startsWith("Warn") && line.includes(GaugeSource.level) && line.includes("the gauge is down")
        ),
        logged.join("\n")
      )
    }))

  it.live("a subscription whose source completes ends with a last update", () =>
    Effect.gen(function*() {
      const gauge = yield* GaugeSource.makeGauge()
      const c = yield* serveGauge(gauge)
      yield* subscribe(c, GaugeSource.level)
      yield* gauge.end
      assert.strictEqual(yield* nextUpdate(c.updated, "the source completed"), GaugeSource.level)
      assert.deepStrictEqual(yield* GaugeSource.eventually(c.session.subscriptions, (uris) => uris.length === 0), [])
    }))

  it.live("a change made right after subscribe answers is announced: subscribe answers once the subscription is live", () =>
    Effect.gen(function*() {
      const gauge = yield* GaugeSource.makeGauge()
      const c = yield* serveGauge(gauge)
      for (let n = 1; n <= 5; n++) {
        yield* subscribe(c, GaugeSource.level)
        yield* SubscriptionRef.set(gauge.level, n)
        assert.strictEqual(yield* nextUpdate(c.updated, `change ${n}`), GaugeSource.level)
        yield* Effect.promise(() => c.client.unsubscribeResource({ uri: GaugeSource.level }))
        yield* Queue.clear(c.updated)
      }
    }))

  it.live("concurrent subscribes to one URI share one subscription instead of restarting each other", () =>
    Effect.gen(function*() {
      const gauge = yield* GaugeSource.makeGauge()
      const c = yield* serveGauge(gauge)
      yield* Effect.forEach([1, 2, 3, 4, 5, 6, 7, 8], () => subscribe(c, GaugeSource.level), {
        concurrency: "unbounded"
      })
      yield* Effect.sleep("50 millis")
      assert.strictEqual(yield* Ref.get(gauge.opens), 1)
      assert.strictEqual(yield* Ref.get(gauge.live), 1)
      assert.deepStrictEqual(yield* c.session.subscriptions, [GaugeSource.level])
    }))

  it.live("a read whose source never answers fails at the read deadline, naming the URI", () =>
    Effect.gen(function*() {
      const gauge = yield* GaugeSource.makeGauge()
      const c = yield* serveGauge(gauge, { readDeadline: "200 millis" })
      const failed = yield* Effect.flip(
        Effect.tryPromise(() => c.client.readResource({ uri: "surface://cells/stuck" }))
      ).pipe(
        Effect.timeoutOrElse({ duration: "5 seconds", orElse: () => Effect.die("the read was never answered") })
      )
      assert.include(String(failed.cause), "surface://cells/stuck")
      assert.include(String(failed.cause), "no answer within")
    }))
})

describe("a subscription across a roster move", () => {
  /** A sibling `s` whose client the host swaps (a reload) before it moves the roster. */
  const sibling = Effect.gen(function*() {
    const first = yield* GaugeSource.makeGauge(1)
    const current = yield* Ref.make(first)
    const dials = yield* Ref.make(0)
    const disposed = yield* Ref.make<ReadonlyArray<number>>([])
    const member: Bundle.Sibling = { surface: GaugeSource.Gauge, expose: { cells: { level: true } } }
    const face = yield* Face.make({
      surfaces: { s: member },
      client: Effect.gen(function*() {
        const dial = yield* Ref.updateAndGet(dials, (n) => n + 1)
        const gauge = yield* Ref.get(current)
        return { client: { clients: { s: gauge.client } }, dispose: Ref.update(disposed, (all) => [...all, dial]) }
      }),
      coalesce: "1 millis"
    })
    return { face, current, member, disposed, c: yield* connectTo(face) }
  })
  const uri = "surface://cells/s/level"

  it.live("a value that moved while the subscription re-opened is announced; one that did not, is not", () =>
    Effect.gen(function*() {
      const { c, current, face, member } = yield* sibling
      yield* subscribe(c, uri)
      // The sibling reloads with another value: 1 → 5, seen only by the re-opened subscription.
      yield* Ref.set(current, yield* GaugeSource.makeGauge(5))
      yield* face.reroster({ s: member })
      assert.strictEqual(yield* nextUpdate(c.updated, "the reloaded sibling's value"), uri)
      // Moved again, the value as it was: nothing to announce.
      yield* face.reroster({ s: member })
      yield* Effect.sleep("100 millis")
      assert.strictEqual(yield* Queue.size(c.updated), 0)
      yield* SubscriptionRef.set((yield* Ref.get(current)).level, 6)
      assert.strictEqual(yield* nextUpdate(c.updated, "a change after the moves"), uri)
    }))

  it.live("a roster move re-opens subscriptions on a fresh connection, and the old one is disposed", () =>
    Effect.gen(function*() {
      const { c, current, disposed, face, member } = yield* sibling
      yield* subscribe(c, uri)
      const gauge = yield* Ref.get(current)
      assert.strictEqual(yield* GaugeSource.eventually(Ref.get(gauge.live), (n) => n === 1), 1)
      yield* face.reroster({ s: member })
      assert.deepStrictEqual(yield* GaugeSource.eventually(Ref.get(disposed), (all) => all.length === 1), [1])
      assert.strictEqual(yield* GaugeSource.eventually(Ref.get(gauge.opens), (n) => n === 2), 2)
      assert.strictEqual(yield* Ref.get(gauge.live), 1)
    }))
})
