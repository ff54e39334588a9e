/**
 * Reading and following `surface://` URIs through the engine: what a URI addresses now, its
 * snapshot, a subscription re-opened across roster moves and dropped links, and the ids a collection
 * template holds. Apart from `Engine.ts` so the service reads as what it offers.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Pull from "effect/Pull"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import type * as Bundle from "../Bundle.ts"
import type * as ConnectionPool from "../ConnectionPool.ts"
import { Retired, UnknownResource, Unreadable } from "../EngineError.ts"
import * as Reads from "../Reads.ts"
import * as Roster from "../Roster.ts"
import * as Watch from "../Watch.ts"

/** What a read or a follow needs of the engine it runs in. */
export interface ReadEnv {
  readonly roster: Roster.Roster
  readonly pool: ConnectionPool.Pool<Bundle.Clients>
  readonly itemDeadline: Duration.Input
  readonly coalesce: Duration.Input
  readonly resubscribe: Schedule.Schedule<unknown, unknown>
  readonly watchers: Ref.Ref<number>
}

/** What a `surface://` URI addresses now. */
export const resolve = (env: ReadEnv) => (uri: string): Effect.Effect<Reads.Target, UnknownResource | Retired> =>
  Effect.flatMap(env.roster.lookupUri(uri), (found): Effect.Effect<Reads.Target, UnknownResource | Retired> => {
    switch (found._tag) {
      case "Resource":
        return Effect.succeed({ _tag: "Member", resource: found.resource })
      case "Item":
        return Effect.succeed({ _tag: "Item", template: found.template, id: found.id })
      case "Retired":
        return Effect.fail(new Retired({ tombstone: found.tombstone }))
      case "Unknown":
        return Effect.fail(new UnknownResource({ uri }))
    }
  })

const unreadable = (uri: string) => (error: { readonly message: string }) =>
  new Unreadable({ uri, reason: error.message })

/** Read a `surface://` URI, snapshot first, in its wire form. */
export const read = (env: ReadEnv) =>
  Effect.fn("Engine.read")(function*(uri: string) {
    const target = yield* resolve(env)(uri)
    return yield* env.pool.use((clients) => Reads.read(uri, target, clients, env.itemDeadline)).pipe(
      Effect.catchTags({ ConnectionLost: unreadable(uri), DialFailed: unreadable(uri), PoolClosed: unreadable(uri) })
    )
  })

// One open of a target, re-opened over the pool while the subscriber waits: each open that
// delivers its first frame starts the retry budget again; a refusal, a completed source or a spent
// budget ends the follow.
const followTarget = (env: ReadEnv, uri: string, seen: Reads.Seen, { opened, pulse }: Watch.Signals) =>
  Effect.gen(function*() {
    const target = yield* resolve(env)(uri)
    // A member with no snapshot is live as soon as its source is subscribed.
    const live = target._tag === "Member" && target.resource.kind === "event" ? opened : Effect.void
    let step = yield* Schedule.toStepWithSleep(env.resubscribe)
    while (true) {
      const delivered = yield* Ref.make(false)
      const exit = yield* Effect.exit(env.pool.use((clients) =>
        Effect.andThen(
          live,
          Stream.runForEach(Reads.changes(target, clients, seen), (frame) =>
            frame.first
              ? Effect.andThen(Ref.set(delivered, true), frame.changed ? Effect.andThen(opened, pulse) : opened)
              : frame.changed ? pulse : Effect.void)
        )
      ))
      if (Exit.isSuccess(exit)) return
      const failure = Cause.findErrorOption(exit.cause)
      if (Option.isNone(failure)) return yield* Effect.failCause(exit.cause)
      const error = failure.value
      // A source that cannot serve this member is a refusal; only a link failure is worth a re-open.
      if (error._tag === "Unreadable") return yield* Effect.fail(error)
      if (yield* Ref.get(delivered)) step = yield* Schedule.toStepWithSleep(env.resubscribe)
      const again = yield* step(error).pipe(Effect.as(true), Pull.catchDone(() => Effect.succeed(false)))
      if (!again) return yield* Effect.fail(error)
    }
  })

/** Follow a `surface://` URI for one subscriber, across roster moves and dropped links. */
export const watch = (env: ReadEnv) =>
  Effect.fn("Engine.watch")(
    function*(uri: string, onChange: Effect.Effect<void>, onOpen: Effect.Effect<void> = Effect.void) {
      yield* resolve(env)(uri)
      const seen: Reads.Seen = yield* Ref.make<Option.Option<Effect.Effect<string>>>(Option.none())
      // A move that leaves the members as they were (the root tools moved) leaves every resource where
      // it was; any other re-opens, on the connection the move re-dialled.
      const generations = Stream.changesWith(env.roster.changes, Roster.sameMembers)
      yield* Watch.run({
        uri,
        follow: (signals) => Watch.acrossGenerations(generations, () => followTarget(env, uri, seen, signals)),
        onChange,
        onOpen,
        coalesce: env.coalesce,
        watchers: env.watchers
      })
    }
  )

/** The item ids a collection template holds now, in their URI form. */
export const collectionKeys =
  (env: ReadEnv) => (uriTemplate: string): Effect.Effect<ReadonlyArray<string> | undefined, Unreadable> =>
    Effect.flatMap(env.roster.current, (resolved): Effect.Effect<ReadonlyArray<string> | undefined, Unreadable> => {
      const template = resolved.templates.find((t) => t.uriTemplate === uriTemplate)
      if (template === undefined) return Effect.succeed(undefined)
      return env.pool.use((clients) => Reads.keys(template, clients, env.itemDeadline)).pipe(
        Effect.catchTags({
          ConnectionLost: unreadable(uriTemplate),
          DialFailed: unreadable(uriTemplate),
          PoolClosed: unreadable(uriTemplate)
        })
      )
    })
