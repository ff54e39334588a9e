/**
 * Choosing, per POST, between a JSON answer and an SSE stream.
 *
 * Streamable HTTP lets a server answer a POST either way. A stream is needed only when the request
 * produces something before its answer — a log line, progress, a question to the client — or when
 * its handler hands the client a resumable stream to poll; a plain call is better answered as one
 * JSON body (one write, nothing for the client to parse as events). A lone plain request is answered
 * so before any stream exists (`internal/httpDirect`); for every other POST the SDK's transport
 * picks one mode for a whole session, so this module reads the stream it produced and settles each
 * response on the first event that decides it: the answers themselves, with nothing before them,
 * become JSON; anything else is replayed, unchanged, as the SSE stream it was.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/**
 * One server-sent event, as far as the choice needs it.
 *
 * @example
 * ```ts
 * import { McpHttpResponse } from "effect-surface/mcp"
 * const events = McpHttpResponse.parseEvents("id: 1\ndata: {}\n\n")
 * ```
 *
 * @since 0.1.0
 */
export interface Event {
  readonly id: string | undefined
  readonly data: string
}

/**
 * Split complete events off the front of an SSE buffer; the rest is what has not fully arrived.
 *
 * @example
 * ```ts
 * import { McpHttpResponse } from "effect-surface/mcp"
 * McpHttpResponse.parseEvents(": hi\n\nid: 7\ndata: {\"a\":1}\n\nid: 8\nda")
 * // { events: [{ id: "7", data: "{\"a\":1}" }], rest: "id: 8\nda" }
 * ```
 *
 * @since 0.1.0
 */
export const parseEvents = (buffer: string): { readonly events: ReadonlyArray<Event>; readonly rest: string } => {
  const events: Array<Event> = []
  let rest = buffer.replace(/\r\n/g, "\n")
  for (let end = rest.indexOf("\n\n"); end !== -1; end = rest.indexOf("\n\n")) {
    const block = rest.slice(0, end)
    rest = rest.slice(end + 2)
    let id: string | undefined
    const data: Array<string> = []
    let fields = 0
    for (const line of block.split("\n")) {
      if (line === "" || line.startsWith(":")) continue
      fields++
      const colon = line.indexOf(":")
      const name = colon === -1 ? line : line.slice(0, colon)
      const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "")
      if (name === "id") id = value
      else if (name === "data") data.push(value)
    }
    // A block of comments alone is not an event.
    if (fields > 0) events.push({ id, data: data.join("\n") })
  }
  return { events, rest }
}

type Message = { readonly id?: unknown; readonly result?: unknown; readonly error?: unknown; readonly method?: unknown }

const messageOf = (data: string): Option.Option<Message> => {
  if (data.trim() === "") return Option.none()
  const parsed = Option.liftThrowable(JSON.parse)(data)
  return Option.filter(parsed, (m): m is Message => typeof m === "object" && m !== null && !Array.isArray(m))
}

const isAnswer = (message: Message): boolean =>
  message.method === undefined && ("result" in message || "error" in message)

/**
 * Settle an SDK answer to a POST that carried `expected` requests: a JSON body when the stream
 * held exactly those answers and nothing before them, the stream itself otherwise. A response that
 * is not an SSE stream, or a POST that expects no answer, is returned as it is.
 *
 * `delivered` is told the stream's first event id once its answers have all been handed on — at
 * once for a JSON body (its client never saw an event id), when the stream ends for one replayed —
 * so its stored events can go: nothing will resume a stream whose answers arrived. A stream that
 * ends before its answers (closed for the client to poll) or is cancelled is never reported.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpHttpResponse } from "effect-surface/mcp"
 *
 * declare const sdkAnswer: Response
 * const settled = McpHttpResponse.settle(sdkAnswer, 1, (eventId) => console.log(`stream of ${eventId} answered`)) // Effect<Response>
 * ```
 *
 * @since 0.1.0
 */
export const settle = (
  response: Response,
  expected: number,
  delivered?: (eventId: string) => void
): Effect.Effect<Response> => {
  const body = response.body
  if (
    expected === 0 || body === null || !(response.headers.get("content-type") ?? "").startsWith("text/event-stream")
  ) {
    return Effect.succeed(response)
  }
  return Effect.promise(async () => {
    const reader = body.getReader()
    const scan = scanner()
    const seen: Array<Uint8Array> = []
    let answered = 0
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      seen.push(value)
      for (const message of scan.chunk(value)) {
        if (!isAnswer(message)) return replay(response, seen, reader, scan, expected, delivered)
        if (++answered === expected) {
          await reader.cancel()
          if (scan.firstId !== undefined) delivered?.(scan.firstId)
          return json(response, expected === 1 ? scan.answers[0] : scan.answers.slice(0, expected))
        }
      }
    }
    // The stream ended before its answers (its handler closed it for the client to poll).
    return replay(response, seen, undefined, scan, expected, delivered)
  })
}

// Reads SSE chunks as they pass: the messages they complete, the answers among them, and the
// stream's first event id. A priming event (an id, no data) only makes the stream resumable.
const scanner = () => {
  const decoder = new TextDecoder()
  const answers: Array<Message> = []
  let buffer = ""
  const state = {
    answers,
    firstId: undefined as string | undefined,
    chunk: (value: Uint8Array): ReadonlyArray<Message> => {
      const parsed = parseEvents(buffer + decoder.decode(value, { stream: true }))
      buffer = parsed.rest
      const messages: Array<Message> = []
      for (const event of parsed.events) {
        if (state.firstId === undefined && event.id !== undefined) state.firstId = event.id
        const message = messageOf(event.data)
        if (Option.isNone(message)) continue
        if (isAnswer(message.value)) answers.push(message.value)
        messages.push(message.value)
      }
      return messages
    }
  }
  return state
}

const json = (response: Response, payload: unknown): Response => {
  const headers = new Headers(response.headers)
  headers.set("content-type", "application/json")
  headers.delete("cache-control")
  return new Response(JSON.stringify(payload), { status: response.status, headers })
}

// The events read so far, then whatever is still coming, exactly as the SDK wrote them; what is
// still coming is scanned for the rest of the answers.
const replay = (
  response: Response,
  seen: ReadonlyArray<Uint8Array>,
  reader: ReadableStreamDefaultReader<Uint8Array> | undefined,
  scan: ReturnType<typeof scanner>,
  expected: number,
  delivered: ((eventId: string) => void) | undefined
): Response =>
  new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of seen) controller.enqueue(chunk)
        if (reader === undefined) controller.close()
      },
      async pull(controller) {
        if (reader === undefined) return
        const { done, value } = await reader.read()
        if (done) {
          controller.close()
          if (scan.answers.length >= expected && scan.firstId !== undefined) delivered?.(scan.firstId)
          return
        }
        if (delivered !== undefined) scan.chunk(value)
        controller.enqueue(value)
      },
      cancel(reason) {
        return reader?.cancel(reason)
      }
    }),
    { status: response.status, headers: response.headers }
  )
