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
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { ServerCapabilities } from "@modelcontextprotocol/sdk/types.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js"
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import type * as Face from "../face/Face.ts"
import * as Path from "./internal/requestPath.ts"
import * as Follower from "./internal/sessionFollow.ts"
import * as Requests from "./internal/sessionRequests.ts"
import type * as Logging from "../face/Logging.ts"
import type * as RpcError from "../face/RpcError.ts"

/**
 * A connected session.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
 * import { McpFace, McpSessions } from "effect-surface/mcp"
 *
 * declare const face: McpFace.Face
 * declare const transport: Transport
 * const program = Effect.gen(function*() {
 *   const session: McpSessions.Session = yield* McpSessions.connect(face, transport)
 *   yield* session.closed // the host disconnected, and everything the session owned has ended
 *   return yield* session.subscriptions // []
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
export interface Session {
  /** The SDK server, for what the face does not cover (custom notifications, tests). */
  readonly server: Server
  /**
   * Completes when the session has ended — its transport closed, from either side, or the scope it
   * was connected in closed — and everything it owned (handlers, subscriptions, listeners) with it.
   */
  readonly closed: Effect.Effect<void>
  /** The URIs this session follows now. */
  readonly subscriptions: Effect.Effect<ReadonlyArray<string>>
  /**
   * Follow `uri` as a subscription of this session's host (one followed already is shared),
   * completing once it is live or after `openWait`; refused past `maxSubscriptions`.
   */
  readonly follow: (uri: string) => Effect.Effect<void, RpcError.ProtocolError>
  /** Stop following `uri`. */
  readonly unfollow: (uri: string) => Effect.Effect<void>
  /** Set the level the session's handlers log to the host at, as the host's `logging/setLevel` does. */
  readonly setLogLevel: (level: Logging.Level) => Effect.Effect<void>
  /**
   * Start or stop leading: announcing the face's roster moves (`list_changed`) to the host. A
   * session that stops leading also stops following every URI, which its new leader follows.
   */
  readonly lead: (leading: boolean) => Effect.Effect<void>
}

/**
 * The longest `resources/subscribe` waits for its subscription to go live (its first frame) before
 * answering anyway; a source that is down is then followed in the background.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { McpSessions } from "effect-surface/mcp"
 * Duration.toMillis(McpSessions.openWait) // 1000
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
 * import type { McpSessions } from "effect-surface/mcp"
 * const options: McpSessions.ConnectOptions = { maxSubscriptions: 64 }
 * ```
 *
 * @since 0.1.0
 */
export interface ConnectOptions {
  /**
   * The most URIs the session may follow at once; a subscribe to one more is refused in a sentence
   * (a URI held already, or freed by an unsubscribe, is accepted). Default: no cap.
   */
  readonly maxSubscriptions?: number
  /** What a session continuing one opened elsewhere starts with. */
  readonly restore?: Restore
  /**
   * Whether the session leads from its start: announces roster moves and follows the restored
   * subscriptions. Default true; a replica of a session another instance leads starts without.
   */
  readonly leads?: boolean
  /**
   * Where the host's subscriptions and log level are kept, when that is beyond this session: its
   * `resources/subscribe`, `resources/unsubscribe` and `logging/setLevel` go there (the level is
   * also set here). Without one the session keeps them, capped by `maxSubscriptions`.
   */
  readonly registry?: Registry
  /**
   * Whether the session forks a scope of its own from the caller's and closes it when its transport
   * closes (the default). `false` when the caller's scope is the session's alone and the caller
   * closes it once the transport has closed, as a Streamable HTTP session table does: the session
   * then holds no scope of its own.
   */
  readonly ownScope?: boolean
}

/**
 * What a host had set on a session that is continued by another (a replica on another instance).
 *
 * @example
 * ```ts
 * import type { McpSessions } from "effect-surface/mcp"
 * const restore: McpSessions.Restore = { logLevel: "debug", subscriptions: ["surface://cells/focus"] }
 * ```
 *
 * @since 0.1.0
 */
export interface Restore {
  readonly logLevel?: Logging.Level
  readonly subscriptions?: ReadonlyArray<string>
}

/**
 * A host's subscriptions and log level kept beyond one session: a `subscribe` admits the URI (or
 * refuses it, past a cap) and has it followed wherever the host's subscriptions are followed,
 * completing once it is live.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { McpSessions } from "effect-surface/mcp"
 *
 * declare const session: McpSessions.Session
 * const local: McpSessions.Registry = {
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
 * import { McpSessions } from "effect-surface/mcp"
 * McpSessions.tooManySubscriptions(2).message // "Too many subscriptions: a session may hold at most 2; unsubscribe from one first"
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
 * import { McpFace, McpSessions } from "effect-surface/mcp"
 *
 * declare const options: McpFace.Options
 * const program = Effect.gen(function*() {
 *   const face = yield* McpFace.make(options)
 *   const session = yield* McpSessions.connect(face, new StdioServerTransport())
 *   yield* session.closed
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
export const connect = (
  face: Face.Face,
  transport: Transport,
  options: ConnectOptions = {}
): Effect.Effect<Session, never, Scope.Scope> =>
  Effect.gen(function*() {
    const closed = yield* Deferred.make<void>()
    const owned = options.ownScope === false ? undefined : yield* Scope.fork(yield* Effect.scope)
    const scope = owned ?? (yield* Effect.scope)
    const context = yield* Effect.context<never>()
    // The transport's close is announced by a callback: it closes the session's scope from a fiber of
    // its own (never one the scope owns, which the close would interrupt).
    const end = owned === undefined ? undefined : () => {
      Effect.runForkWith(context)(Scope.close(owned, Exit.void))
    }
    const opened = yield* open(face, transport, end, closed, options).pipe(Scope.provide(scope))
    return { ...opened, closed: Deferred.await(closed) }
  })

// The SDK checks an elicitation's answer with a validator of its own, an Ajv instance (about
// 17 KiB) it would build with every session; most sessions never elicit, so it is built on the
// first elicitation of the session that makes one.
const lazyValidator = (): jsonSchemaValidator => {
  let built: AjvJsonSchemaValidator | undefined
  return { getValidator: (schema) => (built ??= new AjvJsonSchemaValidator()).getValidator(schema) }
}

// Advertised from the first initialize even when nothing is exposed: a host that never heard the
// lists can change has no reason to re-read them after a roster move. One object for every session:
// the SDK only reads it.
const capabilities: ServerCapabilities = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
  logging: {}
}

const makeServer = (face: Face.Face): Server => {
  const instructions = face.instructions
  return new Server(face.serverInfo, {
    jsonSchemaValidator: lazyValidator(),
    capabilities,
    ...(instructions._tag === "Static" && instructions.text !== undefined ? { instructions: instructions.text } : {})
  })
}

// Everything the session owned ends in one finalizer, each part whatever became of the one before:
// the server closes (once connected), the following stops, the handlers are interrupted, and last
// `closed` completes. Made here, not where the session opens, so it holds these alone.
const ending = (
  server: Server,
  connected: { done: boolean },
  follower: Follower.Follower,
  handlers: Path.Handlers,
  closed: Deferred.Deferred<void>
) =>
() =>
  (connected.done ? Effect.promise(() => server.close()) : Effect.void).pipe(
    Effect.ensuring(Follower.end(follower)),
    Effect.ensuring(Path.endHandlers(handlers)),
    Effect.ensuring(Deferred.succeed(closed, undefined))
  )

const open = (
  face: Face.Face,
  transport: Transport,
  end: (() => void) | undefined,
  closed: Deferred.Deferred<void>,
  options: ConnectOptions
) =>
  Effect.gen(function*() {
    const server = makeServer(face)
    const handlers = Path.makeHandlers()
    const session: Path.Session = {
      server,
      serverName: face.serverInfo.name,
      context: yield* Effect.context<never>(),
      handlers,
      level: yield* Ref.make<Logging.Level>(options.restore?.logLevel ?? face.logLevel),
      forwarding: undefined
    }
    const follower = Follower.make(face, server, options.maxSubscriptions)
    const connected = { done: false }
    yield* Scope.addFinalizerExit(yield* Effect.scope, ending(server, connected, follower, handlers, closed))
    Requests.answer({ face, session, follower, registry: options.registry })
    if (options.leads ?? true) {
      yield* Follower.lead(follower, true)
      // Restored side by side, each waiting at most `openWait` to go live.
      yield* Effect.forEach(options.restore?.subscriptions ?? [], (uri) =>
        Effect.ignore(Follower.follow(follower, uri)), {
        discard: true,
        concurrency: "unbounded"
      })
    }
    if (end !== undefined)
      server.onclose = end
    yield* Effect.promise(() =>
      server.connect(transport)
    )
    connected.done = true
    return {
      server,
      subscriptions: Follower.uris(follower),
      follow: (uri: string) => Follower.follow(follower, uri),
      unfollow: (uri: string) => Follower.unfollow(follower, uri),
      setLogLevel: (level: Logging.Level) => Ref.set(session.level, level),
      lead: (leading: boolean) => Follower.lead(follower, leading)
    }
  })
