/**
 * What a session does for its host unprompted: it follows the URIs the host subscribed to (live
 * before `resources/subscribe` is answered) and announces the face's roster moves. A session
 * serving a host alone does both from its start; a session that is one of several replicas of one
 * host's session (Streamable HTTP across instances) does them only while it leads, so the host
 * hears each change once. The following itself is the face's broadcaster's (`broadcast.ts`): the
 * session only registers with it, so it runs no fiber of its own for either.
 *
 * @since 0.1.0
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as Face from "../../Face.ts"
import * as RpcError from "../../RpcError.ts"
import type * as Broadcast from "../../internal/broadcast.ts"

/** The longest a subscribe waits for its subscription to go live before answering anyway. */
export const openWait: Duration.Duration = Duration.seconds(1)

/** The refusal of a subscribe past the cap: JSON-RPC -32000, saying what to do. */
export const tooMany = (max: number): RpcError.ProtocolError =>
  new RpcError.ProtocolError({
    code: -32000,
    message: `Too many subscriptions: a session may hold at most ${max}; unsubscribe from one first`
  })

/** One session's subscriptions and announcements. */
export interface Follower {
  /** Follow `uri` (a URI followed already is shared); completes once live, or after `openWait`. */
  readonly follow: (uri: string) => Effect.Effect<void, RpcError.ProtocolError>
  readonly unfollow: (uri: string) => Effect.Effect<void>
  readonly uris: Effect.Effect<ReadonlyArray<string>>
  /** Start (or stop: every subscription ends too) announcing the face's roster moves. */
  readonly lead: (leading: boolean) => Effect.Effect<void>
}

// Sent and forgotten: a host that is slow or gone must not hold the broadcaster up.
const ignore = () => {}
const fire = (sent: Promise<void>) => {
  sent.then(undefined, ignore)
}

// The session's side, touched synchronously only (by its requests and the broadcaster, one at a
// time), so its fields are plain mutable ones.
interface State {
  readonly broadcaster: Broadcast.Broadcaster
  readonly member: Broadcast.Member
  readonly max: number | undefined
  /** The URIs held, each counted against the cap from its subscribe until its end. */
  readonly held: Set<string>
  leading: boolean
  closed: boolean
}

/** A follower for `server`, in the session's scope; `max` caps the URIs followed at once. */
export const make = (
  face: Face.Face,
  server: Server,
  max: number | undefined
): Effect.Effect<Follower, never, Scope.Scope> =>
  Effect.gen(function*() {
    const held = new Set<string>()
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
        held.delete(uri)
      }
    }
    const state: State = { broadcaster: face.broadcaster, member, max, held, leading: false, closed: false }
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        state.closed = true
        return Effect.andThen(state.broadcaster.leave(member), release(state))
      })
    )
    return {
      follow: (uri) =>
        Effect.flatMap(admit(state, uri), (live) =>
          live === undefined ? Effect.void : Effect.asVoid(Effect.timeoutOption(Deferred.await(live), openWait))),
      unfollow: (uri) =>
        Effect.suspend(() => {
          held.delete(uri)
          return state.broadcaster.unsubscribe(uri, member)
        }),
      uris: Effect.sync(() =>
        Array.from(held)
      ),
      lead: (lead) =>
        Effect.suspend(() => {
          if (lead === state.leading) return Effect.void
          state.leading = lead
          return lead ? state.broadcaster.join(member) : Effect.andThen(state.broadcaster.leave(member), release(state))
        })
    } satisfies Follower
  })

// A URI counts against the cap from its subscribe on, checked and taken in one step, so concurrent
// subscribes cannot pass the cap together; one held already is accepted again.
const admit = (
  state: State,
  uri: string
): Effect.Effect<Deferred.Deferred<void> | undefined, RpcError.ProtocolError> =>
  Effect.suspend(() => {
    if (state.closed) return Effect.succeed(undefined)
    const { held, max } = state
    if (max !== undefined && !held.has(uri) && held.size >= max) return Effect.fail(tooMany(max))
    held.add(uri)
    return state.broadcaster.subscribe(uri, state.member)
  })

const release = (state: State): Effect.Effect<void> =>
  Effect.suspend(() => {
    const uris = Array.from(state.held)
    state.held.clear()
    return Effect.forEach(uris, (uri) => state.broadcaster.unsubscribe(uri, state.member), {
      concurrency: "unbounded",
      discard: true
    })
  })
