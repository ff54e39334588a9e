/**
 * Progress a handler reports on the request it is serving.
 *
 * A host that wants progress puts a `progressToken` on its request; the server answers with
 * `notifications/progress` on that token until the result. A handler should not have to know
 * whether the host asked, nor carry the token about: it asks for `McpProgress` and reports, and the
 * session makes that a no-op when the request carried no token. The session, not the handler, also
 * keeps the protocol's rule that progress only ever increases, so a handler that reports out of
 * order cannot make a host's bar run backwards.
 *
 * @since 0.1.0
 */
import { Context, Effect, SynchronizedRef } from "effect"

/**
 * One progress report: how far along, out of `total` when known, and a line saying what is happening.
 *
 * @example
 * ```ts
 * import type { McpProgress } from "effect-surface/mcp"
 * const update: McpProgress.Update = { progress: 50, total: 100, message: "half way" }
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
 * What a host asked to be told progress on: the request's `progressToken`.
 *
 * @example
 * ```ts
 * import type { McpProgress } from "effect-surface/mcp"
 * const token: McpProgress.Token = "job-42"
 * ```
 *
 * @since 0.1.0
 */
export type Token = string | number

/**
 * Reporting progress on the current request. `token` is the host's token, `undefined` when it asked
 * for none (then `report` does nothing). A report whose progress does not exceed the last one sent
 * is dropped, as is one that is not a finite number.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpProgress } from "effect-surface/mcp"
 *
 * const handler = () => Effect.gen(function*() {
 *   const progress = yield* McpProgress.McpProgress
 *   for (const step of [0, 50, 100]) yield* progress.report({ progress: step, total: 100 })
 * })
 * ```
 *
 * @since 0.1.0
 */
export class McpProgress extends Context.Service<McpProgress, {
  readonly token: Token | undefined
  readonly report: (update: Update) => Effect.Effect<void>
}>()("effect-surface/McpProgress") {}

/**
 * Report progress on the current request: `McpProgress`'s `report`, read from the context.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpProgress } from "effect-surface/mcp"
 *
 * const step = McpProgress.report({ progress: 1, total: 3, message: "fetched" })
 * ```
 *
 * @since 0.1.0
 */
export const report = (update: Update): Effect.Effect<void, never, McpProgress> =>
  McpProgress.use((progress) => progress.report(update))

/**
 * Progress that goes nowhere: what a request without a token gets, and what a face with no way to
 * report progress (a command line, a test) provides.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpProgress } from "effect-surface/mcp"
 *
 * declare const handler: Effect.Effect<string, never, McpProgress.McpProgress>
 * handler.pipe(Effect.provideService(McpProgress.McpProgress, McpProgress.none))
 * ```
 *
 * @since 0.1.0
 */
export const none: McpProgress["Service"] = { token: undefined, report: () => Effect.void }

/**
 * The params of one `notifications/progress`, as `make` hands them to its sender.
 *
 * @example
 * ```ts
 * import type { McpProgress } from "effect-surface/mcp"
 * const params: McpProgress.Notification = { progressToken: "job-42", progress: 50, total: 100 }
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
 * import { McpProgress } from "effect-surface/mcp"
 *
 * const progress = McpProgress.make("job-42", (params) => Effect.log(params)) // Effect of the service
 * ```
 *
 * @since 0.1.0
 */
export const make = (
  token: Token | undefined,
  send: (notification: Notification) => Effect.Effect<void>
): Effect.Effect<McpProgress["Service"]> =>
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
