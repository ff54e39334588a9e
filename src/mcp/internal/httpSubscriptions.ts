/**
 * The cap on one Streamable HTTP session's subscriptions.
 *
 * A subscription holds a fiber and, through the pool, a lease on a connection for as long as the
 * session lives, so a public server bounds how many one session may hold. The SDK server's
 * `resources/subscribe` handler belongs to the session; this cap stands between it and the
 * session's transport instead: a subscribe to one more URI than the cap allows is answered with
 * an error on the transport itself, and the server never sees it. A URI counts from the moment its
 * subscribe is admitted until it is unsubscribed or its subscription ends, so concurrent
 * subscribes cannot pass the cap together.
 *
 * @since 0.1.0
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from "@modelcontextprotocol/sdk/types.js"

/** The JSON-RPC error a subscribe past the cap is answered with. */
export const tooMany = (max: number) => ({
  code: -32000,
  message: `Too many subscriptions: a session may hold at most ${max}; unsubscribe from one first`
})

type OnMessage = NonNullable<Transport["onmessage"]>

interface Request {
  readonly id: RequestId
  readonly method: string
  readonly params?: { readonly [key: string]: unknown }
}

const isRequest = (message: JSONRPCMessage): message is JSONRPCMessage & Request =>
  "method" in message && "id" in message

const answerId = (message: JSONRPCMessage): RequestId | undefined =>
  "id" in message && !("method" in message) ? message.id : undefined

const cancelledId = (message: JSONRPCMessage): RequestId | undefined => {
  if (!("method" in message) || message.method !== "notifications/cancelled") return undefined
  const id: unknown = message.params?.["requestId"]
  return typeof id === "string" || typeof id === "number" ? id : undefined
}

/**
 * `transport` as the session's server sees it, with subscribes past `max` answered as refused.
 * `subscribed` says which URIs the session holds now (read once the session is connected).
 */
export const capped = (transport: Transport, max: number, subscribed: () => ReadonlyArray<string>): Transport => {
  // Subscribes admitted and not yet answered, by request id.
  const admitted = new Map<RequestId, string>()
  let handler: OnMessage | undefined
  const holds = (): ReadonlySet<string> => new Set([...subscribed(), ...admitted.values()])

  const receive = (message: JSONRPCMessage, extra: MessageExtraInfo | undefined, deliver: OnMessage) => {
    const cancelled = cancelledId(message)
    if (cancelled !== undefined) admitted.delete(cancelled)
    if (isRequest(message) && message.method === "resources/subscribe" && typeof message.params?.["uri"] === "string") {
      const uri = message.params["uri"]
      const held = holds()
      if (!held.has(uri) && held.size >= max) {
        void transport.send({ jsonrpc: "2.0", id: message.id, error: tooMany(max) }).catch(() => undefined)
        return
      }
      admitted.set(message.id, uri)
    }
    deliver(message, extra)
  }

  const view: Transport = {
    start: () => transport.start(),
    close: () => transport.close(),
    send: (message, options) => {
      const id = answerId(message)
      if (id !== undefined) admitted.delete(id)
      return transport.send(message, options)
    },
    get sessionId() {
      return transport.sessionId
    },
    get setProtocolVersion() {
      return transport.setProtocolVersion?.bind(transport)
    },
    get onclose() {
      return transport.onclose
    },
    set onclose(f) {
      transport.onclose = f
    },
    get onerror() {
      return transport.onerror
    },
    set onerror(f) {
      transport.onerror = f
    },
    get onmessage() {
      return handler
    },
    set onmessage(f) {
      handler = f
      transport.onmessage = f === undefined ? undefined : (message, extra) => receive(message, extra, f)
    }
  }
  return view
}
