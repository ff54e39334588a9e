/**
 * One Redis operation, bounded: its failure, or its silence past a timeout, as the caller's own
 * error. A client that queues commands while it reconnects (node-redis does) would otherwise hold
 * a request for as long as Redis is away; a server answers it with a sentence instead.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
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

/**
 * Hand each message published on `channel` to `onText`, in order, for the scope's life: subscribed
 * before this answers. Should the subscription fail for good, it is opened again each second until
 * it holds (messages published while it was down are lost, as while the client reconnects by itself).
 */
export const subscribeText = (
  redis: Redis.Redis["Service"],
  channel: string,
  onText: (text: string) => Effect.Effect<void>
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    const drain = (queue: Queue.Dequeue<Redis.RedisMessage, Redis.RedisError>) =>
      Effect.forever(Effect.flatMap(Queue.take(queue), (received) => onText(received.message))).pipe(
        Effect.catch((error) => Effect.logWarning(`MCP bus ${channel} lost: ${String(error.cause)}`))
      )
    const again = Effect.scoped(Effect.flatMap(redis.subscribe(channel), drain)).pipe(
      Effect.repeat(Schedule.spaced(Duration.seconds(1)))
    )
    const first = yield* redis.subscribe(channel)
    yield* drain(first).pipe(Effect.andThen(again), Effect.forkScoped)
  })
