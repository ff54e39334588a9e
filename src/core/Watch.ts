/**
 * Following something for one subscriber until it can no longer be followed, announcing each change
 * at most once per quiet window.
 *
 * A subscriber is owed a notice for every state it has not seen, but a busy source must not flood
 * it, and a follow that re-opens (a roster move, a dropped link) must neither lose a change nor
 * invent one. What is followed differs by face and by kind (a bundle member, a face's own resource);
 * the coalescing, the generations and how an end is told are the same, so they live here once.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Latch from "effect/Latch"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import { messageOf } from "./ToolFailure.ts"

/**
 * What one follow is handed: `pulse` when a change is owed, `opened` once it is live.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Watch } from "effect-surface"
 *
 * const follow = (signals: Watch.Signals) => Effect.andThen(signals.opened, signals.pulse)
 * ```
 *
 * @since 0.1.0
 */
export interface Signals {
  readonly pulse: Effect.Effect<void>
  readonly opened: Effect.Effect<void>
}

/**
 * Follow one generation of what serves something (a roster, a face's resource table) until
 * `follow` ends; a new generation interrupts it and follows again. Answers how the last one ended.
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { Watch } from "effect-surface"
 *
 * const last = Watch.acrossGenerations(Stream.make(1, 2), (generation) => generation === 2 ? Effect.void : Effect.never)
 * ```
 *
 * @since 0.1.0
 */
export const acrossGenerations = <G, E>(
  generations: Stream.Stream<G>,
  follow: (generation: G) => Effect.Effect<void, E>
): Effect.Effect<void, E> =>
  generations.pipe(
    Stream.switchMap((generation) => Stream.fromEffect(Effect.exit(follow(generation)))),
    Stream.runHead,
    // The generations never end, so the head is the first follow that ended.
    Effect.flatMap(Option.match({ onNone: () => Effect.never, onSome: (exit) => exit }))
  )

// An address no longer served is a roster's doing; anything else is a failure worth a warning.
const isRefusal = (error: unknown) =>
  Predicate.isTagged(error, "UnknownResource") || Predicate.isTagged(error, "Retired")

/**
 * How one subscription ended, told to the server's log (the subscriber is told by a last notice).
 *
 * @example
 * ```ts
 * import { Exit } from "effect"
 * import { Watch } from "effect-surface"
 *
 * Watch.logEnd("surface://cells/focus", Exit.void) // logs "subscription to surface://cells/focus ended: its source completed"
 * ```
 *
 * @since 0.1.0
 */
export const logEnd = (uri: string, exit: Exit.Exit<void, unknown>): Effect.Effect<void> => {
  if (Exit.isSuccess(exit)) return Effect.logInfo(`subscription to ${uri} ended: its source completed`)
  const failure = Cause.findErrorOption(exit.cause)
  if (Option.isNone(failure))
    return Effect.logError(`subscription to ${uri} ended: ${messageOf(exit.cause)}`, exit.cause)
  const error = failure.value
  return isRefusal(error)
    ? Effect.logInfo(`subscription to ${uri} ended: ${messageOf(error)}`)
    : Effect.logWarning(`subscription to ${uri} ended: ${messageOf(error)}`)
}

/**
 * Run `follow` for one subscriber: `onChange` runs (coalesced to one per `coalesce` window) for each
 * pulse, `onOpen` once when the follow is live or has ended before it could be, and a last
 * `onChange` when the follow ends, however it ends; the end is logged. `watchers` counts the
 * subscriptions being followed.
 *
 * @example
 * ```ts
 * import { Effect, Ref } from "effect"
 * import { Watch } from "effect-surface"
 *
 * const program = Effect.gen(function*() {
 *   const watchers = yield* Ref.make(0)
 *   yield* Watch.run({
 *     uri: "app://clock",
 *     follow: ({ opened, pulse }) => Effect.andThen(opened, pulse),
 *     onChange: Effect.log("changed"),
 *     onOpen: Effect.void,
 *     coalesce: "50 millis",
 *     watchers
 *   })
 * })
 * ```
 *
 * @since 0.1.0
 */
export const run = <E>(options: {
  readonly uri: string
  readonly follow: (signals: Signals) => Effect.Effect<void, E>
  readonly onChange: Effect.Effect<void>
  readonly onOpen: Effect.Effect<void>
  readonly coalesce: Duration.Input
  readonly watchers: Ref.Ref<number>
}): Effect.Effect<void> =>
  Effect.gen(function*() {
    const { onChange, uri, watchers } = options
    yield* Effect.acquireRelease(Ref.update(watchers, (n) => n + 1), () => Ref.update(watchers, (n) => n - 1))
    const once = yield* Deferred.make<void>()
    const opened = Effect.flatMap(Deferred.succeed(once, undefined), (first) => first ? options.onOpen : Effect.void)
    // One pending pulse at most: changes during the quiet window collapse into one trailing notice,
    // so no state goes unannounced and a busy source cannot flood the subscriber. A pulse opens the
    // latch in place, so a notifier waiting on it sends in the same turn as the change.
    const pending = yield* Latch.make(false)
    yield* pending.await.pipe(
      Effect.andThen(pending.close),
      Effect.andThen(onChange),
      Effect.andThen(Effect.sleep(options.coalesce)),
      Effect.forever,
      Effect.forkScoped
    )
    const pulse = Effect.sync(() => {
      Latch.openUnsafe(pending)
    })
    const ended = yield* Effect.exit(options.follow({ pulse, opened }))
    yield* opened
    yield* logEnd(uri, ended)
    yield* onChange
  }).pipe(Effect.scoped)

/**
 * The default quiet window between two notices for one subscription: 50 milliseconds.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { Watch } from "effect-surface"
 * Duration.toMillis(Watch.defaultCoalesce) // 50
 * ```
 *
 * @since 0.1.0
 */
export const defaultCoalesce: Duration.Duration = Duration.millis(50)
