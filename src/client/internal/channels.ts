/**
 * Where a 2026-07-28 request travels: one POST per request over HTTP, or one shared message channel
 * (a stdio child, an in-memory pair).
 *
 * The revision has no session, so a channel only carries a request out and its response back, with
 * the notices the server sends on the way (progress, log lines, a listen stream's changes). Over HTTP
 * the response is JSON or an event stream; dropping the stream cancels the request on the server.
 * On a shared channel responses are matched to requests by id, and an interrupted request is
 * cancelled with `notifications/cancelled`. Either way an interruption stops the request.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { LinkError } from "../../surface/LinkError.ts"
import * as Remote from "./remote.ts"

/** A JSON-RPC request as sent: its id, method and params, and the headers HTTP carries it with. */
export interface Outgoing {
  readonly id: number
  readonly message: { readonly [key: string]: unknown }
  readonly headers: Readonly<Record<string, string>>
}

/** A notice the server sent while a request ran. */
export type OnNotice = (
  notice: { readonly method: string; readonly params: { readonly [key: string]: unknown } }
) => void

/** What came back: the HTTP status (200 on a message channel) and the JSON-RPC response, if one could be read. */
export interface Reply {
  readonly status: number
  readonly message: unknown
}

/**
 * A way to send a request and read its response.
 */
export interface Channel {
  readonly exchange: (outgoing: Outgoing, onNotice: OnNotice) => Effect.Effect<Reply, Remote.Failure>
  /** Calls `listener` once when the channel closes (never, for HTTP: each request is its own). */
  readonly onClose: (listener: () => void) => void
}

const isRecord = (u: unknown): u is { readonly [key: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const noticeOf = (message: unknown): Parameters<OnNotice>[0] | undefined =>
  isRecord(message) && typeof message["method"] === "string" && !("id" in message)
    ? { method: message["method"], params: isRecord(message["params"]) ? message["params"] : {} }
    : undefined

const isResponseTo = (message: unknown, id: number) =>
  isRecord(message) && message["id"] === id && ("result" in message || "error" in message)

// The events of a response stream, until the one answering `id`; every notice on the way is handed on.
const readEvents = async (body: ReadableStream<Uint8Array>, id: number, onNotice: OnNotice): Promise<unknown> => {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ""
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      buffer += decoder.decode(value, { stream: true })
      const events = buffer.split(/\r?\n\r?\n/)
      buffer = events.pop() ?? ""
      for (const event of events) {
        const data = event.split(/\r?\n/).filter((line) => line.startsWith("data:")).map((line) =>
          line.slice(5).replace(/^ /, "")
        ).join("\n")
        if (data.trim() === "") continue
        let message: unknown
        try {
          message = JSON.parse(data)
        } catch {
          continue
        }
        if (isResponseTo(message, id)) return message
        const notice = noticeOf(message)
        if (notice !== undefined) onNotice(notice)
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
  throw new LinkError({ phase: "call", reason: "the response stream ended before its answer came" })
}

const post = async (
  url: URL,
  fetch: typeof globalThis.fetch,
  headers: Readonly<Record<string, string>>,
  outgoing: Outgoing,
  onNotice: OnNotice,
  signal: AbortSignal
): Promise<Reply> => {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      ...headers,
      ...outgoing.headers,
      "content-type": "application/json",
      accept: "application/json, text/event-stream"
    },
    body: JSON.stringify(outgoing.message),
    signal
  })
  const type = response.headers.get("content-type") ?? ""
  if (response.ok && type.includes("text/event-stream") && response.body !== null)
    return { status: response.status, message: await readEvents(response.body, outgoing.id, onNotice) }
  const text = await response.text()
  let message: unknown = undefined
  try {
    message = text === "" ? undefined : JSON.parse(text)
  } catch {
    message = undefined
  }
  return { status: response.status, message }
}

/**
 * A channel of POSTs to `url`, each through `fetch` (the toolset's guarded one) with `headers` (the
 * entry's own) beside the request's.
 */
export const http = (url: URL, fetch: typeof globalThis.fetch, headers: Readonly<Record<string, string>>): Channel => ({
  exchange: (outgoing, onNotice) =>
    Effect.tryPromise({
      try: (signal) => post(url, fetch, headers, outgoing, onNotice, signal),
      catch: Remote.classify
    }),
  onClose: () => undefined
})

interface Pending {
  readonly resume: (reply: Effect.Effect<Reply, Remote.Failure>) => void
  readonly onNotice: OnNotice
}

const subscriptionOf = (params: { readonly [key: string]: unknown }): unknown => {
  const meta = params["_meta"]
  return isRecord(meta) ? meta["io.modelcontextprotocol/subscriptionId"] : undefined
}

/**
 * A channel over a started message transport, for as long as the scope lasts: responses are matched
 * to their requests by id, a notice goes to the request it names (a listen stream's subscription id,
 * or a progress token equal to a request's id), and when the transport closes every request still
 * waiting fails as the connection's loss.
 */
export const messages = (transport: Transport): Effect.Effect<Channel, never, Scope.Scope> =>
  Effect.gen(function*() {
    const pending = new Map<number, Pending>()
    const listeners = new Set<() => void>()
    let closed = false
    const lose = () => {
      if (closed) return
      closed = true
      for (const [, waiting] of pending) {
        waiting.resume(
          Effect.fail(new LinkError({ phase: "call", reason: "the connection closed before the answer came" }))
        )
      }
      pending.clear()
      for (const listener of listeners) listener()
    }
    transport.onmessage = (message: unknown) => {
      if (isRecord(message) && typeof message["id"] === "number" && ("result" in message || "error" in message)) {
        const waiting = pending.get(message["id"])
        if (waiting === undefined) return
        pending.delete(message["id"])
        waiting.resume(Effect.succeed({ status: 200, message }))
        return
      }
      const notice = noticeOf(message)
      if (notice === undefined) return
      const target = subscriptionOf(notice.params) ?? notice.params["progressToken"]
      if (typeof target === "number") pending.get(target)?.onNotice(notice)
    }
    transport.onclose = lose
    yield* Effect.addFinalizer(() => Effect.sync(lose))
    return {
      exchange: (outgoing, onNotice) =>
        Effect.callback<Reply, Remote.Failure>((resume) => {
          if (closed) {
            resume(Effect.fail(new LinkError({ phase: "closed", reason: "the connection had closed" })))
            return
          }
          pending.set(outgoing.id, { resume, onNotice })
          transport.send(outgoing.message as unknown as JSONRPCMessage).catch((error: unknown) => {
            if (pending.delete(outgoing.id)) resume(Effect.fail(Remote.classify(error)))
          })
          return Effect.sync(() => {
            if (!pending.delete(outgoing.id) || closed) return
            void transport.send({
              jsonrpc: "2.0",
              method: "notifications/cancelled",
              params: { requestId: outgoing.id, reason: "the client stopped waiting" }
            }).catch(() => undefined)
          })
        }),
      onClose: (listener) => {
        if (closed) listener()
        else listeners.add(listener)
      }
    } satisfies Channel
  })

/**
 * A started transport as the SDK's client can be handed it after a probe on it failed: `start`
 * does nothing (it has started), everything else is the transport's own. The probe's handlers are
 * released first: the SDK chains whatever handlers it finds, and would run them on every message.
 */
export const started = (transport: Transport): Transport => {
  transport.onmessage = undefined
  transport.onclose = undefined
  const adapter: Transport = {
    start: () => Promise.resolve(),
    send: transport.send.bind(transport),
    close: () => transport.close()
  }
  Object.defineProperties(adapter, {
    onmessage: {
      set: (f: Transport["onmessage"]) => {
        transport.onmessage = f
      },
      get: () => transport.onmessage
    },
    onclose: {
      set: (f: Transport["onclose"]) => {
        transport.onclose = f
      },
      get: () => transport.onclose
    },
    onerror: {
      set: (f: Transport["onerror"]) => {
        transport.onerror = f
      },
      get: () => transport.onerror
    },
    sessionId: { get: () => transport.sessionId }
  })
  if (transport.setProtocolVersion !== undefined) {
    const set = transport.setProtocolVersion.bind(transport)
    adapter.setProtocolVersion = set
  }
  return adapter
}
