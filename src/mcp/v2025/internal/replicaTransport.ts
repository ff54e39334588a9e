/**
 * The transport a session's replica serves through, when one host's session is served by several
 * instances: what a client sends to one instance may belong to a request another one made.
 *
 * Every instance's SDK server numbers the requests it sends the client (an elicitation, a sampling)
 * from zero, and the client answers by a POST that any instance may receive. So the ids a replica
 * sends carry who sent them — `<instance>~<replica>~<n>` — and an answer to an id of another
 * instance is handed to `route.answer` (which publishes it to that instance) instead of this
 * server, which would only find it unknown; an answer to this replica's own id is handed back with
 * the number its server gave. A client's `notifications/cancelled` may name a request another
 * instance serves: it is delivered here and handed to `route.cancelled` too. `inject` delivers a
 * message that arrived from another instance as if this transport had received it.
 *
 * @since 0.1.0
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js"

/** Where what belongs elsewhere goes. */
export interface Route {
  /** A client's answer to a request `instance` sent. */
  readonly answer: (instance: string, message: JSONRPCMessage) => void
  /** A client's cancellation, which may name a request served elsewhere. */
  readonly cancelled: (message: JSONRPCMessage) => void
}

/** The replica's transport: the SDK server's view, and the door for messages from elsewhere. */
export interface Routed extends Transport {
  readonly inject: (message: JSONRPCMessage) => void
}

type OnMessage = NonNullable<Transport["onmessage"]>

const separator = "~"

const isRequest = (
  message: JSONRPCMessage
): message is JSONRPCMessage & { readonly id: string | number; readonly method: string } =>
  "method" in message && "id" in message

const isAnswer = (message: JSONRPCMessage): message is JSONRPCMessage & { readonly id: string | number } =>
  !("method" in message) && "id" in message

const isCancellation = (message: JSONRPCMessage): boolean =>
  "method" in message && message.method === "notifications/cancelled"

/** The instance a routed id names, if it is one. */
export const instanceOf = (id: unknown): string | undefined => {
  if (typeof id !== "string") return undefined
  const parts = id.split(separator)
  return parts.length === 3 && parts[0] !== "" ? parts[0] : undefined
}

/** `transport` for one replica (`replica` tells it from earlier replicas of the session here). */
export const make = (transport: Transport, instance: string, replica: string, route: Route): Routed => {
  const tag = `${instance}${separator}${replica}${separator}`
  let handler: OnMessage | undefined
  // Our own ids go back to the numbers the server gave them; anything else stays as it came.
  const own = (id: unknown): number | undefined =>
    typeof id === "string" && id.startsWith(tag) ? Number(id.slice(tag.length)) : undefined
  const tagged = (message: JSONRPCMessage): JSONRPCMessage => {
    if (isRequest(message)) return { ...message, id: `${tag}${message.id}` }
    // The server cancelling a request it sent names it by the number it gave it.
    if (isCancellation(message) && "params" in message && typeof message.params?.["requestId"] === "number") {
      return {
        ...message,
        params: { ...message.params, requestId: `${tag}${message.params["requestId"]}` }
      } as JSONRPCMessage
    }
    return message
  }
  const deliver = (message: JSONRPCMessage, extra: MessageExtraInfo | undefined, local: boolean) => {
    if (handler === undefined) return
    if (isAnswer(message)) {
      const id = own(message.id)
      if (id !== undefined) return handler({ ...message, id } as JSONRPCMessage, extra)
      const sender = instanceOf(message.id)
      if (sender !== undefined) {
        // Another instance's (a stale replica of this one's is nobody's now).
        if (local && sender !== instance) route.answer(sender, message)
        return
      }
    } else if (local && isCancellation(message)) {
      route.cancelled(message)
    }
    handler(message, extra)
  }
  return {
    start: () => transport.start(),
    close: () => transport.close(),
    send: (message, options) => transport.send(tagged(message), options),
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
      transport.onmessage = f === undefined ? undefined : (message, extra) => deliver(message, extra, true)
    },
    inject: (message) => deliver(message, undefined, false)
  }
}
