/**
 * One MCP session: the official SDK's low-level `Server` bound to a shared `Face`.
 *
 * The SDK owns the protocol — framing, version negotiation, request ids, cancellation messages — and
 * is used for exactly that; what a request's handler may ask of its host runs on its request path
 * (`internal/requestPath.ts`). Everything a request does runs as an Effect in a fiber this session's
 * own scope owns, and that scope lives exactly as long as the transport: a host that disconnects
 * ends the session's handlers and its subscriptions at once (a URI no other session holds stops
 * being followed, and its connection lease goes with it), and leaves the face's broadcaster, not
 * when the server stops — under Streamable HTTP, where every MCP session is one of these, nothing
 * of a departed host is left behind. What the host hears unprompted (list moves, updates) is
 * followed once per face, not per session (`internal/broadcast.ts`). A host's `notifications/cancelled`
 * interrupts the one handler it names. A handler's request path is this session's too: its Effect
 * log lines at or above the session's level, its progress, and its questions to the client travel
 * as notifications and requests related to that request (so over Streamable HTTP they ride the
 * request's own stream), and every notification it queued is sent before its result. Only this module imports the SDK's server, so a new protocol
 * revision is a new session module, not a new face.
 *
 * @since 0.1.0
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as McpTransport from "../../protocol/Transport.ts"
import type * as Face from "../face/Face.ts"
import * as Open from "./internal/sessionOpen.ts"
import * as Follower from "./internal/sessionFollow.ts"
import type * as Requests from "./internal/sessionRequests.ts"
import type * as RpcError from "../face/RpcError.ts"

/**
 * A connected session.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { McpTransport } from "effect-surface/mcp"
 * import { McpFace, McpSession2025 } from "effect-surface/mcp"
 *
 * declare const face: McpFace.Face
 * declare const transport: McpTransport.Transport
 * const program = Effect.gen(function*() {
 *   const session: McpSession2025.Session = yield* McpSession2025.connect(face, transport)
 *   yield* session.closed // the host disconnected, and everything the session owned has ended
 *   return yield* session.subscriptions // []
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
export interface Session extends Open.Session {}

/**
 * The longest `resources/subscribe` waits for its subscription to go live (its first frame) before
 * answering anyway; a source that is down is then followed in the background.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { McpSession2025 } from "effect-surface/mcp"
 * Duration.toMillis(McpSession2025.openWait) // 1000
 * ```
 *
 * @since 0.1.0
 */
export const openWait: Duration.Duration = Follower.openWait

/**
 * How one session is bounded.
 *
 * @example
 * ```ts
 * import type { McpSession2025 } from "effect-surface/mcp"
 * const options: McpSession2025.ConnectOptions = { maxSubscriptions: 64 }
 * ```
 *
 * @since 0.1.0
 */
export interface ConnectOptions extends Open.ConnectOptions {}

/**
 * What a host had set on a session that is continued by another (a replica on another instance).
 *
 * @example
 * ```ts
 * import type { McpSession2025 } from "effect-surface/mcp"
 * const restore: McpSession2025.Restore = { logLevel: "debug", subscriptions: ["surface://cells/focus"] }
 * ```
 *
 * @since 0.1.0
 */
export interface Restore extends Open.Restore {}

/**
 * A host's subscriptions and log level kept beyond one session: a `subscribe` admits the URI (or
 * refuses it, past a cap) and has it followed wherever the host's subscriptions are followed,
 * completing once it is live.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { McpSession2025 } from "effect-surface/mcp"
 *
 * declare const session: McpSession2025.Session
 * const local: McpSession2025.Registry = {
 *   subscribe: (uri) => session.follow(uri),
 *   unsubscribe: (uri) => session.unfollow(uri),
 *   setLogLevel: () => Effect.void
 * }
 * ```
 *
 * @since 0.1.0
 */
export type Registry = Requests.Registry

/**
 * The refusal of a subscribe past the cap: JSON-RPC -32000, saying what to do.
 *
 * @example
 * ```ts
 * import { McpSession2025 } from "effect-surface/mcp"
 * McpSession2025.tooManySubscriptions(2).message // "Too many subscriptions: a session may hold at most 2; unsubscribe from one first"
 * ```
 *
 * @since 0.1.0
 */
export const tooManySubscriptions: (max: number) => RpcError.ProtocolError = Follower.tooMany

/**
 * Serve a face on one transport until the scope closes or the transport does.
 *
 * The session forks its own scope from the caller's: it closes when the transport closes (and
 * `closed` completes once it has), or when the caller's scope closes, whichever comes first. With
 * `ownScope: false` the caller's scope is the session's, and the caller closes it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
 * import { McpFace, McpSession2025 } from "effect-surface/mcp"
 *
 * declare const options: McpFace.Options
 * const program = Effect.gen(function*() {
 *   const face = yield* McpFace.make(options)
 *   const session = yield* McpSession2025.connect(face, new StdioServerTransport())
 *   yield* session.closed
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
export const connect = (
  face: Face.Face,
  transport: McpTransport.Transport,
  options: ConnectOptions = {}
): Effect.Effect<Session, never, Scope.Scope> =>
  // The SDK's transport type is the shape `McpTransport.Transport` states; its messages are checked by the server.
  Effect.map(Open.connect(face, transport as Transport, options), ({ server: _, ...session }) => session)
