// Raw Streamable HTTP for tests that check the exchange itself: requests with exactly the headers
// given, sessions opened by hand, SSE bodies read as events.
import { assert } from "@effect/vitest"
import { Effect, Schedule, Stream } from "effect"

export const headers = (session?: string) => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-11-25",
  ...(session === undefined ? {} : { "mcp-session-id": session })
})

export const post = (url: string, body: unknown, session?: string, signal?: AbortSignal) =>
  Effect.promise(() =>
    fetch(url, {
      method: "POST",
      headers: headers(session),
      body: JSON.stringify(body),
      ...(signal === undefined ? {} : { signal })
    })
  )

export const text = (response: Response) => Effect.promise(() => response.text())

export const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1.0.0" } }
}

/** Open a session with raw requests: `initialize`, then `notifications/initialized`. */
export const rawSession = (url: string) =>
  Effect.gen(function*() {
    const init = yield* post(url, initialize)
    assert.strictEqual(init.status, 200)
    const session = init.headers.get("mcp-session-id") ?? ""
    yield* text(init)
    const initialized = yield* post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, session)
    assert.strictEqual(initialized.status, 202)
    return session
  })

export const openGet = (url: string, session: string, lastEventId?: string) =>
  Effect.promise(() =>
    fetch(url, {
      headers: {
        accept: "text/event-stream",
        "mcp-session-id": session,
        "mcp-protocol-version": "2025-11-25",
        ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId })
      }
    })
  )

/**
 * Resume the GET stream from `lastEventId`, once the server has seen the stream it replaces go
 * (until then it answers 409).
 */
export const resumeGet = (url: string, session: string, lastEventId?: string) =>
  openGet(url, session, lastEventId).pipe(
    Effect.repeat({
      until: (response) => response.status !== 409,
      schedule: Schedule.spaced("20 millis"),
      times: 100
    })
  )

export interface SseEvent {
  readonly id: string | undefined
  readonly data: string
}

/** The events of an SSE body (comments and priming events without data skipped). */
export const events = (response: Response): Stream.Stream<SseEvent> =>
  Stream.fromReadableStream({ evaluate: () => response.body ?? new ReadableStream<Uint8Array>(), onError: (e) => e })
    .pipe(
      Stream.orDie,
      Stream.decodeText,
      Stream.splitLines,
      Stream.mapAccum(() => ({ id: undefined as string | undefined, data: [] as Array<string> }), (event, line) => {
        if (line === "")
          return [
            { id: undefined, data: [] },
            event.data.length === 0 ? [] : [{ id: event.id, data: event.data.join("\n") }]
          ]
        if (line.startsWith("id:")) return [{ ...event, id: line.slice(3).trim() }, []]
        if (line.startsWith("data:")) return [{ ...event, data: [...event.data, line.slice(5).trim()] }, []]
        return [event, []]
      }),
      Stream.filter((event) => event.data !== "")
    )

/** The JSON-RPC error code of a JSON body, if it is an error. */
export const errorCode = (body: string): number | undefined => {
  const parsed: unknown = JSON.parse(body)
  return typeof parsed === "object" && parsed !== null && "error" in parsed && typeof parsed.error === "object" &&
      parsed.error !== null &&
      "code" in parsed.error && typeof parsed.error.code === "number"
    ? parsed.error.code
    : undefined
}
