/**
 * The transport a connection hands to the revision its client opened with.
 *
 * The revision is known only once the first message has arrived, and the path that serves it is
 * set up after that (the 2026 one is even loaded then); a client that writes its requests without
 * waiting (`… | server`) has the next ones on the wire already. So every message is held from its
 * arrival until the path starts the channel, then delivered in order: none is lost, none overtakes
 * the one that opened the connection.
 *
 * The channel also counts the client's requests awaiting their answers, from arrival until the
 * answer is handed to the transport (or the client cancelled the request, which gets none), so a
 * connection whose input has ended can let them finish before it closes. (The SDK's own `send`
 * resolves once its stream has taken the bytes, no later; waiting on it cost each call two promises.)
 * The count lives at the SDK's callback boundary, where messages come and go; what waits on it
 * waits on a `Latch`, open while none is awaited.
 *
 * @internal
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js"
import * as Latch from "effect/Latch"
import type * as Effect from "effect/Effect"
import type * as McpTransport from "../../protocol/Transport.ts"

/**
 * A transport whose messages wait for its user, and whose requests are counted until answered. The
 * one place a transport handed in by an app (`McpTransport.Transport`) becomes the SDK's type the
 * serving paths speak.
 */
export interface Channel {
  /** Handed to the path serving the connection: its `start` delivers what was held, in order. */
  readonly transport: Transport
  /** Completes once no request of the client's awaits its answer (at once when none does). */
  readonly idle: Effect.Effect<void>
  /** How many of the client's requests await their answers now. */
  readonly awaited: () => number
}

// Answered only when the channel ends (a 2026 listen stream): never waited for.
const untilTheEnd = "subscriptions/listen"

// A JSON-RPC id is a string or a number (1 and "1" are two ids, as they are two Set entries).
const isId = (id: unknown): id is string | number => typeof id === "string" || typeof id === "number"

interface Loose {
  readonly id?: unknown
  readonly method?: unknown
  readonly params?: { readonly requestId?: unknown } | undefined
}

/**
 * Wrap `inner` (not yet started): `first` hears the first message held, and says whether it decided
 * the path; a message that decided nothing (a `server/discover` its hook answers itself) is not
 * held, and the next one is heard in its place. `closed` hears the transport's close after the path.
 */
export const make = (
  inner: McpTransport.Transport,
  hooks: { readonly first: (message: McpTransport.Message) => boolean; readonly closed: () => void }
): Channel => {
  const awaiting = new Set<string | number>()
  const idle = Latch.makeUnsafe(true)
  const settle = (id: unknown) => {
    if (isId(id) && awaiting.delete(id) && awaiting.size === 0) idle.openUnsafe()
  }
  let held: Array<readonly [McpTransport.Message, unknown]> | undefined = []
  // The SDK's message types are the wire's shapes, checked by the path that reads them.
  const deliver = (message: McpTransport.Message, extra: unknown) =>
    outer.onmessage?.(message as JSONRPCMessage, extra as MessageExtraInfo | undefined)
  let decided = false
  const outer: Transport = {
    start: async () => {
      queueMicrotask(() => {
        const waiting = held ?? []
        // A message arriving while these are delivered joins the end of this list.
        for (let i = 0; i < waiting.length; i++) {
          const [message, extra] = waiting[i]!
          deliver(message, extra)
        }
        held = undefined
      })
    },
    send: (message, options) => {
      const { id, method } = message as Loose
      const sent = inner.send(message, options)
      if (method === undefined) settle(id)
      return sent
    },
    close: () => inner.close(),
    setProtocolVersion: (version) => inner.setProtocolVersion?.(version),
    get sessionId() {
      return inner.sessionId
    }
  }
  inner.onmessage = (message, extra) => {
    const { id, method, params } = message as Loose
    if (typeof method === "string") {
      if (isId(id) && method !== untilTheEnd) {
        awaiting.add(id)
        idle.closeUnsafe()
      } else if (id === undefined && method === "notifications/cancelled") {
        settle(params?.requestId)
      }
    }
    if (held === undefined) return deliver(message, extra)
    if (held.length > 0 || decided) return void held.push([message, extra])
    decided = hooks.first(message)
    if (decided) held.push([message, extra])
  }
  inner.onclose = () => {
    outer.onclose?.()
    hooks.closed()
  }
  inner.onerror = (error) => outer.onerror?.(error)
  return { transport: outer, idle: idle.await, awaited: () => awaiting.size }
}
