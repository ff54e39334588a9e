/**
 * What a face's sessions hear unprompted, followed once for them all.
 *
 * A session must cost its host's notices, not fibers of its own: the face's list moves (roster, app
 * resources, prompts) are followed by one set of listeners per face and announced to every session
 * registered as leading, and a subscribed URI is followed by one watch however many sessions hold
 * it, each change fanned out to them. A send is fired, never awaited, and its failure ignored: a
 * slow or departed session holds no other back and cannot stop a follow.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Stream from "effect/Stream"
import type * as Scope from "effect/Scope"
import * as Roster from "../../core/Roster.ts"
import type * as AppResources from "./AppResources.ts"
import type * as Prompts from "./Prompts.ts"
import type * as RpcError from "./RpcError.ts"

/** A list a host re-reads when told it moved (`notifications/<list>/list_changed`). */
export type List = "tools" | "resources" | "prompts"

/**
 * One session as the broadcaster sees it. Each send is fire-and-forget and never throws; `dropped`
 * tells the session a URI's follow has ended (after its last `updated`), so it no longer holds it.
 */
export interface Member {
  readonly listChanged: (list: List) => void
  readonly updated: (uri: string) => void
  readonly dropped: (uri: string) => void
}

/** The broadcaster of one face. */
export interface Broadcaster {
  /** Announce the face's list moves to `member` from now on (joining twice is joining once). */
  readonly join: (member: Member) => Effect.Effect<void>
  readonly leave: (member: Member) => Effect.Effect<void>
  /**
   * Fan `uri`'s changes out to `member`, opening its follow if no session holds it yet; answers
   * what completes once the follow is live (or has ended before it could be).
   */
  readonly subscribe: (uri: string, member: Member) => Effect.Effect<Deferred.Deferred<void>>
  /** Stop fanning `uri` out to `member`; the last member's leaving ends the follow (awaited). */
  readonly unsubscribe: (uri: string, member: Member) => Effect.Effect<void>
  /** How many sessions are told of list moves now. */
  readonly listeners: Effect.Effect<number>
  /** How many URIs are followed now (one follow each, whatever the sessions holding it). */
  readonly followed: Effect.Effect<number>
  /** When `list` last moved (epoch milliseconds on the face's clock): when the face began, if never. */
  readonly movedAt: (list: List) => number
}

/** What the broadcaster follows: the face's lists and how it follows one URI. */
export interface Sources {
  readonly roster: Roster.Roster
  readonly apps: {
    readonly current: Effect.Effect<AppResources.Compiled>
    readonly changes: Stream.Stream<AppResources.Compiled>
  }
  readonly prompts: { readonly current: Effect.Effect<Prompts.Table>; readonly changes: Stream.Stream<Prompts.Table> }
  /** Follow `uri` (see `Face.watch`): `onChange` at each change and once at its end, `onOpen` once live. */
  readonly watch: (
    uri: string,
    onChange: Effect.Effect<void>,
    onOpen: Effect.Effect<void>
  ) => Effect.Effect<void, RpcError.Refusal>
}

// One followed URI. Touched synchronously only (by the follow's fiber and the sessions' requests,
// one at a time), so its fields are plain mutable ones.
interface Followed {
  readonly uri: string
  /** Each member, and how many notices had been fanned out when it joined. */
  readonly members: Map<Member, number>
  readonly live: Deferred.Deferred<void>
  notices: number
  fiber: Fiber.Fiber<void> | undefined
}

interface State {
  readonly sources: Sources
  readonly moved: Record<List, number>
  readonly now: () => number
  readonly members: Set<Member>
  readonly follows: Map<string, Followed>
  readonly run: (effect: Effect.Effect<void>) => Fiber.Fiber<void>
}

/**
 * The broadcaster of a face, in the face's scope: its list listeners start now, and every follow it
 * opens ends with the scope.
 */
export const make = (sources: Sources): Effect.Effect<Broadcaster, never, Scope.Scope> =>
  Effect.gen(function*() {
    // Follows run in the face's own context, not that of the request that opened one: a follow
    // outlives its first subscriber and must not carry that request's span or annotations.
    const run = yield* FiberSet.runtime(yield* FiberSet.make<void>())<never>()
    const clock = yield* Clock.Clock
    const now = () => clock.currentTimeMillisUnsafe()
    const began = now()
    const moved = { tools: began, resources: began, prompts: began }
    const state: State = { sources, moved, now, members: new Set(), follows: new Map(), run }
    yield* Effect.forkScoped(yield* announceMoves(state))
    return {
      join: (member) =>
        Effect.sync(() => {
          state.members.add(member)
        }),
      leave: (member) =>
        Effect.sync(() => {
          state.members.delete(member)
        }),
      subscribe: (uri, member) => Effect.sync(() => subscribe(state, uri, member)),
      unsubscribe: (uri, member) => Effect.suspend(() => unsubscribe(state, uri, member)),
      listeners: Effect.sync(() => state.members.size),
      followed: Effect.sync(() => state.follows.size),
      movedAt: (list) => state.moved[list]
    } satisfies Broadcaster
  })

const subscribe = (state: State, uri: string, member: Member): Deferred.Deferred<void> => {
  const standing = state.follows.get(uri)
  if (standing !== undefined) {
    if (!standing.members.has(member)) standing.members.set(member, standing.notices)
    return standing.live
  }
  const followed: Followed = {
    uri,
    members: new Map([[member, 0]]),
    live: Deferred.makeUnsafe(),
    notices: 0,
    fiber: undefined
  }
  state.follows.set(uri, followed)
  followed.fiber = state.run(follow(state, followed))
  return followed.live
}

const unsubscribe = (state: State, uri: string, member: Member): Effect.Effect<void> => {
  const followed = state.follows.get(uri)
  if (followed === undefined || !followed.members.delete(member) || followed.members.size > 0) return Effect.void
  state.follows.delete(uri)
  return followed.fiber === undefined ? Effect.void : Fiber.interrupt(followed.fiber)
}

// The watch announces each change (coalesced) and, when the URI can no longer be served, a last
// one; then every member forgets the URI. An interrupted follow (its last member left, or the face
// closed) tells no one.
const follow = (state: State, followed: Followed): Effect.Effect<void> => {
  const fanOut = Effect.sync(() => {
    followed.notices++
    for (const member of followed.members.keys()) member.updated(followed.uri)
  })
  return state.sources.watch(followed.uri, fanOut, Deferred.succeed(followed.live, undefined)).pipe(
    Effect.exit,
    Effect.andThen(Effect.sync(() => ended(state, followed))),
    Effect.ensuring(Deferred.succeed(followed.live, undefined))
  )
}

const ended = (state: State, followed: Followed) => {
  if (state.follows.get(followed.uri) === followed) state.follows.delete(followed.uri)
  for (const [member, seen] of followed.members) {
    // One that joined after the last notice has not yet heard that the URI is gone.
    if (seen === followed.notices) member.updated(followed.uri)
    member.dropped(followed.uri)
  }
  followed.members.clear()
}

// Each listener compares with the value current when it was made, not by dropping the first frame:
// a move that lands before the listener subscribes is then still announced. Each member is told in
// order (tools before resources), and a send never waits for another.
const announceMoves = (state: State): Effect.Effect<Effect.Effect<void>> =>
  Effect.gen(function*() {
    const { apps, prompts, roster } = state.sources
    const announce = (list: List) =>
      Effect.sync(() => {
        state.moved[list] = state.now()
        for (const member of state.members) member.listChanged(list)
      })
    const initial = yield* roster.current
    let previous = initial
    const initialApps = yield* apps.current
    const initialPrompts = yield* prompts.current
    const rosterMoves = roster.changes.pipe(
      Stream.filter((resolved) => resolved !== initial),
      Stream.runForEach((resolved) =>
        Effect.sync(() => {
          // A move of the root tools alone leaves every resource where it was.
          const resourcesMoved = !Roster.sameMembers(previous, resolved)
          previous = resolved
          state.moved.tools = state.now()
          if (resourcesMoved) state.moved.resources = state.moved.tools
          for (const member of state.members) {
            member.listChanged("tools")
            if (resourcesMoved) member.listChanged("resources")
          }
        })
      )
    )
    const appMoves = apps.changes.pipe(
      Stream.filter((compiled) => compiled !== initialApps),
      Stream.runForEach(() => announce("resources"))
    )
    const promptMoves = prompts.changes.pipe(
      Stream.filter((table) => table !== initialPrompts),
      Stream.runForEach(() => announce("prompts"))
    )
    return Effect.all([rosterMoves, appMoves, promptMoves], { concurrency: "unbounded", discard: true })
  })
