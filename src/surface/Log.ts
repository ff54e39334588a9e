/**
 * The append-only log that implements a stream member.
 *
 * A stream reader must get the backlog and then exactly what is appended after it — no entry twice,
 * none lost between "read the backlog" and "start listening". The log keeps its bounded backlog and a
 * running total in one `SubscriptionRef`: the first state a reader sees is its backlog, and each later
 * state carries exactly the entries added since the previous one (the difference of the totals).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"

interface State<A> {
  readonly entries: ReadonlyArray<A>
  /** How many entries were ever appended, including those trimmed from the backlog. */
  readonly total: number
}

/**
 * An append-only log read backlog first: what implements a `Surface.Stream` member (pass its
 * `frames`), as a `Store` implements a collection.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Log } from "effect-surface"
 * declare const log: Log.Log<string>
 * const program = Effect.andThen(log.append("a", "b"), log.backlog) // ["a", "b"], or its last `capacity`
 * ```
 *
 * @since 0.1.0
 */
export interface Log<A> {
  readonly append: (...entries: ReadonlyArray<A>) => Effect.Effect<void>
  /** The backlog as it stands. */
  readonly backlog: Effect.Effect<ReadonlyArray<A>>
  /** The backlog as the first frame, then each batch of appended entries as one frame. */
  readonly frames: Stream.Stream<ReadonlyArray<A>>
}

/**
 * Make a log keeping at most `capacity` entries of backlog (default 1,000). `capacity` must be a
 * whole number of at least 1: anything else (`0`, `2.5`, `NaN`, `Infinity`) is a programming error,
 * so the Effect dies with a `RangeError` rather than keep a bound other than the one asked for.
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { Log } from "effect-surface"
 *
 * const program = Effect.gen(function*() {
 *   const log = yield* Log.make<string>({ capacity: 100 })
 *   yield* log.append("booted")
 *   return yield* Stream.runHead(log.frames) // Some(["booted"])
 * })
 * ```
 *
 * @since 0.1.0
 */
export const make = <A>(options?: { readonly capacity?: number }): Effect.Effect<Log<A>> => {
  const capacity = options?.capacity ?? 1000
  if (!Number.isInteger(capacity) || capacity < 1) {
    return Effect.die(new RangeError(`Log.make: capacity must be a whole number of at least 1, got ${capacity}`))
  }
  return Effect.map(SubscriptionRef.make<State<A>>({ entries: [], total: 0 }), (ref): Log<A> => ({
    append: (...entries) =>
      entries.length === 0 ? Effect.void : SubscriptionRef.update(ref, (state) => {
        const all = [...state.entries, ...entries]
        return {
          entries: all.length > capacity ? all.slice(all.length - capacity) : all,
          total: state.total + entries.length
        }
      }),
    backlog: Effect.map(SubscriptionRef.get(ref), (state) => state.entries),
    frames: SubscriptionRef.changes(ref).pipe(
      Stream.mapAccum(
        (): number | undefined => undefined,
        (seen, state): readonly [number, ReadonlyArray<ReadonlyArray<A>>] => {
          if (seen === undefined) return [state.total, [state.entries]]
          const added = Math.min(state.total - seen, state.entries.length)
          return [state.total, added > 0 ? [state.entries.slice(state.entries.length - added)] : []]
        }
      )
    )
  }))
}
