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
import type { EventStore as SdkEventStore } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { Context, Effect, Layer, Option } from "effect"

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
  readonly message: JSONRPCMessage
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
  readonly append: (session: string, stream: string, message: JSONRPCMessage) => Effect.Effect<string>
  /** The events of `session` stored after `eventId` on its stream; none when the id is unknown to this session. */
  readonly after: (session: string, eventId: string) => Effect.Effect<Option.Option<Replay>>
  /** Drop everything stored for a session that has ended. */
  readonly forget: (session: string) => Effect.Effect<void>
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

interface StreamLog {
  readonly session: string
  readonly stream: string
  readonly serial: number
  readonly events: Array<{ readonly seq: number; readonly message: JSONRPCMessage }>
  next: number
}

const eventId = (serial: number, seq: number) => `${serial}-${seq}`
const parseEventId = (id: string): Option.Option<{ readonly serial: number; readonly seq: number }> => {
  const match = /^(\d+)-(\d+)$/.exec(id)
  return match === null ? Option.none() : Option.some({ serial: Number(match[1]), seq: Number(match[2]) })
}

/**
 * A fresh in-memory store. Event ids are `<stream serial>-<sequence>`, so a resume from an event
 * already dropped by the bound still finds its stream and replays what is kept; an id of another
 * session, or of a session forgotten, finds nothing.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { McpEventStore } from "effect-surface/mcp"
 *
 * const store = McpEventStore.makeMemory({ maxStreamsPerSession: 16 })
 * const layer = Layer.succeed(McpEventStore.EventStore, store)
 * ```
 *
 * @since 0.1.0
 */
export const makeMemory = (options?: MemoryOptions): EventStore["Service"] => {
  const maxEvents = Math.max(1, options?.maxEventsPerStream ?? 512)
  const maxStreams = Math.max(1, options?.maxStreamsPerSession ?? 64)
  // Plain maps touched only inside `Effect.sync`: each operation runs to completion on the one
  // thread, so it is atomic, and an append costs O(1) where an immutable table would copy per event.
  const logs = new Map<number, StreamLog>()
  // Per session, stream name → serial, in least-recently-written order (re-inserted on write).
  const sessions = new Map<string, Map<string, number>>()
  let serials = 0

  const append = (session: string, stream: string, message: JSONRPCMessage) =>
    Effect.sync(() => {
      let streams = sessions.get(session)
      if (streams === undefined) {
        streams = new Map<string, number>()
        sessions.set(session, streams)
      }
      const known = streams.get(stream)
      const log = known === undefined ? undefined : logs.get(known)
      const current: StreamLog = log ?? { session, stream, serial: ++serials, events: [], next: 0 }
      if (log === undefined) logs.set(current.serial, current)
      streams.delete(stream)
      streams.set(stream, current.serial)
      // The least recently written streams go first: a Map iterates in insertion order.
      while (streams.size > maxStreams) {
        const [name, serial] = streams.entries().next().value!
        streams.delete(name)
        logs.delete(serial)
      }
      const seq = ++current.next
      current.events.push({ seq, message })
      if (current.events.length > maxEvents) current.events.splice(0, current.events.length - maxEvents)
      return eventId(current.serial, seq)
    })

  const after = (session: string, id: string) =>
    Effect.sync(() =>
      Option.flatMap(parseEventId(id), ({ serial, seq }) => {
        const log = logs.get(serial)
        if (log === undefined || log.session !== session) return Option.none()
        return Option.some({
          stream: log.stream,
          events: log.events.filter((event) => event.seq > seq).map((event) => ({ id: eventId(serial, event.seq), message: event.message }))
        })
      })
    )

  const forget = (session: string) =>
    Effect.sync(() => {
      for (const serial of sessions.get(session)?.values() ?? []) logs.delete(serial)
      sessions.delete(session)
    })

  return EventStore.of({ append, after, forget })
}

// The SDK stores a priming event as an empty object so the client holds a cursor; it is not a
// message, and replaying it would hand the client something it cannot parse.
const isMessage = (message: JSONRPCMessage): boolean => "jsonrpc" in message

/**
 * The SDK transport's view of the store, bound to one session. `run` runs the store's Effects
 * (the server's runtime, so they log and trace with it).
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
): SdkEventStore => ({
  storeEvent: (stream, message) => run(store.append(session, stream, message)),
  // Consulted before a replay: an id this session never issued is refused (400) before any
  // stream is registered for it.
  getStreamIdForEventId: (id) => run(Effect.map(store.after(session, id), (replay) => Option.getOrUndefined(Option.map(replay, (r) => r.stream)))),
  replayEventsAfter: async (id, { send }) => {
    const replay = await run(store.after(session, id))
    if (Option.isNone(replay)) throw new Error(`unknown event id ${id}`)
    for (const event of replay.value.events) {
      if (isMessage(event.message)) await send(event.id, event.message)
    }
    return replay.value.stream
  }
})
