// A hand-built source for subscription tests: one live cell whose subscriptions are counted while
// open, and which a test can cut (a dropped link), end (the source completes) or take down.
import { Effect, Option, Queue, Ref, Schedule, Schema, Stream, SubscriptionRef } from "effect"
import type { Client } from "effect-surface"
import { LinkError, Surface } from "effect-surface"

export const Gauge = Surface.make({
  cells: { level: Surface.cell(Schema.Int, 0), stuck: Surface.cell(Schema.Int, 0) },
  collections: { slow: Surface.collection(Schema.String, Schema.Int) }
})

export const level = "surface://cells/level"

export interface Gauge {
  readonly client: Client.AnyClient
  readonly level: SubscriptionRef.SubscriptionRef<number>
  /** Subscriptions of `level` open now. */
  readonly live: Ref.Ref<number>
  /** Subscriptions of `level` ever opened. */
  readonly opens: Ref.Ref<number>
  /** Cut the open subscription as a dropped link would. */
  readonly drop: Effect.Effect<void>
  /** End the open subscription as a source that completes. */
  readonly end: Effect.Effect<void>
  /** While down, every new subscription fails at once as a link that cannot be opened. */
  readonly down: Ref.Ref<boolean>
}

export const makeGauge = (initial = 0): Effect.Effect<Gauge> =>
  Effect.gen(function*() {
    const value = yield* SubscriptionRef.make(initial)
    const live = yield* Ref.make(0)
    const opens = yield* Ref.make(0)
    const down = yield* Ref.make(false)
    const control = yield* Queue.unbounded<"drop" | "end">()
    const subscribe: Stream.Stream<number, LinkError> = Stream.unwrap(Effect.gen(function*() {
      yield* Ref.update(opens, (n) => n + 1)
      if (yield* Ref.get(down)) return Stream.fail(new LinkError({ phase: "dial", reason: "the gauge is down" }))
      yield* Ref.update(live, (n) => n + 1)
      const commands = Stream.fromQueue(control).pipe(
        Stream.takeWhile((command) => command !== "end"),
        Stream.mapEffect(() => Effect.fail(new LinkError({ phase: "call", reason: "the gauge dropped the link" })))
      )
      return SubscriptionRef.changes(value).pipe(
        Stream.merge(commands, { haltStrategy: "right" }),
        Stream.ensuring(Ref.update(live, (n) => n - 1))
      )
    }))
    const client: Client.AnyClient = {
      spec: Gauge,
      cells: {
        level: { read: SubscriptionRef.get(value), subscribe },
        stuck: { read: Effect.never, subscribe: Stream.never }
      },
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
    return {
      client,
      level: value,
      live,
      opens,
      drop: Queue.offer(control, "drop"),
      end: Queue.offer(control, "end"),
      down
    }
  })

/** Wait (bounded, on the real clock) until `read` satisfies `done`; answer its last value either way. */
export const eventually = <A>(read: Effect.Effect<A>, done: (a: A) => boolean, times = 300): Effect.Effect<A> =>
  Effect.repeat(read, { until: done, schedule: Schedule.spaced("10 millis"), times })
