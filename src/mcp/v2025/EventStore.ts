/**
 * Where a Streamable HTTP session's SSE events wait for a client whose connection dropped.
 *
 * Resumability — a client reconnecting with `Last-Event-ID` receives what it missed — needs every
 * event the SDK transport writes to be stored first. The SDK's own `EventStore` interface knows
 * nothing of sessions, so a store shared by a server would replay one session's events to another
 * that presented its event id: a cross-client leak. This service is keyed by session, and the
 * adapter each session's transport gets (`forSession`) is bound to one, so a foreign event id is
 * simply unknown. It is a service so a deployment can swap the in-memory default for a shared store.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as McpTransport from "../../protocol/Transport.ts"

/**
 * One stored event: the id a client resumes from, and the message it carried.
 *
 * @example
 * ```ts
 * import type { McpEventStore } from "effect-surface/mcp"
 *
 * const event: McpEventStore.StoredEvent = { id: "1-1", message: { jsonrpc: "2.0", method: "notifications/resources/list_changed" } }
 * ```
 *
 * @since 0.1.0
 */
export interface StoredEvent {
  readonly id: string
  readonly message: McpTransport.Message
}

/**
 * What a resume replays: the stream the event id belongs to, and the events stored after it.
 *
 * @example
 * ```ts
 * import { Effect, Option } from "effect"
 * import { McpEventStore } from "effect-surface/mcp"
 *
 * const store = McpEventStore.makeMemory()
 * const missed = Effect.map(store.after("session-1", "1-4"), Option.map((replay: McpEventStore.Replay) => replay.events.length))
 * ```
 *
 * @since 0.1.0
 */
export interface Replay {
  readonly stream: string
  readonly events: ReadonlyArray<StoredEvent>
}

/**
 * Bounds of the in-memory store.
 *
 * @example
 * ```ts
 * import type { McpEventStore } from "effect-surface/mcp"
 *
 * const bounds: McpEventStore.MemoryOptions = { maxEventsPerStream: 128, maxStreamsPerSession: 16 }
 * ```
 *
 * @since 0.1.0
 */
export interface MemoryOptions {
  /** The newest events kept per stream; older ones are dropped. Default 512. */
  readonly maxEventsPerStream?: number
  /** The most recently written streams kept per session (each POST opens one). Default 64. */
  readonly maxStreamsPerSession?: number
  /** The bytes of events kept per session; past it, its oldest events go first. Default 4 MiB. */
  readonly maxBytesPerSession?: number
  /** The bytes of events kept in all; past it, the least recently written session's oldest events go first. Default 64 MiB. */
  readonly maxBytes?: number
}

/**
 * The store could not do what was asked: it is unreachable, or gave no answer in time. A server
 * answers a request that needed it with this sentence (503), and a live stream whose event could
 * not be stored still delivers it, without an id to resume from.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpEventStore } from "effect-surface/mcp"
 *
 * declare const store: McpEventStore.EventStore["Service"]
 * const missed = store.after("session-1", "1-4").pipe(
 *   Effect.catchTag("EventStoreError", (error) => Effect.logWarning(error.message))
 * )
 * ```
 *
 * @since 0.1.0
 */
export class EventStoreError extends Data.TaggedError("EventStoreError")<{ readonly reason: string }> {
  override get message(): string {
    return `the event store failed: ${this.reason}`
  }
}

/**
 * The event store of a Streamable HTTP face, keyed by session.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpEventStore } from "effect-surface/mcp"
 *
 * const program = Effect.gen(function*() {
 *   const store = yield* McpEventStore.EventStore
 *   const id = yield* store.append("session-1", "_GET_stream", { jsonrpc: "2.0", method: "ping" })
 *   const missed = yield* store.after("session-1", id) // Some({ stream: "_GET_stream", events: [] })
 * }).pipe(Effect.provide(McpEventStore.EventStore.layer))
 * ```
 *
 * @since 0.1.0
 */
export class EventStore extends Context.Service<EventStore, {
  /** Store a message written on `stream` of `session`; answers the event's id. */
  readonly append: (
    session: string,
    stream: string,
    message: McpTransport.Message
  ) => Effect.Effect<string, EventStoreError>
  /** The events of `session` stored after `eventId` on its stream; none when the id is unknown to this session. */
  readonly after: (session: string, eventId: string) => Effect.Effect<Option.Option<Replay>, EventStoreError>
  /** Drop everything stored for a session that has ended. */
  readonly forget: (session: string) => Effect.Effect<void, EventStoreError>
  /**
   * Drop the stream `eventId` belongs to: its answers were delivered, so nothing will resume it.
   * An id this session never issued drops nothing.
   */
  readonly drop: (session: string, eventId: string) => Effect.Effect<void, EventStoreError>
}>()("effect-surface/McpEventStore") {
  /**
   * The in-memory store with its default bounds.
   *
   * @since 0.1.0
   */
  static readonly layer: Layer.Layer<EventStore> = Layer.effect(EventStore, Effect.sync(() => makeMemory()))

  /**
   * The in-memory store with the given bounds.
   *
   * @example
   * ```ts
   * import { McpEventStore } from "effect-surface/mcp"
   *
   * const store = McpEventStore.EventStore.layerMemory({ maxEventsPerStream: 100 })
   * ```
   *
   * @since 0.1.0
   */
  static readonly layerMemory = (options?: MemoryOptions): Layer.Layer<EventStore> =>
    Layer.effect(EventStore, Effect.sync(() => makeMemory(options)))
}

interface StoredLine {
  readonly seq: number
  readonly message: McpTransport.Message
  readonly bytes: number
}

interface StreamLog {
  readonly session: string
  readonly stream: string
  readonly serial: number
  readonly events: Array<StoredLine>
  next: number
}

interface SessionLog {
  /** Stream name → serial, in least-recently-written order (re-inserted on write). */
  readonly streams: Map<string, number>
  bytes: number
}

const eventId = (serial: number, seq: number) => `${serial}-${seq}`
const parseEventId = (id: string): Option.Option<{ readonly serial: number; readonly seq: number }> => {
  const match = /^(\d+)-(\d+)$/.exec(id)
  return match === null ? Option.none() : Option.some({ serial: Number(match[1]), seq: Number(match[2]) })
}

/**
 * A fresh in-memory store. Event ids are `<stream serial>-<sequence>`, so a resume from an event
 * already dropped by a bound still finds its stream and replays what is kept; an id of another
 * session, of a session forgotten or of a stream dropped finds nothing. Bounded by events per
 * stream, streams per session, and bytes per session and in all.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { McpEventStore } from "effect-surface/mcp"
 *
 * const store = McpEventStore.makeMemory({ maxStreamsPerSession: 16, maxBytesPerSession: 1024 * 1024 })
 * const layer = Layer.succeed(McpEventStore.EventStore, store)
 * ```
 *
 * @since 0.1.0
 */
export const makeMemory = (options?: MemoryOptions): EventStore["Service"] => {
  const bounds = {
    events: Math.max(1, options?.maxEventsPerStream ?? 512),
    streams: Math.max(1, options?.maxStreamsPerSession ?? 64),
    sessionBytes: Math.max(0, options?.maxBytesPerSession ?? 4 * 1024 * 1024),
    bytes: Math.max(0, options?.maxBytes ?? 64 * 1024 * 1024)
  }
  // Plain maps touched only inside `Effect.sync`: each operation runs to completion on the one
  // thread, so it is atomic, and an append costs O(1) where an immutable table would copy per event.
  const memory: Memory = { logs: new Map(), sessions: new Map(), bytes: 0, serials: 0 }

  const append = (session: string, stream: string, message: McpTransport.Message) =>
    Effect.sync(() => {
      const log = written(memory, bounds, session, stream)
      const seq = ++log.next
      const bytes = JSON.stringify(message).length
      log.events.push({ seq, message, bytes })
      account(memory, log, bytes)
      if (log.events.length > bounds.events) dropOldest(memory, log)
      const owner = memory.sessions.get(session)!
      while (owner.bytes > bounds.sessionBytes && dropOldestOf(memory, owner)) { /* the session's oldest first */ }
      // The least recently written session gives up its oldest first (a Map iterates in insertion order).
      for (const least of memory.sessions.values()) {
        while (memory.bytes > bounds.bytes && dropOldestOf(memory, least)) { /* this session's oldest first */ }
        if (memory.bytes <= bounds.bytes) break
      }
      return eventId(log.serial, seq)
    })

  const after = (session: string, id: string) =>
    Effect.sync(() =>
      Option.flatMap(parseEventId(id), ({ serial, seq }) => {
        const log = memory.logs.get(serial)
        if (log === undefined || log.session !== session) return Option.none()
        return Option.some({
          stream: log.stream,
          events: log.events.filter((event) => event.seq > seq).map((event) => ({
            id: eventId(serial, event.seq),
            message: event.message
          }))
        })
      })
    )

  const forget = (session: string) =>
    Effect.sync(() => {
      const owner = memory.sessions.get(session)
      for (const serial of owner?.streams.values() ?? []) memory.logs.delete(serial)
      memory.bytes -= owner?.bytes ?? 0
      memory.sessions.delete(session)
    })

  const drop = (session: string, id: string) =>
    Effect.sync(() => {
      const log = Option.getOrUndefined(Option.map(parseEventId(id), ({ serial }) => memory.logs.get(serial)))
      if (log !== undefined && log.session === session) dropStream(memory, log)
    })

  return EventStore.of({ append, after, forget, drop })
}

// The in-memory store's tables and counts.
interface Memory {
  readonly logs: Map<number, StreamLog>
  /** Per session, in least-recently-written order (re-inserted on write). */
  readonly sessions: Map<string, SessionLog>
  bytes: number
  serials: number
}

// The log of `stream`, made the most recently written of its session (and its session the most
// recently written of all); the session's least recently written streams past the bound go.
const written = (memory: Memory, bounds: { readonly streams: number }, session: string, stream: string): StreamLog => {
  const owner = memory.sessions.get(session) ?? { streams: new Map<string, number>(), bytes: 0 }
  memory.sessions.delete(session)
  memory.sessions.set(session, owner)
  const known = owner.streams.get(stream)
  const log = (known === undefined ? undefined : memory.logs.get(known)) ??
    { session, stream, serial: ++memory.serials, events: [], next: 0 }
  memory.logs.set(log.serial, log)
  owner.streams.delete(stream)
  owner.streams.set(stream, log.serial)
  while (owner.streams.size > bounds.streams) {
    const [, serial] = owner.streams.entries().next().value!
    dropStream(memory, memory.logs.get(serial)!)
  }
  return log
}

const account = (memory: Memory, log: StreamLog, bytes: number) => {
  memory.bytes += bytes
  const owner = memory.sessions.get(log.session)
  if (owner !== undefined) owner.bytes += bytes
}

const dropOldest = (memory: Memory, log: StreamLog) => {
  const oldest = log.events.shift()
  if (oldest !== undefined) account(memory, log, -oldest.bytes)
}

// The oldest event of a session's least recently written stream that has one; false when none has.
const dropOldestOf = (memory: Memory, owner: SessionLog): boolean => {
  for (const serial of owner.streams.values()) {
    const log = memory.logs.get(serial)
    if (log !== undefined && log.events.length > 0) {
      dropOldest(memory, log)
      return true
    }
  }
  return false
}

const dropStream = (memory: Memory, log: StreamLog) => {
  for (const event of log.events) account(memory, log, -event.bytes)
  memory.logs.delete(log.serial)
  memory.sessions.get(log.session)?.streams.delete(log.stream)
}

// The SDK stores a priming event as an empty object so the client holds a cursor; it is not a
// message, and replaying it would hand the client something it cannot parse.
const isMessage = (message: McpTransport.Message): boolean => "jsonrpc" in message

/**
 * One session's events as a Streamable HTTP transport keeps them (the shape of the SDKs' own
 * `EventStore` option, so an SDK transport takes it as it is).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpEventStore } from "effect-surface/mcp"
 * const events: McpEventStore.SessionEvents = McpEventStore.forSession(McpEventStore.makeMemory(), "s", Effect.runPromise)
 * ```
 *
 * @since 0.1.0
 */
export interface SessionEvents {
  storeEvent(stream: string, message: McpTransport.Message): Promise<string>
  getStreamIdForEventId(id: string): Promise<string | undefined>
  replayEventsAfter(
    id: string,
    options: { send(eventId: string, message: McpTransport.Message): Promise<void> }
  ): Promise<string>
}

/**
 * The SDK transport's view of the store, bound to one session. `run` runs the store's Effects
 * (the server's runtime, so they log and trace with it). An event the store fails to keep is
 * still sent on a live stream, with no id (so nothing can try to resume from it), and the failure
 * is logged; a failed replay is refused.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
 * import { McpEventStore } from "effect-surface/mcp"
 *
 * const store = McpEventStore.makeMemory()
 * const transport = new WebStandardStreamableHTTPServerTransport({
 *   sessionIdGenerator: () => "session-1",
 *   eventStore: McpEventStore.forSession(store, "session-1", Effect.runPromise)
 * })
 * ```
 *
 * @since 0.1.0
 */
export const forSession = (
  store: EventStore["Service"],
  session: string,
  run: <A>(effect: Effect.Effect<A>) => Promise<A>
): SessionEvents => ({
  storeEvent: (stream, message) =>
    run(
      store.append(session, stream, message).pipe(
        // The SDK writes no `id:` line for an empty id.
        Effect.catchTag(
          "EventStoreError",
          (error) => Effect.as(Effect.logWarning(`MCP event sent unstored: ${error.message}`), "")
        )
      )
    ),
  // Consulted before a replay: an id this session never issued is refused (400) before any
  // stream is registered for it.
  getStreamIdForEventId: (id) =>
    after(store, session, run, id).then((replay) => Option.getOrUndefined(Option.map(replay, (r) => r.stream))),
  replayEventsAfter: (id, { send }) => replay(after(store, session, run, id), id, send)
})

const after = (
  store: EventStore["Service"],
  session: string,
  run: <A>(effect: Effect.Effect<A>) => Promise<A>,
  id: string
) => run(Effect.orDie(store.after(session, id)))

const replay = async (
  found: Promise<Option.Option<Replay>>,
  id: string,
  send: (eventId: string, message: McpTransport.Message) => Promise<void>
): Promise<string> => {
  const replay = await found
  if (Option.isNone(replay)) throw new Error(`unknown event id ${id}`)
  for (const event of replay.value.events) {
    if (isMessage(event.message)) await send(event.id, event.message)
  }
  return replay.value.stream
}
