/**
 * One Redis operation, bounded: its failure, or its silence past a timeout, as the caller's own
 * error. A client that queues commands while it reconnects (node-redis does) would otherwise hold
 * a request for as long as Redis is away; a server answers it with a sentence instead.
 *
 * @since 0.1.0
 */
import { Duration, Effect } from "effect"
import type * as Redis from "effect/persistence/Redis"
import { messageOf } from "../../core/ToolFailure.ts"

/** `effect`, failing with `fail(reason)` when Redis fails or gives no answer within `timeout`. */
export const bounded = <A, E>(
  effect: Effect.Effect<A, Redis.RedisError>,
  timeout: Duration.Duration,
  fail: (reason: string) => E
): Effect.Effect<A, E> =>
  effect.pipe(
    Effect.mapError((error) => fail(`Redis failed: ${messageOf(error.cause)}`)),
    Effect.timeoutOrElse({
      duration: timeout,
      orElse: () => Effect.fail(fail(`Redis gave no answer within ${Duration.format(timeout)}`))
    })
  )
