/**
 * What a session does for its host unprompted: it follows the URIs the host subscribed to (one
 * subscription per URI, live before `resources/subscribe` is answered) and announces the face's
 * roster moves. A session serving a host alone does both from its start; a session that is one of
 * several replicas of one host's session (Streamable HTTP across instances) does them only while it
 * leads, so the host hears each change once.
 *
 * @since 0.1.0
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { Deferred, Duration, Effect, FiberHandle, FiberMap, Ref, Semaphore, Stream } from "effect"
import type { Scope } from "effect"
import * as Roster from "../../core/Roster.ts"
import type * as Face from "../Face.ts"
import * as RpcError from "../RpcError.ts"

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

/** A follower for `server`, in the session's scope; `max` caps the URIs followed at once. */
export const make = (
  face: Face.Face,
  server: Server,
  max: number | undefined
): Effect.Effect<Follower, never, Scope.Scope> =>
  Effect.gen(function*() {
    const subscriptions = yield* FiberMap.make<string>()
    const announcing = yield* FiberHandle.make()
    const leading = yield* Ref.make(false)
    const open = yield* opener(face, server, subscriptions, max)
    return {
      follow: (uri) =>
        Effect.flatMap(open(uri), (opened) => Effect.asVoid(Effect.timeoutOption(Deferred.await(opened), openWait))),
      unfollow: (uri) => FiberMap.remove(subscriptions, uri),
      uris: Effect.sync(() => Array.from(subscriptions, ([uri]) => uri)),
      lead: (lead) =>
        Effect.flatMap(Ref.getAndSet(leading, lead), (was) =>
          was === lead
            ? Effect.void
            : lead
            // What is current is read now, so a move made just after this is announced.
            ? Effect.flatMap(
              announceMoves(face, server),
              (listen) => Effect.asVoid(FiberHandle.run(announcing, listen))
            )
            : Effect.andThen(FiberHandle.clear(announcing), FiberMap.clear(subscriptions)))
    } satisfies Follower
  })

// A URI's subscription and the moment it went live, taken under one lock: concurrent subscribes to
// a URI share one subscription instead of restarting each other, and a URI counts against the cap
// from the moment it takes the lock until it is unsubscribed or its subscription ends, so
// concurrent subscribes cannot pass the cap together.
const opener = (face: Face.Face, server: Server, subscriptions: FiberMap.FiberMap<string>, max: number | undefined) =>
  Effect.gen(function*() {
    const notifyUpdated = (uri: string) =>
      Effect.tryPromise(() => server.sendResourceUpdated({ uri })).pipe(Effect.ignore)
    const lock = yield* Semaphore.make(1)
    const opening = new Map<string, Deferred.Deferred<void>>()
    return (uri: string) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const standing = opening.get(uri)
        const held = yield* FiberMap.has(subscriptions, uri)
        if (standing !== undefined && held) return standing
        if (max !== undefined && !held && (yield* FiberMap.size(subscriptions)) >= max) return yield* tooMany(max)
        const opened = yield* Deferred.make<void>()
        opening.set(uri, opened)
        const settle = Effect.andThen(
          Deferred.succeed(opened, undefined),
          Effect.sync(() => {
            if (opening.get(uri) === opened) opening.delete(uri)
          })
        )
        // The face follows moves and drops itself, and ends the subscription (with a last
        // "updated") when the URI can no longer be served.
        yield* FiberMap.run(
          subscriptions,
          uri,
          face.watch(uri, notifyUpdated(uri), Deferred.succeed(opened, undefined)).pipe(
            Effect.ignore,
            Effect.ensuring(settle)
          ),
          { onlyIfMissing: true }
        )
        return opened
      }))
  })

// Each listener compares with the value current when it was made, not by dropping the first frame:
// a move that lands before the listener subscribes is then still announced.
const announceMoves = (face: Face.Face, server: Server): Effect.Effect<Effect.Effect<void>> =>
  Effect.gen(function*() {
    const announce = (send: () => Promise<void>) => Effect.tryPromise(send).pipe(Effect.ignore)
    const initial = yield* face.roster.current
    const previous = yield* Ref.make(initial)
    const initialApps = yield* face.appResources.current
    const initialPrompts = yield* face.prompts.current
    const roster = face.roster.changes.pipe(
      Stream.filter((resolved) => resolved !== initial),
      Stream.runForEach((resolved) =>
        Effect.gen(function*() {
          const before = yield* Ref.getAndSet(previous, resolved)
          yield* announce(() => server.sendToolListChanged())
          // A move of the root tools alone leaves every resource where it was.
          if (Roster.sameMembers(before, resolved)) return
          yield* announce(() => server.sendResourceListChanged())
        })
      )
    )
    const apps = face.appResources.changes.pipe(
      Stream.filter((compiled) => compiled !== initialApps),
      Stream.runForEach(() => announce(() => server.sendResourceListChanged()))
    )
    const prompts = face.prompts.changes.pipe(
      Stream.filter((table) => table !== initialPrompts),
      Stream.runForEach(() => announce(() => server.sendPromptListChanged()))
    )
    return Effect.all([roster, apps, prompts], { concurrency: "unbounded", discard: true })
  })
