/**
 * A client's SSE stream served from Redis, when one host's session is served by several instances.
 *
 * Which instance writes an event — the session's leader announcing a change, the instance running
 * a call whose stream the client resumed — is not up to the instance the client's GET reached. So a
 * GET is answered here, not by the SDK transport: the stream it names (the session's standalone one,
 * or the one its `Last-Event-ID` belongs to) is *held* for this instance's inbox, which from then
 * on receives every event appended to it, and what the stream kept after that id is read in the
 * same step (with no id, what was appended while no instance held the stream: a notification sent
 * before the client's GET opened, or while it was away, is not lost). The response is that
 * backlog, then each event as it is published, in order and once each; a resumed request stream
 * ends after its answer. Every stream opens with a cursor (the id it resumes from, or a fresh one),
 * so a client cut off before the next event still resumes rather than starting over. A stream held
 * by another instance is taken over (the other is told), as the SDK closes a predecessor on a
 * reconnect, whether or not the client names an id: whether another instance still serves it is
 * not known here (a dead instance counts as live for three heartbeats, longer than a client retries
 * for). A second standalone GET while this instance serves one is refused 409, as the SDK refuses it.
 *
 * @since 0.1.0
 */
import { type JSONRPCMessage, LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js"
import * as Eras from "../../../protocol/Eras.ts"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type * as EventStore from "../EventStore.ts"
import type * as EventStoreRedis from "../EventStoreRedis.ts"
import * as HttpChecks from "../../transport/HttpChecks.ts"

export const standalone = "_GET_stream"

/** An event as the store published it. */
export interface Published {
  readonly session: string
  readonly stream: string
  readonly id: string
  readonly message: string
}

interface Tail {
  readonly session: string
  readonly held: EventStoreRedis.Held
  readonly controller: ReadableStreamDefaultController<Uint8Array>
  lastSeq: number
  ended: boolean
  keepAlive: Fiber.Fiber<unknown> | undefined
}

/** What a tail needs of its instance. */
export interface Env {
  readonly tailable: EventStoreRedis.Tailable
  /** This instance's inbox, the channel held streams are published to. */
  readonly inbox: string
  /** The instance an inbox channel belongs to, when it is one. */
  readonly instanceOfInbox: (channel: string) => string | undefined
  /** Tell another instance its tail of a stream has been taken over. */
  readonly superseded: (instance: string, session: string, stream: string) => Effect.Effect<void>
  readonly retryInterval: number | undefined
  readonly keepAlive: Duration.Duration
  /** Runs what a stream's callbacks start, outside any fiber. */
  readonly runFork: <A, E>(effect: Effect.Effect<A, E>) => Fiber.Fiber<A, E>
}

/** The tails this instance serves, by session and stream. */
export interface Tails {
  readonly open: (request: Request) => Effect.Effect<Response, HttpChecks.Refusal>
  /** An event published to this instance's inbox. */
  readonly deliver: (event: Published) => void
  /** Another instance serves this stream now. */
  readonly supersede: (session: string, stream: string) => void
  /** End every tail of a session (it has ended here). */
  readonly endSession: (session: string) => void
  /** The sessions with a tail open. */
  readonly sessions: () => ReadonlyArray<string>
}

export interface Request {
  readonly session: string
  readonly headers: Readonly<Record<string, string | undefined>>
  /** The version the session negotiated. */
  readonly version: string | undefined
}

const encoder = new TextEncoder()
const keyOf = (session: string, stream: string) => `${session}\n${stream}`
const seqOf = (id: string) => Number(id.slice(id.lastIndexOf("-") + 1))

const refuse = (status: number, message: string) => new HttpChecks.Refusal({ status, code: -32000, message })

// What the SDK stores as a priming event: a cursor with no message.
const priming = {} as JSONRPCMessage

const isAnswer = (message: unknown): boolean =>
  typeof message === "object" && message !== null && !("method" in message) && "id" in message &&
  ("result" in message || "error" in message)

// Events published for a session while one of its streams is being held: kept until the tail is
// registered, so nothing appended between the hold and the registration is missed.
interface Pending {
  readonly session: string
  readonly events: Array<Published>
}

/** The tails of one instance. */
export const make = (env: Env): Tails => {
  const tails = new Map<string, Tail>()
  const pending = new Set<Pending>()
  const end = (key: string, tail: Tail) => {
    if (tail.ended) return
    tail.ended = true
    if (tails.get(key) === tail) tails.delete(key)
    if (tail.keepAlive !== undefined) env.runFork(Fiber.interrupt(tail.keepAlive))
    try {
      tail.controller.close()
    } catch {
      // Already cancelled by its reader.
    }
    env.runFork(Effect.ignore(env.tailable.release(tail.session, tail.held, env.inbox)))
  }
  // One event, in order and once: the backlog and what is published may overlap.
  const write = (key: string, tail: Tail, id: string, message: string | EventStore.StoredEvent["message"]) => {
    const seq = seqOf(id)
    if (tail.ended || seq <= tail.lastSeq) return
    tail.lastSeq = seq
    const parsed: unknown = typeof message === "string"
      ? Option.getOrUndefined(Option.liftThrowable(JSON.parse)(message)) : message
    // A priming event is a cursor, not a message.
    if (typeof parsed !== "object" || parsed === null || !("jsonrpc" in parsed)) return
    try {
      tail.controller.enqueue(encoder.encode(`event: message\nid: ${id}\ndata: ${JSON.stringify(parsed)}\n\n`))
    } catch {
      return end(key, tail)
    }
    if (tail.held.stream !== standalone && isAnswer(parsed)) end(key, tail)
  }
  return {
    open: (request) => {
      const waiting: Pending = { session: request.session, events: [] }
      return Effect.acquireUseRelease(
        Effect.sync(() => pending.add(waiting)),
        () => open(env, tails, write, end, request, waiting),
        () => Effect.sync(() => pending.delete(waiting))
      )
    },
    deliver: (event) => {
      for (const waiting of pending) if (waiting.session === event.session) waiting.events.push(event)
      const key = keyOf(event.session, event.stream)
      const tail = tails.get(key)
      if (tail !== undefined) write(key, tail, event.id, event.message)
    },
    supersede: (session, stream) => {
      const key = keyOf(session, stream)
      const tail = tails.get(key)
      if (tail !== undefined) end(key, tail)
    },
    endSession: (session) => {
      for (const [key, tail] of tails) if (tail.session === session) end(key, tail)
    },
    sessions: () => [...new Set([...tails.values()].map((tail) => tail.session))]
  }
}

type Write = (key: string, tail: Tail, id: string, message: string | EventStore.StoredEvent["message"]) => void
type End = (key: string, tail: Tail) => void

const checkHeaders = (headers: Request["headers"]) => {
  if (!(headers["accept"] ?? "").includes("text/event-stream"))
    return Option.some(refuse(406, "Not Acceptable: Client must accept text/event-stream"))
  const version = headers["mcp-protocol-version"]
  if (version !== undefined && !Eras.sessionVersions.includes(version)) {
    return Option.some(
      refuse(
        400,
        `Bad Request: Unsupported protocol version: ${version} (supported versions: ${Eras.sessionVersions.join(", ")})`
      )
    )
  }
  return Option.none()
}

const unavailable = (error: { readonly message: string }) =>
  new HttpChecks.Refusal({
    status: 503,
    code: -32000,
    message: `Service Unavailable: cannot open the stream: ${error.message}`,
    retryAfter: 1
  })

// A second standalone GET while this instance serves one is refused, as the SDK refuses it. One
// held elsewhere is taken over: that its instance beat lately does not say its client's stream is
// still open, and a client refused until the beats stop would have given up retrying.
const checkStandalone = (tails: Map<string, Tail>, session: string) =>
  tails.has(keyOf(session, standalone))
    ? refuse(409, "Conflict: Only one SSE stream is allowed per session")
    : Effect.void

const open = (env: Env, tails: Map<string, Tail>, write: Write, end: End, request: Request, waiting: Pending) =>
  Effect.gen(function*() {
    const refused = checkHeaders(request.headers)
    if (Option.isSome(refused)) return yield* refused.value
    const lastEventId = request.headers["last-event-id"] === "" ? undefined : request.headers["last-event-id"]
    const { session } = request
    if (lastEventId === undefined) yield* checkStandalone(tails, session)
    const found = yield* Effect.mapError(env.tailable.hold(session, lastEventId, env.inbox), unavailable)
    if (Option.isNone(found)) return yield* refuse(400, "Invalid event ID format")
    const held = found.value
    const key = keyOf(session, held.stream)
    const previous = tails.get(key)
    if (previous !== undefined) end(key, previous)
    const other = held.previous === undefined || held.previous === env.inbox ? undefined
      : env.instanceOfInbox(held.previous)
    if (other !== undefined) env.runFork(env.superseded(other, session, held.stream))
    // A cursor is an event with no data, which a client of an earlier revision does not expect.
    const primed = (request.version ?? LATEST_PROTOCOL_VERSION) >= "2025-11-25"
    const cursor = !primed ? Option.none<string>()
      : lastEventId !== undefined ? Option.some(lastEventId)
      : yield* Effect.option(env.tailable.store.append(session, standalone, priming))
    return respond(env, tails, write, end, { session, held, priming: cursor, waiting })
  })

const respond = (
  env: Env,
  tails: Map<string, Tail>,
  write: Write,
  end: End,
  opened: {
    readonly session: string
    readonly held: EventStoreRedis.Held
    readonly priming: Option.Option<string>
    readonly waiting: Pending
  }
): Response => {
  const { held, priming, session, waiting } = opened
  const key = keyOf(session, held.stream)
  let tail: Tail | undefined
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      const started: Tail = { session, held, controller, lastSeq: 0, ended: false, keepAlive: undefined }
      tail = started
      tails.set(key, started)
      // The cursor in its place among the events, so a client cut off anywhere resumes from the
      // last one it read and misses none.
      let cursor = Option.getOrUndefined(priming)
      const writeCursor = () => {
        if (cursor === undefined || started.ended) return
        const retry = env.retryInterval === undefined ? "" : `retry: ${env.retryInterval}\n`
        controller.enqueue(encoder.encode(`id: ${cursor}\n${retry}data: \n\n`))
        started.lastSeq = Math.max(started.lastSeq, seqOf(cursor))
        cursor = undefined
      }
      const backlog = [...held.events, ...waiting.events.filter((event) => event.stream === held.stream)]
      for (const event of backlog) {
        if (cursor !== undefined && seqOf(event.id) > seqOf(cursor)) writeCursor()
        write(key, started, event.id, event.message)
      }
      writeCursor()
      if (!started.ended) {
        started.keepAlive = env.runFork(
          Effect.sync(() => controller.enqueue(encoder.encode(": keepalive\n\n"))).pipe(
            Effect.repeat(Schedule.spaced(env.keepAlive)),
            Effect.delay(env.keepAlive),
            Effect.catchDefect(() => Effect.sync(() => end(key, started)))
          )
        )
      }
    },
    cancel() {
      if (tail !== undefined) end(key, tail)
    }
  })
  return new Response(readable, {
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "mcp-session-id": session
    }
  })
}
