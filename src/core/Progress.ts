/**
 * Progress a handler reports to whoever called it.
 *
 * A caller that wants progress says so on its request (MCP's `progressToken`); the face answers with
 * a progress notice on that token until the result. A handler should not have to know whether its
 * caller asked, nor carry the token about: it asks for `Progress` and reports, and the face makes
 * that a no-op when nobody asked. The service, not the handler, keeps the rule that progress only
 * ever increases, so a handler that reports out of order cannot make a caller's bar run backwards.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as SynchronizedRef from "effect/SynchronizedRef"

/**
 * One progress report: how far along, out of `total` when known, and a line saying what is happening.
 *
 * @example
 * ```ts
 * import type { Progress } from "effect-surface"
 * const update: Progress.Update = { progress: 50, total: 100, message: "half way" }
 * ```
 *
 * @since 0.1.0
 */
export interface Update {
  readonly progress: number
  readonly total?: number
  readonly message?: string
}

/**
 * What a caller asked to be told progress on: its request's token.
 *
 * @example
 * ```ts
 * import type { Progress } from "effect-surface"
 * const token: Progress.Token = "job-42"
 * ```
 *
 * @since 0.1.0
 */
export type Token = string | number

/**
 * Reporting progress on the current request. `token` is the caller's token, `undefined` when it asked
 * for none (then `report` does nothing). A report whose progress does not exceed the last one sent
 * is dropped, as is one that is not a finite number.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Progress } from "effect-surface"
 *
 * const handler = () => Effect.gen(function*() {
 *   const progress = yield* Progress.Progress
 *   for (const step of [0, 50, 100]) yield* progress.report({ progress: step, total: 100 })
 * })
 * ```
 *
 * @since 0.1.0
 */
export class Progress extends Context.Service<Progress, {
  readonly token: Token | undefined
  readonly report: (update: Update) => Effect.Effect<void>
}>()("effect-surface/Progress") {}

/**
 * Report progress on the current request: `Progress`'s `report`, read from the context.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Progress } from "effect-surface"
 *
 * const step = Progress.report({ progress: 1, total: 3, message: "fetched" })
 * ```
 *
 * @since 0.1.0
 */
export const report = (update: Update): Effect.Effect<void, never, Progress> =>
  Progress.use((progress) => progress.report(update))

/**
 * Progress that goes nowhere: what a request without a token gets, and what a face with no way to
 * report progress (a command line, a test) provides.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Progress } from "effect-surface"
 *
 * declare const handler: Effect.Effect<string, never, Progress.Progress>
 * handler.pipe(Effect.provideService(Progress.Progress, Progress.none))
 * ```
 *
 * @since 0.1.0
 */
export const none: Progress["Service"] = { token: undefined, report: () => Effect.void }

/**
 * One accepted report on a token, as `make` hands it to its face's sender.
 *
 * @example
 * ```ts
 * import type { Progress } from "effect-surface"
 * const params: Progress.Notification = { progressToken: "job-42", progress: 50, total: 100 }
 * ```
 *
 * @since 0.1.0
 */
export interface Notification {
  readonly progressToken: Token
  readonly progress: number
  readonly total?: number
  readonly message?: string
}

/**
 * Progress on `token`, each accepted report handed to `send`; `none` when there is no token.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Progress } from "effect-surface"
 *
 * const progress = Progress.make("job-42", (params) => Effect.log(params)) // Effect of the service
 * ```
 *
 * @since 0.1.0
 */
export const make = (
  token: Token | undefined,
  send: (notification: Notification) => Effect.Effect<void>
): Effect.Effect<Progress["Service"]> =>
  token === undefined ? Effect.succeed(none) : Effect.map(SynchronizedRef.make(Number.NEGATIVE_INFINITY), (last) => ({
    token,
    report: (update: Update) =>
      // Checked and sent under the ref's lock, so reports racing from two fibers still leave in
      // increasing order.
      SynchronizedRef.modifyEffect(last, (before) =>
        Number.isFinite(update.progress) && update.progress > before
          ? Effect.as(
            send({
              progressToken: token,
              progress: update.progress,
              ...(update.total === undefined ? {} : { total: update.total }),
              ...(update.message === undefined ? {} : { message: update.message })
            }),
            [undefined, update.progress] as const
          )
          : Effect.succeed([undefined, before] as const))
  }))
