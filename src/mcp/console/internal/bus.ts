/**
 * How the consoles of instances sharing one face in Redis see one another's calls and decide one
 * another's held calls.
 *
 * Behind a load balancer a call is held by whichever instance received it, but the operator has one
 * page open, on whichever instance it reached. So each console shares the moves that are about calls
 * (held, decided, the call rows, the clients seen) on one channel, and applies the others' to its own
 * state; a decision made on a page for a call held elsewhere travels on the same channel to the
 * instance holding it. Alone, the bus is the console's own state and nothing travels.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as Redis from "effect/persistence/Redis"
import * as RedisCall from "../../transport/redisCall.ts"
import type * as State from "./state.ts"

/** Where a console's moves about calls go, and how a decision reaches the instance holding the call. */
export interface Bus {
  readonly share: (move: State.Move) => Effect.Effect<void>
  readonly forward: (id: string, decision: "allow" | "deny", by: string) => Effect.Effect<void>
}

/** Where the instances meet in Redis. */
export interface Cluster {
  readonly redis: Redis.Redis["Service"]
  readonly prefix: string
  readonly timeout: Duration.Duration
}

/** One console alone: its moves are its own, and there is nowhere to forward a decision. */
export const alone = (state: State.State): Bus => ({ share: state.apply, forward: () => Effect.void })

// What travels: a move from an instance, or a decision for whichever instance holds the call.
const Message = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("move"), from: Schema.String, move: Schema.Unknown }),
  Schema.Struct({
    kind: Schema.Literal("decide"),
    id: Schema.String,
    decision: Schema.Literals(["allow", "deny"]),
    by: Schema.String
  })
])
const decode = Schema.decodeUnknownOption(Schema.fromJsonString(Message))

// The moves about calls are the ones shared; the roster and cells are each instance's own to read.
const sharedTags: ReadonlySet<unknown> = new Set(["held", "decided", "call", "client"])
const isShared = (move: unknown): move is State.Move =>
  typeof move === "object" && move !== null && sharedTags.has((move as { readonly _tag?: unknown })._tag)

/**
 * Join the instances' channel for the scope's life: later moves are shared, the others' applied
 * here, and a decision for a call held here answered through `decide`.
 */
export const join = (
  state: State.State,
  cluster: Cluster,
  instance: string,
  decide: (id: string, decision: "allow" | "deny", by: string) => Effect.Effect<boolean>
): Effect.Effect<Bus, never, Scope.Scope> =>
  Effect.gen(function*() {
    const channel = `${cluster.prefix}console`
    const publish = (message: typeof Message.Type) =>
      RedisCall.bounded(
        cluster.redis.send("PUBLISH", channel, JSON.stringify(message)),
        cluster.timeout,
        (reason) => reason
      ).pipe(Effect.catch((reason) => Effect.logWarning(`console: other instances not told: ${reason}`)))
    yield* RedisCall.subscribeText(cluster.redis, channel, (text) => {
      const message = decode(text)
      if (message._tag === "None") return Effect.void
      const received = message.value
      switch (received.kind) {
        case "move":
          return received.from === instance || !isShared(received.move)
            ? Effect.void
            : state.apply(received.move)
        case "decide":
          return Effect.asVoid(decide(received.id, received.decision, received.by))
      }
    })
    return {
      share: (move) => Effect.andThen(state.apply(move), publish({ kind: "move", from: instance, move })),
      forward: (id, decision, by) => publish({ kind: "decide", id, decision, by })
    }
  })
