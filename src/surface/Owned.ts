/**
 * A connection whose transport someone must close: the shape a dial answers with.
 *
 * A client reached over a socket (the wire face) or a child process comes with a transport that
 * outlives no one: whoever holds the client must close it, and should hear when it closes by itself.
 * The contract names that shape once, so the surface's dialers produce it and every pool in the core
 * consumes it without either importing the other.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"

/**
 * A connection a dial opened, handed to its new owner: `dispose` closes its transport (run at most
 * once, on every exit path; its failure is ignored) and `onClose` subscribes to the transport
 * announcing its own close. Omit `onClose` only when there is nothing that could announce it.
 * `settlesPending` says the client itself fails every call still pending when that close comes
 * (with a `LinkError`, as the MCP SDK's `Client` does once its rejection is classified): the pool
 * then leaves each call to it instead of watching every call for the close.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Owned } from "effect-surface"
 * import * as Net from "node:net"
 *
 * const dial = Effect.sync((): Owned.Owned<Net.Socket> => {
 *   const socket = Net.connect("/tmp/app.sock")
 *   return { client: socket, dispose: Effect.sync(() => socket.destroy()), onClose: (f) => socket.once("close", f) }
 * })
 * ```
 *
 * @since 0.1.0
 */
export interface Owned<C> {
  readonly client: C
  readonly dispose: Effect.Effect<void, unknown>
  readonly onClose?: ((listener: () => void) => void) | undefined
  readonly settlesPending?: boolean | undefined
}

/**
 * Tells an owned connection from a bare client. A bare client is one that has nothing to dispose
 * (an in-process dispatch), so a client must not itself carry both `client` and an Effect `dispose`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Owned } from "effect-surface"
 *
 * Owned.isOwned({ client: { ping: 1 }, dispose: Effect.void }) // true
 * Owned.isOwned({ ping: 1 }) // false: a bare client
 * ```
 *
 * @since 0.1.0
 */
export const isOwned = <C>(u: Owned<C> | C): u is Owned<C> =>
  typeof u === "object" && u !== null && "client" in u && "dispose" in u && Effect.isEffect(u.dispose)
