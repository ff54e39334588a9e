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
 *
 * A session opened behind a resource server belongs to the caller whose token opened it (its
 * `Identity.holder`, never the token): the table answers a request for it only when it comes from
 * the same holder — with any token of theirs, so a refreshed token keeps the session — and to anyone
 * else as if it did not exist. A session opened without authorization has no holder, and is served
 * only to requests that have none either.
 *
 * @since 0.1.0
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import * as EventStore from "./EventStore.ts"
import type * as Face from "../face/Face.ts"
import * as HttpDirect from "./internal/httpDirect.ts"
import type * as Shared from "./internal/replicas.ts"
import type * as Registry from "./internal/redisSessions.ts"
import * as Lives from "./internal/sessionLives.ts"
import * as Room from "./internal/sessionRoom.ts"
import * as Session from "./Session.ts"

/**
 * A live session: its id, its transport, and what says whether it is idle.
 *
 * @example
 * ```ts
 * import { Effect, Ref } from "effect"
 * import type { McpHttpSessions } from "effect-surface/mcp"
 *
 * declare const entry: McpHttpSessions.Entry
 * const inUse = Effect.map(Ref.get(entry.open), (open) => open > 0)
 * ```
 *
 * @since 0.1.0
 */
export interface Entry {
  readonly id: string
  readonly transport: WebStandardStreamableHTTPServerTransport
  /**
   * What the session's SDK server is connected to: the transport with a direct road for plain calls
   * (`internal/httpDirect`), whose answers are stored nowhere, in Redis neither when the session is
   * shared there.
   */
  readonly direct: HttpDirect.Direct
  /** Responses begun and not yet finished, GET streams included: a session with one is in use. */
  readonly open: Ref.Ref<number>
  /** When a response last began or ended (clock millis). */
  readonly lastSeen: Ref.Ref<number>
  /** The protocol version the session's `initialize` asked for, once it has. */
  readonly version: Ref.Ref<string | undefined>
  /** Who the session belongs to (`Identity.holder` of the caller that opened it); none when unauthenticated. */
  readonly holder: string | undefined
  /**
   * Done once the session is ending here (its transport closed, or the table ending it): a request
   * that reaches it then is answered as one naming an unknown session.
   */
  readonly ended: Deferred.Deferred<void>
}

/**
 * No session could be opened: the table is at `maxSessions` with every session in use, the caller
 * holds `maxSessionsPerHolder` sessions each in use, or the table is closing.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { McpHttpSessions } from "effect-surface/mcp"
 *
 * const opened = (table: McpHttpSessions.Table) =>
 *   table.open(undefined).pipe(Effect.catchTag("Unavailable", (refused) => Effect.logWarning(refused.reason)))
 * ```
 *
 * @since 0.1.0
 */
export class Unavailable extends Data.TaggedError("Unavailable")<{ readonly reason: string }> {}

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
 * How the table bounds its sessions.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import type { McpHttpSessions } from "effect-surface/mcp"
 *
 * const config: McpHttpSessions.Config = { idleTimeout: Duration.minutes(10), maxSessions: 1000, retryInterval: undefined }
 * ```
 *
 * @since 0.1.0
 */
export interface Config {
  /** A session with no open response for this long ends. */
  readonly idleTimeout: Duration.Duration
  readonly maxSessions: number
  /**
   * The most sessions one holder (a caller behind a resource server) may keep; one more takes the
   * place of its own least recently used idle session. Sessions opened without authorization have
   * no holder and no quota. Default: no quota.
   */
  readonly maxSessionsPerHolder?: number
  /** The SSE `retry` hint (milliseconds) written with each priming event. */
  readonly retryInterval: number | undefined
  /** The most URIs one session may be subscribed to at once. Default: no cap. */
  readonly maxSubscriptions?: number
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

// What the table's operations share.
interface State {
  readonly face: Face.Face
  readonly store: EventStore.EventStore["Service"]
  readonly config: Config
  readonly entries: Ref.Ref<ReadonlyMap<string, Entry>>
  /** One scope per session, its life. */
  readonly lives: Lives.Lives
  readonly fork: <A, E>(effect: Effect.Effect<A, E>) => Fiber.Fiber<A, E>
  /** What every session's event store runs its Effects with (one for the table). */
  readonly run: <A>(effect: Effect.Effect<A>) => Promise<A>
  readonly context: Context.Context<never>
  readonly node: Shared.Node | undefined
  /** Sessions being restored here (by session and holder), so concurrent requests for one restore it once. */
  readonly restoring: Map<string, Deferred.Deferred<Option.Option<Entry>, Unavailable>>
  /** Sessions ended while being restored here: the restore is dropped, not served. */
  readonly cancelled: Set<string>
}

// What ending a session touches.
type Ending = Pick<State, "entries" | "lives" | "restoring" | "cancelled">

// End a session here: gone from the table in the same step, so no request finds it while its life
// winds down (nor restores it from a registry read just before), then its life ended.
const retire = (state: Ending, id: string): Effect.Effect<void> =>
  Effect.suspend(() => {
    const entry = Ref.getUnsafe(state.entries).get(id)
    if (entry !== undefined) Deferred.doneUnsafe(entry.ended, Effect.void)
    for (const key of state.restoring.keys()) if (key.startsWith(`${id}\n`)) state.cancelled.add(id)
    return Effect.andThen(forget(state, entry), state.lives.end(id))
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

const newEntry = (state: State, id: string, open: number, version: string | undefined, holder: string | undefined) =>
  Effect.gen(function*() {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      // SSE, not JSON: logging and progress travel on the request's own response stream.
      enableJsonResponse: false,
      eventStore: EventStore.forSession(state.store, id, state.run),
      ...(state.config.retryInterval === undefined ? {} : { retryInterval: state.config.retryInterval })
    })
    const direct = HttpDirect.make(transport)
    // Chained, not replaced, by the SDK server when it connects.
    direct.onerror = (error) => {
      state.fork(Effect.logDebug(`MCP transport: ${error.message}`).pipe(Effect.annotateLogs("session", id)))
    }
    // Done the moment the transport closes (its `onclose` is set when the session's life begins).
    const ended = Deferred.makeUnsafe<void>()
    return {
      id,
      transport,
      direct,
      open: yield* Ref.make(open),
      lastSeen: yield* Ref.make(yield* Clock.currentTimeMillis),
      version: yield* Ref.make(version),
      holder,
      ended
    } satisfies Entry
  })

// Only this entry: a newer one of the same session (restored while this one wound down) stays.
const forget = (state: Pick<State, "entries">, entry: Entry | undefined) =>
  Ref.update(state.entries, (map) => {
    if (entry === undefined || map.get(entry.id) !== entry) return map
    const next = new Map(map)
    next.delete(entry.id)
    return next
  })

// A session's life ends, whatever ends it, with its entry going, and unless the session is shared
// (and lives on elsewhere) its stored events too.
const lifeEnded = (state: State, entry: Entry) =>
  Effect.all([
    Deferred.done(entry.ended, Exit.void),
    forget(state, entry),
    state.node === undefined ? forgetEvents(state, entry.id) : Effect.void,
    Effect.logDebug("MCP session closed")
  ], { discard: true }).pipe(
    Effect.annotateLogs("session", entry.id),
    Effect.updateContext((_: Context.Context<never>) => state.context)
  )

// The session connected in its life, in the table's own context, not the request that opened it: a
// session outlives its `initialize`, and must not carry that request's services into every later
// call. A replica of a session opened elsewhere is connected from what Redis kept of it (`restored`).
const connectIn = (state: State, entry: Entry, life: Scope.Closeable, restored: Registry.Record | undefined) =>
  Effect.gen(function*() {
    const max = state.config.maxSubscriptions
    const { node } = state
    if (node === undefined) {
      // The life is the session's scope: its transport closing ends the life (see `start`).
      yield* Session.connect(state.face, entry.direct, {
        ownScope: false,
        ...(max === undefined ? {} : { maxSubscriptions: max })
      })
    } else yield* node.connect(state.face, entry.id, entry.transport, entry.direct, entry.holder, restored)
    yield* Effect.logDebug(restored === undefined ? "MCP session opened" : "MCP session restored from Redis")
  }).pipe(
    Scope.provide(life),
    Effect.annotateLogs("session", entry.id),
    Effect.updateContext((_: Context.Context<never>) => state.context)
  )

// A store that cannot forget now lets the session's events expire by its own bounds.
const forgetEvents = (state: State, id: string) =>
  Effect.catchTag(
    state.store.forget(id),
    "EventStoreError",
    (error) => Effect.logWarning(`MCP session's events left to expire: ${error.message}`)
  )

// Admit an entry, in one step: room is made by taking out the idle session `sessionRoom` names.
const admit = (state: State, entry: Entry) =>
  Ref.modify(state.entries, (map): readonly [Room.Room<Entry>, ReadonlyMap<string, Entry>] => {
    const room = Room.roomFor(map, entry.holder, {
      maxSessions: state.config.maxSessions,
      maxSessionsPerHolder: state.config.maxSessionsPerHolder
    })
    if (room._tag === "Refused") return [room, map]
    const next = new Map(map)
    if (room._tag === "Evict") next.delete(room.evicted.id)
    return [room, next.set(entry.id, entry)]
  })

// The `initialize` that opens a session is using it.
const open = (state: State) => (holder: string | undefined): Effect.Effect<Entry, Unavailable> =>
  Effect.flatMap(
    Effect.suspend(() => newEntry(state, crypto.randomUUID(), 1, undefined, holder)),
    (entry) => start(state, entry, undefined)
  )

// A session opened elsewhere, served here from what Redis kept of it; the request that asked for
// it counts itself as using it.
const restoreEntry = (state: State, id: string, restored: Registry.Record): Effect.Effect<Entry, Unavailable> =>
  Effect.flatMap(
    newEntry(state, id, 0, restored.version, restored.holder),
    (entry) => start(state, entry, restored)
  )

// Another holder's session is answered as an unknown one: nothing says it exists.
const lookup =
  (state: State) => (id: string, holder: string | undefined): Effect.Effect<Option.Option<Entry>, Unavailable> =>
    Effect.suspend(() => {
      const known = Ref.getUnsafe(state.entries).get(id)
      if (known !== undefined && !Deferred.isDoneUnsafe(known.ended)) {
        return Effect.succeed(known.holder === holder ? Option.some(known) : Option.none())
      }
      // One ending here is gone, unless Redis says the session lives on (a replica ending alone).
      return state.node === undefined ? Effect.succeedNone : restoring(state, state.node, id, holder)
    })

// Concurrent requests of one holder for a session not served here yet restore it once. Redis finds
// the session for its own holder only (`find`), so another's request restores nothing, claims
// nothing, and never shares the restore of the holder's own.
const restoring = (
  state: State,
  node: Shared.Node,
  id: string,
  holder: string | undefined
): Effect.Effect<Option.Option<Entry>, Unavailable> =>
  Effect.suspend(() => {
    const key = `${id}\n${holder ?? ""}`
    const standing = state.restoring.get(key)
    if (standing !== undefined) return Deferred.await(standing)
    const done = Deferred.makeUnsafe<Option.Option<Entry>, Unavailable>()
    state.restoring.set(key, done)
    return node.find(id, holder).pipe(
      Effect.mapError((error) => new Unavailable({ reason: error.message })),
      Effect.flatMap(
        Option.match({
          onNone: () => Effect.succeedNone,
          onSome: (record) => Effect.flatMap(restoreEntry(state, id, record), (entry) => restored(state, entry))
        })
      ),
      Effect.onExit((exit) => Deferred.done(done, exit)),
      Effect.ensuring(Effect.sync(() => {
        state.restoring.delete(key)
        if (![...state.restoring.keys()].some((other) => other.startsWith(`${id}\n`))) state.cancelled.delete(id)
      }))
    )
  })

// A session ended while it was being restored (deleted at another instance) is not served.
const restored = (state: State, entry: Entry): Effect.Effect<Option.Option<Entry>> =>
  Effect.suspend(() =>
    state.cancelled.has(entry.id) ? Effect.as(retire(state, entry.id), Option.none()) : Effect.succeedSome(entry)
  )

// Admitted and its life begun in one uninterruptible step; a request gone while the session
// connects takes the session with it, so nothing is left counted as in use. The session's transport
// closing ends its life (from a fiber of its own: never one the life owns).
const start = (state: State, entry: Entry, restored: Registry.Record | undefined): Effect.Effect<Entry, Unavailable> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const room = yield* admit(state, entry)
      if (room._tag === "Refused") return yield* new Unavailable({ reason: room.reason })
      if (room._tag === "Evict") {
        yield* retire(state, room.evicted.id)
        yield* Effect.logInfo(`MCP session evicted: ${room.why}`).pipe(Effect.annotateLogs("session", room.evicted.id))
      }
      const shuttingDown = Effect.andThen(
        forget(state, entry),
        Effect.fail(new Unavailable({ reason: "the server is shutting down" }))
      )
      // A table already closed never connects the session; one closed while it connects ends it.
      const life = yield* state.lives.begin(entry.id, () => lifeEnded(state, entry))
      if (life === undefined) return yield* shuttingDown
      // Chained, not replaced, by the SDK server when it connects: `ended` is done the moment the
      // transport closes, before anything it closes says so, and the life ends.
      entry.direct.onclose = () => {
        Deferred.doneUnsafe(entry.ended, Effect.void)
        state.fork(state.lives.end(entry.id, life))
      }
      yield* restore(connectIn(state, entry, life, restored)).pipe(Effect.onExit((exit) =>
        Exit.isSuccess(exit) ? Effect.void : Effect.andThen(state.lives.end(entry.id, life), forget(state, entry))
      ))
      if (!state.lives.live(entry.id, life))
        return yield* shuttingDown
      return entry
    })
  )
