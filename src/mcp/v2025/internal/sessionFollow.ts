/**
 * What a session does for its host unprompted: it follows the URIs the host subscribed to (live
 * before `resources/subscribe` is answered) and announces the face's roster moves. A session
 * serving a host alone does both from its start; a session that is one of several replicas of one
 * host's session (Streamable HTTP across instances) does them only while it leads, so the host
 * hears each change once. The following itself is the face's broadcaster's (`broadcast.ts`): the
 * session only registers with it, so it runs no fiber of its own for either. A follower is plain
 * state read by this module's functions, so an idle session holds no closures for what it may do.
 *
 * @since 0.1.0
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Face from "../../face/Face.ts"
import * as RpcError from "../../face/RpcError.ts"
import type * as Broadcast from "../../face/Broadcast.ts"

/** The longest a subscribe waits for its subscription to go live before answering anyway. */
export const openWait: Duration.Duration = Duration.seconds(1)

/** The refusal of a subscribe past the cap: JSON-RPC -32000, saying what to do. */
export const tooMany = (max: number): RpcError.ProtocolError =>
  new RpcError.ProtocolError({
    code: -32000,
    message: `Too many subscriptions: a session may hold at most ${max}; unsubscribe from one first`
  })

// Sent and forgotten: a host that is slow or gone must not hold the broadcaster up.
const ignore = () => {}
const fire = (sent: Promise<void>) => {
  sent.then(undefined, ignore)
}

/**
 * One session's subscriptions and announcements: touched synchronously only (by its requests and
 * the broadcaster, one at a time), so its fields are plain mutable ones.
 */
export interface Follower {
  readonly broadcaster: Broadcast.Broadcaster
  readonly member: Broadcast.Member
  readonly max: number | undefined
  /** The URIs held, each counted against the cap from its subscribe until its end; none until the first. */
  held: Set<string> | undefined
  leading: boolean
  closed: boolean
}

/** A follower for `server`, ended by its session (`end`); `max` caps the URIs followed at once. */
export const make = (face: Face.Face, server: Server, max: number | undefined): Follower => {
  const member: Broadcast.Member = {
    listChanged: (list) =>
      fire(
        list === "tools"
          ? server.sendToolListChanged()
          : list === "resources"
          ? server.sendResourceListChanged()
          : server.sendPromptListChanged()
      ),
    updated: (uri) => fire(server.sendResourceUpdated({ uri })),
    dropped: (uri) => {
      follower.held?.delete(uri)
    }
  }
  const follower: Follower = {
    broadcaster: face.broadcaster,
    member,
    max,
    held: undefined,
    leading: false,
    closed: false
  }
  return follower
}

/** Follow `uri` (a URI followed already is shared); completes once live, or after `openWait`. */
export const follow = (follower: Follower, uri: string): Effect.Effect<void, RpcError.ProtocolError> =>
  Effect.flatMap(
    admit(follower, uri),
    (live) => live === undefined ? Effect.void : Effect.asVoid(Effect.timeoutOption(Deferred.await(live), openWait))
  )

export const unfollow = (follower: Follower, uri: string): Effect.Effect<void> =>
  Effect.suspend(() => {
    follower.held?.delete(uri)
    return follower.broadcaster.unsubscribe(uri, follower.member)
  })

/** The URIs followed now. */
export const uris = (follower: Follower): Effect.Effect<ReadonlyArray<string>> =>
  Effect.sync(() => Array.from(follower.held ?? []))

/** Start (or stop: every subscription ends too) announcing the face's roster moves. */
export const lead = (follower: Follower, leading: boolean): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (leading === follower.leading) return Effect.void
    follower.leading = leading
    return leading
      ? follower.broadcaster.join(follower.member)
      : Effect.andThen(follower.broadcaster.leave(follower.member), release(follower))
  })

/** Stop for good, as the session ends: no more announcements, every subscription ended. */
export const end = (follower: Follower): Effect.Effect<void> =>
  Effect.suspend(() => {
    follower.closed = true
    return Effect.andThen(follower.broadcaster.leave(follower.member), release(follower))
  })

// A URI counts against the cap from its subscribe on, checked and taken in one step, so concurrent
// subscribes cannot pass the cap together; one held already is accepted again.
const admit = (
  follower: Follower,
  uri: string
): Effect.Effect<Deferred.Deferred<void> | undefined, RpcError.ProtocolError> =>
  Effect.suspend(() => {
    if (follower.closed) return Effect.succeed(undefined)
    const held = follower.held ??= new Set()
    const { max } = follower
    if (max !== undefined && !held.has(uri) && held.size >= max) return Effect.fail(tooMany(max))
    held.add(uri)
    return follower.broadcaster.subscribe(uri, follower.member)
  })

const release = (follower: Follower): Effect.Effect<void> =>
  Effect.suspend(() => {
    const held = Array.from(follower.held ?? [])
    follower.held?.clear()
    return Effect.forEach(held, (uri) => follower.broadcaster.unsubscribe(uri, follower.member), {
      concurrency: "unbounded",
      discard: true
    })
  })
