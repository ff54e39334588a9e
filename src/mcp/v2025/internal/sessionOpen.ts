/**
 * Opening a 2025 session: the SDK's low-level `Server` made for a face, connected to a transport,
 * and ended with everything it owned. Kept apart from `Session.ts` so that the SDK's `Server` is
 * reached only by the modules inside the 2025 path (a replica's takeover announcement, tests of the
 * SDK's own bookkeeping) and never named by a public signature.
 *
 * @internal
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { ServerCapabilities } from "@modelcontextprotocol/sdk/types.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js"
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import type * as Face from "../../face/Face.ts"
import type * as Logging from "../../face/Logging.ts"
import type * as RpcError from "../../face/RpcError.ts"
import * as Path from "./requestPath.ts"
import * as Follower from "./sessionFollow.ts"
import * as Requests from "./sessionRequests.ts"

/** What a session is, to the modules that hold one (`Session.Session` names it publicly). */
export interface Session {
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

/** How a session is opened (`ConnectOptions` names it publicly, with its defaults). */
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
  readonly registry?: Requests.Registry
  /**
   * Whether the session forks a scope of its own from the caller's and closes it when its transport
   * closes (the default). `false` when the caller's scope is the session's alone and the caller
   * closes it once the transport has closed, as a Streamable HTTP session table does: the session
   * then holds no scope of its own.
   */
  readonly ownScope?: boolean
}

/** What a session continuing one opened elsewhere starts with. */
export interface Restore {
  readonly logLevel?: Logging.Level
  readonly subscriptions?: ReadonlyArray<string>
}

/** A session with the SDK server it runs on, for the 2025 path's own modules. */
export interface Opened extends Session {
  readonly server: Server
}

export const connect = (
  face: Face.Face,
  transport: Transport,
  options: ConnectOptions = {}
): Effect.Effect<Opened, never, Scope.Scope> =>
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
// the handlers still running are interrupted (each answered that the server stopped, while the
// transport can still carry it), the server closes (once connected), the following stops, and last
// `closed` completes. Made here, not where the session opens, so it holds these alone.
const ending = (
  server: Server,
  connected: { done: boolean },
  follower: Follower.Follower,
  handlers: Path.Handlers,
  closed: Deferred.Deferred<void>
) =>
() =>
  Path.endHandlers(handlers).pipe(
    // The SDK writes a rejected handler's answer a few promise turns later: yielding to the
    // scheduler (a macrotask) lets those run before the server closes.
    Effect.andThen(Effect.yieldNow),
    Effect.andThen(connected.done ? Effect.promise(() => server.close()) : Effect.void),
    Effect.ensuring(Follower.end(follower)),
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
      forwarding: undefined,
      ordering: new Set()
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
