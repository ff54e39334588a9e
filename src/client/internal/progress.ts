/**
 * A remote tool's progress, handed on to whoever called the toolset.
 *
 * A server sends progress only on a request that carries a `progressToken`, and a caller that wants
 * it says so the way the core says it everywhere: a `Progress` with a token in its context (a
 * handler served by this library has one when its own caller asked; a Promise caller's `onProgress`
 * is made one). So a call asks for progress exactly when its caller has somewhere to put it, and
 * each notice the server sends is reported there in the order it came — the relay runs on its own
 * fiber, since the notices arrive in the SDK's callbacks, and the call returns only once every
 * report received before its answer was handed on.
 */
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import * as Progress from "../../core/Progress.ts"

/** Where a request's progress notices go; called from an SDK or channel callback, it only enqueues. */
export type OnProgress = (params: { readonly [key: string]: unknown }) => void

const updateOf = (params: { readonly [key: string]: unknown }): Progress.Update | undefined => {
  const { message, progress, total } = params
  if (typeof progress !== "number") return undefined
  return {
    progress,
    ...(typeof total === "number" ? { total } : {}),
    ...(typeof message === "string" ? { message } : {})
  }
}

/**
 * `run` given where to put progress when the caller's context holds a `Progress` with a token
 * (`undefined` otherwise, so the request asks for none), each notice reported there in order.
 *
 * @example
 * ```ts
 * const call = follow((onProgress) => send("tools/call", params, onProgress))
 * ```
 */
export const follow = <A, E, R>(
  run: (onProgress: OnProgress | undefined) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.serviceOption(Progress.Progress), (found) => {
    if (Option.isNone(found) || found.value.token === undefined) return run(undefined)
    const progress = found.value
    return Effect.gen(function*() {
      const queue = yield* Queue.unbounded<Progress.Update, Cause.Done>()
      const relay = yield* Effect.forkChild(Stream.runForEach(Stream.fromQueue(queue), progress.report))
      const onProgress: OnProgress = (params) => {
        const update = updateOf(params)
        if (update !== undefined) Queue.offerUnsafe(queue, update)
      }
      return yield* run(onProgress).pipe(Effect.ensuring(Effect.andThen(Queue.end(queue), Fiber.join(relay))))
    })
  })

/**
 * `call` run with a `Progress` that hands each report to `onProgress` (a Promise caller's callback;
 * one that throws is ignored), so the toolset asks the server for progress as it does for an Effect
 * caller with one in context; `call` unchanged when there is no callback.
 *
 * @example
 * ```ts
 * const heard = reportingTo((update) => console.log(update.progress))(toolset.call("docs__index", {}))
 * ```
 */
export const reportingTo =
  (onProgress: ((update: Progress.Update) => void) | undefined) =>
  <A, E>(call: Effect.Effect<A, E>): Effect.Effect<A, E> =>
    onProgress === undefined ? call : Effect.flatMap(
      Progress.make("promise", ({ progressToken: _token, ...update }) =>
        Effect.ignore(Effect.try(() => onProgress(update)))),
      (progress) =>
        Effect.provideService(call, Progress.Progress, progress)
    )
