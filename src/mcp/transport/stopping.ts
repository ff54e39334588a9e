/**
 * What a server does when it is asked to stop while requests are still running: it says at once what
 * it waits for and for how long, lets them answer within that time, and stops at once on a second
 * Ctrl-C. A person who pressed Ctrl-C is never left before a silent terminal, and never made to wait
 * out a deadline they did not choose. (A request still running when the wait ends is answered that
 * the server stopped, by the session that ends it.)
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/** Completes on the next SIGINT this process receives (a second Ctrl-C: the first began the stop). */
export const nextInterrupt: Effect.Effect<void> = Effect.callback<void>((resume) => {
  const heard = () => resume(Effect.void)
  process.once("SIGINT", heard)
  return Effect.sync(() => {
    process.off("SIGINT", heard)
  })
})

/**
 * Wait for `settled` while `what` is running, at most `within`: said at once, and cut short by a second
 * Ctrl-C. Nothing is said when nothing is running (`running` false).
 */
export const waitFor = (options: {
  readonly running: boolean
  readonly what: string
  readonly within: Duration.Duration
  readonly settled: Effect.Effect<void>
}): Effect.Effect<void> =>
  options.running
    ? Effect.logWarning(
      `stopping: waiting up to ${Duration.format(options.within)} for ${options.what} to answer; Ctrl-C again stops now`
    ).pipe(
      Effect.andThen(
        Effect.raceFirst(
          Effect.timeoutOrElse(options.settled, {
            duration: options.within,
            orElse: () => Effect.logWarning(`stopping: ${options.what} did not answer in time; stopping now`)
          }),
          Effect.andThen(nextInterrupt, Effect.logWarning("stopping now, as asked"))
        )
      )
    )
    : Effect.void
