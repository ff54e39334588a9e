/**
 * The transport a Streamable HTTP session's SDK server is connected to: the SDK's web-standard
 * transport, with a direct road beside it for the usual POST — one request, whose answer is the
 * first thing it produces.
 *
 * The SDK's transport answers every POST carrying a request with an SSE stream: it validates the
 * message several times over, stores a priming event and the answer for resumption, frames both,
 * and the face then reads the stream back to answer as JSON when it can (`HttpResponse`). A plain
 * call needs none of it: its message is delivered to the SDK server as the transport delivers one,
 * and its answer, taken as the server sends it, is the JSON body — stored nowhere, since only an
 * SSE stream can be resumed. The moment the request produces anything else first (a log line,
 * progress, a question to the client, its handler closing the stream for the client to poll), it
 * is handed to the SDK's transport as it would have been at the start — the message kept from the
 * server, which has it already — and everything it sends from then on goes through that
 * transport: the client gets the same stored, resumable SSE stream it always did.
 *
 * A session shared in Redis takes the road too, at whichever instance the call reached: that
 * instance's replica of the session runs the call (its `replicaTransport` wraps this one), and the
 * answer goes back on the request it came in, so nothing of a plain call is written to Redis. A
 * request that streams is handed to the SDK's transport, whose event store is then Redis, and its
 * client resumes it at any instance.
 *
 * @since 0.1.0
 */
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js"
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  ErrorCode,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId
} from "@modelcontextprotocol/sdk/types.js"
import * as Eras from "../../../protocol/Eras.ts"
import * as Effect from "effect/Effect"

/** How a request taken directly was answered: its answer as JSON text, or the SDK's stream. */
export type Outcome =
  | { readonly _tag: "Answer"; readonly json: string }
  | { readonly _tag: "Stream"; readonly response: Response }

/** The session's transport, with the direct road. */
export interface Direct extends Transport {
  /**
   * Deliver a POST's body to the SDK server directly when it is one plain request the SDK's
   * transport would accept as it stands; `undefined` otherwise (the SDK's transport takes it).
   * `url` is the request's, as the SDK's transport would read it; `request` builds what that
   * transport reads, should the request be handed to it.
   */
  readonly post: (
    body: unknown,
    headers: Readonly<Record<string, string>>,
    url: string,
    request: () => Request,
    authInfo?: AuthInfo
  ) => Effect.Effect<Outcome> | undefined
}

interface Waiting {
  readonly id: RequestId
  readonly message: JSONRPCMessage
  readonly request: () => Request
  readonly authInfo: AuthInfo | undefined
  resume: ((outcome: Outcome) => void) | undefined
  /** Set once the request is the SDK transport's: settled when that transport has taken it. */
  handedOver: Promise<void> | undefined
  /** While the SDK's transport takes it: its delivery of the message is not the server's to see twice. */
  handing: boolean
  /** The client went away: a stream handed over later is cancelled, not read. */
  abandoned: boolean
}

const plainKeys = new Set(["jsonrpc", "id", "method", "params"])

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The request a body is when the SDK's own schema accepts it as it stands, told without running
 * it: anything less plain (a `_meta`, a key of its own, an `initialize`, params the schema would
 * copy differently) is left to the SDK's transport to judge.
 */
export const plainRequest = (body: unknown): (JSONRPCMessage & { readonly id: RequestId }) | undefined => {
  if (!isRecord(body) || body.jsonrpc !== "2.0" || typeof body.method !== "string" || body.method === "initialize") {
    return undefined
  }
  const { id, params } = body
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined
  // The SDK's schema copies params, and a copy loses an own `__proto__` that JSON.parse made.
  if (params !== undefined && (!isRecord(params) || "_meta" in params || Object.hasOwn(params, "__proto__"))) {
    return undefined
  }
  for (const key in body) if (!plainKeys.has(key)) return undefined
  return body as unknown as JSONRPCMessage & { readonly id: RequestId }
}

// The headers the SDK's transport would refuse a POST for are its to refuse.
const acceptable = (headers: Readonly<Record<string, string>>): boolean => {
  const accept = headers["accept"]
  const version = headers["mcp-protocol-version"]
  return accept !== undefined && accept.includes("application/json") && accept.includes("text/event-stream") &&
    (version === undefined || Eras.sessionVersions.includes(version))
}

const isAnswer = (message: JSONRPCMessage): message is JSONRPCMessage & { readonly id: RequestId } =>
  "id" in message && !("method" in message)

const isRequest = (message: JSONRPCMessage): message is JSONRPCMessage & { readonly id: RequestId } =>
  "id" in message && "method" in message

const closedAnswer = (id: RequestId): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    error: { code: ErrorCode.ConnectionClosed, message: "The session ended before the request was answered" }
  })

const idInUse = (id: RequestId): JSONRPCMessage => ({
  jsonrpc: "2.0",
  id,
  error: {
    code: ErrorCode.InvalidRequest,
    message: `Request id ${JSON.stringify(id)} is in use by a request still in flight`
  }
})

// An idle session has nothing waiting: until it does, its two tables are these empty ones every
// session shares, read and never written (each is replaced by the session's own before its first write).
const noneWaiting: ReadonlyMap<RequestId, Waiting> = new Map()
const noneViaSdk: ReadonlySet<RequestId> = new Set()

/**
 * `sdk` with the direct road: connect the SDK server to the result, never to `sdk` itself.
 */
export const make = (sdk: WebStandardStreamableHTTPServerTransport): Direct => {
  // The SDK server's view of it: what it sends is passed on with the options it gave.
  const inner: Transport = sdk
  let waiting = noneWaiting as Map<RequestId, Waiting>
  // Requests the SDK's transport took, until answered: their answers are its to route, whatever
  // the road holds under the same id.
  let viaSdk = noneViaSdk as Set<RequestId>
  let closed = false

  const settle = (entry: Waiting, outcome: Outcome) => {
    const resume = entry.resume
    entry.resume = undefined
    resume?.(outcome)
  }

  const handOver = (entry: Waiting): Promise<void> => {
    if (entry.handedOver !== undefined) return entry.handedOver
    entry.handing = true
    entry.handedOver = sdk.handleRequest(entry.request(), {
      parsedBody: entry.message,
      ...(entry.authInfo === undefined ? {} : { authInfo: entry.authInfo })
    }).then(
      (response) => {
        if (entry.abandoned) void response.body?.cancel().catch(() => undefined)
        else settle(entry, { _tag: "Stream", response })
      },
      (error: unknown) => {
        settle(entry, { _tag: "Answer", json: closedAnswer(entry.id) })
        direct.onerror?.(error instanceof Error ? error : new Error(String(error)))
      }
    ).finally(() => {
      entry.handing = false
    })
    return entry.handedOver
  }

  const extraFor = (entry: Waiting, headers: Readonly<Record<string, string>>, url: string): MessageExtraInfo => {
    const version = headers["mcp-protocol-version"] ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION
    const requestInfo = { headers, url: new URL(url) }
    const authInfo = entry.authInfo === undefined ? {} : { authInfo: entry.authInfo }
    // Offered where the SDK's transport offers them: a stream its client can resume.
    if (version < "2025-11-25") return { requestInfo, ...authInfo }
    return {
      requestInfo,
      ...authInfo,
      closeSSEStream: () => {
        if (waiting.get(entry.id) === entry) void handOver(entry).then(() => sdk.closeSSEStream(entry.id))
      },
      closeStandaloneSSEStream: () => sdk.closeStandaloneSSEStream()
    }
  }

  const post: Direct["post"] = (body, headers, url, request, authInfo) => {
    const message = plainRequest(body)
    if (message === undefined || closed || sdk.sessionId === undefined || !acceptable(headers)) return undefined
    if (waiting.has(message.id) || viaSdk.has(message.id) || direct.onmessage === undefined) return undefined
    const onmessage = direct.onmessage
    return Effect.callback<Outcome>((resume) => {
      const entry: Waiting = {
        id: message.id,
        message,
        request,
        authInfo,
        resume: (outcome) => resume(Effect.succeed(outcome)),
        handedOver: undefined,
        handing: false,
        abandoned: false
      }
      if (waiting === noneWaiting) waiting = new Map()
      waiting.set(message.id, entry)
      onmessage(message, extraFor(entry, headers, url))
      return Effect.sync(() => {
        entry.abandoned = true
        entry.resume = undefined
        if (entry.handedOver === undefined && waiting.get(entry.id) === entry) waiting.delete(entry.id)
      })
    })
  }

  const send = (message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> => {
    const id = isAnswer(message) ? message.id : options?.relatedRequestId
    if (id !== undefined && viaSdk.has(id)) {
      if (isAnswer(message)) viaSdk.delete(id)
      return inner.send(message, options)
    }
    const entry = id === undefined ? undefined : waiting.get(id)
    if (entry === undefined) return inner.send(message, options)
    if (entry.handedOver === undefined && isAnswer(message)) {
      waiting.delete(entry.id)
      settle(entry, { _tag: "Answer", json: JSON.stringify(message) })
      return Promise.resolve()
    }
    return handOver(entry).then(() => {
      if (isAnswer(message) && waiting.get(entry.id) === entry) waiting.delete(entry.id)
      return inner.send(message, options)
    })
  }

  const direct: Direct = {
    post,
    send,
    start: () => sdk.start(),
    close: () => sdk.close(),
    get sessionId() {
      return sdk.sessionId
    }
  }

  sdk.onmessage = (message, extra) => {
    if (isRequest(message)) {
      const held = waiting.get(message.id)
      if (held?.handing === true) return
      // A client must not reuse an id in flight; answered so, rather than with the other's answer.
      if (held !== undefined) {
        void inner.send(idInUse(message.id)).catch(() => undefined)
        return
      }
      if (viaSdk === noneViaSdk) viaSdk = new Set()
      viaSdk.add(message.id)
    }
    direct.onmessage?.(message, extra)
  }
  sdk.onerror = (error) => direct.onerror?.(error)
  // A request still waiting when the session ends is answered so, its client left hanging no longer.
  sdk.onclose = () => {
    closed = true
    for (const entry of waiting.values()) {
      if (entry.handedOver === undefined) settle(entry, { _tag: "Answer", json: closedAnswer(entry.id) })
    }
    waiting.clear()
    viaSdk.clear()
    direct.onclose?.()
  }
  return direct
}
