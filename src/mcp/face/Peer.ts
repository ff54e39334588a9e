/**
 * Who is on the other end of a call, as the face's transports know it.
 *
 * A call reaches the face's `callTool` with nothing but a name and arguments; the operator's console
 * wants to show which client made it. Each era's path knows its client in its own way (a 2025
 * session and the `initialize` it began with, a 2026 request's own envelope), so each provides this
 * reference around the call it serves, and whatever watches calls reads one shape.
 *
 * @internal
 */
import * as Context from "effect/Context"

/** The client making a call: its era, its session (2025 only) and what it said it is. */
export interface Peer {
  readonly era: "2025-11-25" | "2026-07-28"
  readonly session?: string | undefined
  readonly client?: { readonly name: string; readonly version: string } | undefined
}

/** The client of the call running now; `undefined` in process (stdio, in-memory, a direct call). */
export const Peer = Context.Reference<Peer | undefined>("effect-surface/mcp/Peer", { defaultValue: () => undefined })
