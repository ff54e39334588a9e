/**
 * Between Effect's HTTP server and the SDK's web-standard transport: the `Request` the transport
 * reads, and how the web `Response` it answers with is written.
 *
 * The transport speaks fetch's types; Effect's server does not. Each crossing is kept as thin as the
 * SDK's own Node adapter keeps it, because it is paid on every request: the request is handed over
 * as the few fields the transport reads, and a response that is complete by the time it is written
 * (a call answered at once, the usual case) leaves as one body, headers and all in one write, rather
 * than re-streamed chunk by chunk.
 *
 * @since 0.1.0
 */
import {
  CancelledNotificationSchema,
  isInitializeRequest,
  LATEST_PROTOCOL_VERSION
} from "@modelcontextprotocol/sdk/types.js"
import * as Eras from "../../../protocol/Eras.ts"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as HttpServerResponse from "effect/http/HttpServerResponse"

/**
 * The request the transport reads: its method, URL and headers (the body was read and bounded
 * before, so the transport is handed it parsed, never this body). A fetch `Request` would validate
 * and copy every header into a `Headers`, which the transport then sorts to copy out again; it reads
 * only these three fields, and of the headers only `get` and `entries`.
 */
export const toWebRequest = (method: string, url: string, headers: Readonly<Record<string, string>>): Request => {
  const view: Pick<Request, "method" | "url" | "headers"> = { method, url, headers: headersView(headers) }
  return view as Request
}

// The headers as Node parsed them (names lower-case, repeats joined), read in place.
const headersView = (record: Readonly<Record<string, string>>): Headers => {
  const entries = () => Object.entries(record)[Symbol.iterator]()
  const get = (name: string): string | null => {
    const key = name.toLowerCase()
    return Object.hasOwn(record, key) ? record[key]! : null
  }
  const view: Pick<Headers, "get" | "has" | "entries" | "keys" | "values" | "forEach" | typeof Symbol.iterator> = {
    get,
    has: (name) => get(name) !== null,
    entries,
    keys: () => Object.keys(record)[Symbol.iterator](),
    values: () => Object.values(record)[Symbol.iterator](),
    forEach: (callback) => {
      for (const [key, value] of Object.entries(record)) callback(value, key, view as Headers)
    },
    [Symbol.iterator]: entries
  }
  // Read-only: the transport never changes a request's headers.
  return view as Headers
}

// The SDK decides from `MCP-Protocol-Version` whether a response stream may be resumed (a priming
// event, a `retry` hint, closing the stream mid-call); the session's version is the one its
// `initialize` negotiated, so a request labelled with an older one does not downgrade the session's
// streams. A version the SDK does not support is left as labelled, for its transport to refuse (400).
export const headersFor = (
  headers: Readonly<Record<string, string>>,
  version: string | undefined
): Readonly<Record<string, string>> => {
  const labelled = headers["mcp-protocol-version"]
  return version !== undefined && labelled !== undefined && labelled < version &&
      Eras.sessionVersions.includes(labelled)
    ? { ...headers, "mcp-protocol-version": version }
    : headers
}

const sseOpening = new TextEncoder().encode(": stream open\n\n")

type Read = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>

// What is read off a response body before it is written: every chunk that arrived within one turn
// of the event loop, and the rest of the body when it had not ended by then.
interface Gathered {
  readonly chunks: ReadonlyArray<Uint8Array>
  readonly rest: ReadableStream<Uint8Array> | undefined
}

// The body after what was gathered: the read already under way first, then the reader. Cancelling it
// (the client went away) cancels the transport's stream, which is how the SDK learns of it.
const remainder = (
  reader: ReadableStreamDefaultReader<Uint8Array>,
  pending: Promise<Read>
): ReadableStream<Uint8Array> => {
  let next: Promise<Read> | undefined = pending
  return new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      const read = await (next ?? reader.read())
      next = undefined
      if (read.done) controller.close()
      else controller.enqueue(read.value)
    },
    cancel: (reason) => reader.cancel(reason)
  })
}

// The SDK's transport writes a quick answer (and the priming event before it) within the turn that
// produced it, and ends the stream once every request it carried is answered; a long call, or a GET
// stream, is still open after that turn and is streamed from there.
const gather = (reader: ReadableStreamDefaultReader<Uint8Array>): Promise<Gathered> =>
  new Promise((resolve) => {
    const chunks: Array<Uint8Array> = []
    let turnEnded = false
    let pending: Promise<Read> | undefined
    const turn = setImmediate(() => {
      turnEnded = true
      if (pending !== undefined) resolve({ chunks, rest: remainder(reader, pending) })
    })
    const step = (): void => {
      const read = reader.read()
      pending = read
      read.then(
        (result) => {
          if (turnEnded) return
          pending = undefined
          if (result.done) {
            clearImmediate(turn)
            resolve({ chunks, rest: undefined })
          } else {
            chunks.push(result.value)
            step()
          }
        },
        // A body that failed is written as far as it got, and fails where it failed.
        () => {
          if (turnEnded) return
          clearImmediate(turn)
          resolve({ chunks, rest: remainder(reader, read) })
        }
      )
    }
    step()
  })

const concat = (chunks: ReadonlyArray<Uint8Array>): Uint8Array =>
  chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)

/**
 * The connection a GET stream is written to: what it holds beyond its high-water mark, taken and not
 * yet sent, is what its client left unread.
 */
export interface Connection {
  readonly write: (chunk: Uint8Array) => boolean
  readonly writableLength: number
  readonly writableHighWaterMark: number
}

/** How much a GET stream may hold unread, where it is written, and what ends it past that. */
export interface Unread {
  readonly maxBytes: number
  readonly connection: Connection
  /** Close the response (its connection): the client resumes with `Last-Event-ID`. */
  readonly overflow: () => void
}

/**
 * The response to write for the transport's answer. An answer to a POST whose body is complete
 * within the turn is written whole; a body still open (a long call) is streamed, what arrived so far
 * first. A GET stream, open for the session's life, is written to its connection as it comes,
 * bounded by `unread`. An SSE stream opens with a comment so the status and headers leave at once
 * (Node holds them until the first byte, and a GET stream may stay quiet for minutes).
 */
export const toResponse = (
  web: Response,
  answersPost: boolean,
  unread?: Unread
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const headers = Object.fromEntries(web.headers)
  const body = web.body
  if (body === null) return Effect.succeed(HttpServerResponse.empty({ status: web.status, headers }))
  const contentType = web.headers.get("content-type") ?? undefined
  const options = { status: web.status, headers, contentType }
  if (!answersPost) {
    const sse = contentType?.startsWith("text/event-stream") === true
    if (unread !== undefined) {
      return Effect.succeed(
        HttpServerResponse.stream(writeThrough(body, unread, sse ? sseOpening : undefined), options)
      )
    }
    const stream = Stream.fromReadableStream({ evaluate: () => body, onError: (cause) => cause })
    return Effect.succeed(
      HttpServerResponse.stream(sse ? Stream.concat(Stream.succeed(sseOpening), stream) : stream, options)
    )
  }
  // Interrupted while gathering (the client went away), the body is cancelled, as the SDK expects.
  const gathered = Effect.callback<Gathered>((resume) => {
    const reader = body.getReader()
    void gather(reader).then((done) => resume(Effect.succeed(done)))
    return Effect.sync(() => {
      void reader.cancel().catch(() => undefined)
    })
  })
  return Effect.map(gathered, ({ chunks, rest }) => {
    if (rest === undefined) return HttpServerResponse.uint8Array(concat(chunks), options)
    const first = contentType?.startsWith("text/event-stream") === true ? [sseOpening, ...chunks] : chunks
    const stream = Stream.fromReadableStream({ evaluate: () => rest, onError: (cause) => cause })
    return HttpServerResponse.stream(
      first.length === 0 ? stream : Stream.concat(Stream.succeed(concat(first)), stream),
      options
    )
  })
}

// A GET stream read on the transport's side as fast as it writes, each chunk handed to the
// connection at once (the response's own stream emits nothing: it ends when this does). The SDK
// queues a stream's events without bound, and so would the connection: past `maxBytes` held by the
// connection beyond its high-water mark its client is not reading, and the stream is ended (every event it held is in the
// event store) for the client to resume with `Last-Event-ID`. What the transport had written
// before the stream was handed over — a resume's replay, bounded by the event store — is held
// beyond the bound. One read waits at a time, and nothing else: no second stream, no queue of
// its own, no fiber reading it.
const writeThrough = (
  source: ReadableStream<Uint8Array>,
  unread: Unread,
  opening: Uint8Array | undefined
): Stream.Stream<never, unknown> =>
  Stream.fromEffectDrain(Effect.callback<void, unknown>((resume) => {
    const reader = source.getReader()
    const { connection, maxBytes } = unread
    let ended = false
    // Nothing counts against the bound until the first turn has ended (the timer let go then).
    let allowance = Number.POSITIVE_INFINITY
    let turn: NodeJS.Immediate | undefined = setImmediate(() => {
      turn = undefined
      allowance = maxBytes + Math.max(connection.writableHighWaterMark, connection.writableLength)
    })
    const end = (exit?: Effect.Effect<void, unknown>) => {
      ended = true
      if (turn !== undefined) clearImmediate(turn)
      if (exit !== undefined) resume(exit)
    }
    const pump = (): void => {
      reader.read().then((read) => {
        if (ended) return
        if (read.done) return end(Effect.void)
        connection.write(read.value)
        if (connection.writableLength <= allowance) return pump()
        unread.overflow()
        void reader.cancel().catch(() => undefined)
        end(Effect.fail(new Error(`more than ${maxBytes} bytes unread`)))
      }, (cause: unknown) => {
        if (!ended) end(Effect.fail(cause))
      })
    }
    if (opening !== undefined) connection.write(opening)
    pump()
    // The client went away: cancelling the transport's stream is how the SDK learns of it.
    return Effect.sync(() => {
      end()
      void reader.cancel().catch(() => undefined)
    })
  }))

// What the body of a POST says, read before the transport sees it: the protocol version an
// `initialize` asks for, the requests it carries, the requests it cancels.

/** The version an `initialize` negotiates: the one asked for when the SDK speaks it, else its latest. */
export const initializeVersion = (body: unknown): string => {
  const message: unknown = Array.isArray(body) ? body[0] : body
  if (typeof message !== "object" || message === null || !("params" in message)) return LATEST_PROTOCOL_VERSION
  const params: unknown = message.params
  const asked = typeof params === "object" && params !== null && "protocolVersion" in params ? params.protocolVersion
    : undefined
  return typeof asked === "string" && Eras.sessionVersions.includes(asked) ? asked : LATEST_PROTOCOL_VERSION
}

/** The params of the `initialize` a body carries. */
export const initializeParams = (body: unknown): unknown => {
  const message: unknown = Array.isArray(body) ? body.find(isInitializeRequest) : body
  return typeof message === "object" && message !== null && "params" in message ? message.params : undefined
}

const messagesOf = (body: unknown): ReadonlyArray<unknown> => Array.isArray(body) ? body : [body]

// The ids of the requests a body carries: every message with a method and an id. A message the SDK
// then refuses is counted no longer than its response takes, so the look can be this cheap.
export const requestIds = (body: unknown): ReadonlyArray<unknown> =>
  messagesOf(body).flatMap((message) =>
    typeof message === "object" && message !== null && "method" in message && "id" in message &&
      (typeof message.id === "string" || typeof message.id === "number")
      ? [message.id]
      : []
  )

// The body without the requests of the given ids (a single message that goes leaves an empty batch).
export const withoutRequests = (body: unknown, ids: ReadonlyArray<unknown>): unknown => {
  const kept = messagesOf(body).filter((message) =>
    !(typeof message === "object" && message !== null && "method" in message && "id" in message &&
      ids.includes(message.id))
  )
  return Array.isArray(body) ? kept : kept.length === 0 ? [] : kept[0]
}

// Whether a body carries no message at all.
export const isEmpty = (body: unknown): boolean => Array.isArray(body) && body.length === 0

export const cancelledIds = (body: unknown): ReadonlyArray<unknown> =>
  messagesOf(body).flatMap((message) => {
    if (
      typeof message !== "object" || message === null || !("method" in message) ||
      message.method !== "notifications/cancelled"
    ) return []
    const cancelled = CancelledNotificationSchema.safeParse(message)
    return cancelled.success && cancelled.data.params.requestId !== undefined ? [cancelled.data.params.requestId] : []
  })

export const initializes = (body: unknown): boolean =>
  Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body)
