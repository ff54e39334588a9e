/**
 * The live sessions of a Streamable HTTP face: one SDK transport and one protocol session each.
 *
 * Every MCP session gets its own `WebStandardStreamableHTTPServerTransport` and its own SDK
 * `Server` (`Session.connect`), created at `initialize` and never handed to another session — one
 * shared server or transport is the cross-client leak of CVE-2026-25536. Everything else (roster,
 * decoders, connection pool) is the shared face, so an idle session costs a transport, a server and
 * its GET stream. A session's life is a scope (`internal/sessionLives`), no fiber: closing it for
 * any reason — `DELETE`, idle expiry, eviction, the transport closing, the server
 * shutting down — closes the SDK server, ends its subscriptions and handlers, and forgets its
 * stored events. A new session past a bound takes the place of an idle one (`internal/sessionRoom`):
 * past its holder's quota, that holder's own least recently used; in a full table, the least
 * recently used of the holder with the most sessions. Only when none of those is idle is the new
 * one refused. With sessions
 * shared in Redis (`HttpRedis`) an entry is this instance's replica of a session that lives in
 * Redis: a request for one not served here restores it, and ending the entry ends only the replica
 * (a `DELETE` ends the session everywhere).
 * This module is the table and its idle sweep; how a session is opened, restored, admitted and
 * ended is `internal/sessionTable`.
 *
 * A session opened behind a resource server belongs to the caller whose token opened it (its
 * `Identity.holder`, never the token): the table answers a request for it only when it comes from
 * the same holder — with any token of theirs, so a refreshed token keeps the session — and to anyone
 * else as if it did not exist. A session opened without authorization has no holder, and is served
 * only to requests that have none either.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import type * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import type * as EventStore from "./EventStore.ts"
import type * as Face from "../face/Face.ts"
import type * as Shared from "./internal/replicas.ts"
import { type Config, type Entry, Unavailable } from "./internal/sessionEntry.ts"
import * as Lives from "./internal/sessionLives.ts"
import { lookup, open, retire, type Ending, type State } from "./internal/sessionTable.ts"

// A live session's entry and the table's bounds are declared, each with its example, below the
// table's machinery (`internal/sessionEntry.ts`).
export type { Config, Entry } from "./internal/sessionEntry.ts"

/**
 * No session could be opened: the table full of sessions in use, the caller's quota of them in use,
 * or the table closing. Declared with the entry it refuses (`internal/sessionEntry.ts`).
 *
 * @example
 * ```ts
 * import { McpHttpSessions } from "effect-surface/mcp"
 * const refused = new McpHttpSessions.Unavailable({ reason: "the server is shutting down" })
 * ```
 *
 * @since 0.1.0
 */
export { Unavailable }

/**
 * The session table.
 *
 * @example
 * ```ts
 * import { Effect, Option } from "effect"
 * import type { McpHttpSessions } from "effect-surface/mcp"
 *
 * declare const table: McpHttpSessions.Table
 * const endIfOpen = (id: string) =>
 *   Effect.flatMap(table.lookup(id, undefined), Option.match({ onNone: () => Effect.void, onSome: () => table.end(id) }))
 * ```
 *
 * @since 0.1.0
 */
export interface Table {
  /**
   * The session `id` names, when it belongs to `holder`; none once it has ended, and none (the same
   * answer) when it belongs to another. A session shared in Redis that has no replica here yet is
   * restored as one first, only for its holder (failing when Redis cannot say).
   */
  readonly lookup: (id: string, holder: string | undefined) => Effect.Effect<Option.Option<Entry>, Unavailable>
  /**
   * Open a session for `holder` whose transport awaits its `initialize`, counted as in use (`touch`
   * it with `-1` once that request's response has ended). Past a bound an idle session first makes
   * room: the holder's own past its quota, else the least recently used of the holder with the most.
   */
  readonly open: (holder: string | undefined) => Effect.Effect<Entry, Unavailable>
  /** End a session now and forget it; later requests naming it are unknown. */
  readonly end: (id: string) => Effect.Effect<void>
  /** The ids of the live sessions. */
  readonly ids: Effect.Effect<ReadonlyArray<string>>
  /**
   * Count a response as opened (`1`) or ended (`-1`) on `entry`, and mark the session seen now. The
   * caller pairs the two (from its own finalizer), so a request pays for no scope of its own here.
   */
  readonly touch: (entry: Entry, delta: 1 | -1) => Effect.Effect<void>
  /** End every session. */
  readonly endAll: Effect.Effect<void>
  /** Record a session its `initialize` just opened where the other instances find it (no-op unshared). */
  readonly share: (entry: Entry, initialize: unknown) => Effect.Effect<void, Unavailable>
  /** This instance's part in sessions shared in Redis, when they are. */
  readonly shared: Shared.Node | undefined
}

/**
 * Make a session table for a face in a scope; closing the scope ends every session.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { McpEventStore, McpHttpSessions } from "effect-surface/mcp"
 * import type { McpFace } from "effect-surface/mcp"
 *
 * const table = (face: McpFace.Face) =>
 *   McpHttpSessions.make(face, McpEventStore.makeMemory(), { idleTimeout: Duration.minutes(10), maxSessions: 1000, retryInterval: undefined })
 * ```
 *
 * @since 0.1.0
 */
export const make = (
  face: Face.Face,
  store: EventStore.EventStore["Service"],
  config: Config,
  share?: (hooks: Shared.Hooks) => Effect.Effect<Shared.Node, never, Scope.Scope>
): Effect.Effect<Table, never, Scope.Scope> =>
  Effect.gen(function*() {
    const lives = yield* Lives.make
    const context = yield* Effect.context<never>()
    const entries = yield* Ref.make<ReadonlyMap<string, Entry>>(new Map())
    const ending: Ending = { entries, lives, restoring: new Map(), cancelled: new Set() }
    const node = share === undefined ? undefined : yield* share({
      end: (id) => retire(ending, id),
      inUse: () =>
        [...Ref.getUnsafe(entries).values()].flatMap((entry) => Ref.getUnsafe(entry.open) > 0 ? [entry.id] : [])
    })
    const state: State = {
      face,
      store: node?.store ?? store,
      config,
      entries,
      lives,
      fork: Effect.runForkWith(context),
      run: runner(Effect.runForkWith(context), context),
      context,
      node,
      restoring: ending.restoring,
      cancelled: ending.cancelled
    }
    yield* Effect.forkScoped(sweep(state))
    return {
      lookup: lookup(state),
      open: open(state),
      end: (id) => retire(ending, id),
      ids: Effect.map(Ref.get(state.entries), (map) => [...map.keys()]),
      touch: node === undefined ? touch : (entry, delta) =>
        Effect.andThen(touch(entry, delta), Effect.sync(() => node.touch(entry.id))),
      endAll: lives.endAll,
      share: (entry, initialize) =>
        node === undefined ? Effect.void :
          node.register(entry.id, initialize, Ref.getUnsafe(entry.version) ?? "", face.logLevel, entry.holder).pipe(
            Effect.mapError((error) => new Unavailable({ reason: error.message }))
          ),
      shared: node
    } satisfies Table
  })

// What the transport's event store calls: an Effect answered within its first turn (the in-memory
// store always is) is handed back settled, without waiting on an observer.
const runner = (fork: State["fork"], context: Context.Context<never>) => <A>(effect: Effect.Effect<A>): Promise<A> => {
  const fiber = fork(effect)
  const exit = fiber.pollUnsafe()
  if (exit === undefined) return Effect.runPromiseWith(context)(Fiber.join(fiber))
  return Exit.isSuccess(exit) ? Promise.resolve(exit.value) : Promise.reject(Cause.squash(exit.cause))
}

const touch = (entry: Entry, delta: 1 | -1): Effect.Effect<void> =>
  Effect.clockWith((clock) =>
    Effect.andThen(Ref.update(entry.open, (n) => n + delta), Ref.set(entry.lastSeen, clock.currentTimeMillisUnsafe()))
  )

// How long until the session has been idle for the whole timeout; zero once it has. A session
// with an open response is looked at again a full timeout later.
const remaining = (entry: Entry, idleMillis: number, now: number, leads: (id: string) => boolean) =>
  Effect.gen(function*() {
    // A shared session's leader serves its host's subscriptions while the session lives anywhere.
    if ((yield* Ref.get(entry.open)) > 0 || leads(entry.id)) return idleMillis
    return Math.max(0, (yield* Ref.get(entry.lastSeen)) + idleMillis - now)
  })

// One sweep over the table for every session, not a timer per session: it ends each session idle
// for the whole timeout, then sleeps until the soonest of the rest could be. A session opened or
// seen later is due no sooner than that (now plus the whole timeout), so no wake is missed.
const sweep = (state: State): Effect.Effect<never> => {
  const idleMillis = Duration.toMillis(state.config.idleTimeout)
  const leads = (id: string) => state.node?.leads(id) === true
  const once = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    let soonest = idleMillis
    for (const entry of (yield* Ref.get(state.entries)).values()) {
      const left = yield* remaining(entry, idleMillis, now, leads)
      if (left > 0) soonest = Math.min(soonest, left)
      else {
        yield* Effect.logInfo("MCP session expired after being idle").pipe(Effect.annotateLogs("session", entry.id))
        yield* retire(state, entry.id)
      }
    }
    yield* Effect.sleep(Duration.millis(soonest))
  })
  return Effect.forever(once)
}
