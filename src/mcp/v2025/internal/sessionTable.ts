/**
 * A session's stay in the table: how one comes to be served here — opened by an `initialize`, or
 * restored from what Redis kept of it for a request that names it — admitted (an idle session making
 * room past a bound), its life begun and connected in the table's own context, and how it ends,
 * whatever ends it. Apart from `HttpSessions.ts` so the table reads as what it offers and how it
 * expires idle sessions; the state all of it shares is declared here.
 *
 * @internal
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import * as Clock from "effect/Clock"
import type * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import type * as Face from "../../face/Face.ts"
import * as EventStore from "../EventStore.ts"
import * as SessionOpen from "./sessionOpen.ts"
import * as HttpDirect from "./httpDirect.ts"
import type * as Registry from "./redisSessions.ts"
import type * as Shared from "./replicas.ts"
import { type Config, type Entry, Unavailable } from "./sessionEntry.ts"
import type * as Lives from "./sessionLives.ts"
import * as Room from "./sessionRoom.ts"

/** What the table's operations share. */
export interface State {
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

/** What ending a session touches. */
export type Ending = Pick<State, "entries" | "lives" | "restoring" | "cancelled">

/**
 * End a session here: gone from the table in the same step, so no request finds it while its life
 * winds down (nor restores it from a registry read just before), then its life ended.
 */
export const retire = (state: Ending, id: string): Effect.Effect<void> =>
  Effect.suspend(() => {
    const entry = Ref.getUnsafe(state.entries).get(id)
    if (entry !== undefined) Deferred.doneUnsafe(entry.ended, Effect.void)
    for (const key of state.restoring.keys()) if (key.startsWith(`${id}\n`)) state.cancelled.add(id)
    return Effect.andThen(forget(state, entry), state.lives.end(id))
  })

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
      yield* SessionOpen.connect(state.face, entry.direct, {
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

/** Open a session for `holder`: the `initialize` that opens it is using it. */
export const open = (state: State) => (holder: string | undefined): Effect.Effect<Entry, Unavailable> =>
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

/** The session `id` names, restored from Redis if need be; another holder's is answered as an unknown one. */
export const lookup =
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
