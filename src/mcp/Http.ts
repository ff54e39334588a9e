/**
 * Serving an MCP face over Streamable HTTP, on Effect's HTTP server.
 *
 * Hosts that connect over the network (and every host that wants more than one client on one
 * server) speak Streamable HTTP, in one of two revisions on the same endpoint: a 2026-07-28 client
 * sends each request whole (its own envelope, no session) and is answered on the stateless path
 * (`modern/internal/http`); a 2025-11-25 client has a session (`Mcp-Session-Id`), a GET stream and
 * `Last-Event-ID` to resume, served by the SDK's web-standard transport per session
 * (`legacy/internal/http`, with the plain call answered beside it as one JSON body). This module
 * owns what is around both — binding, refusals before either path is reached (`HttpChecks`), the
 * session table (`HttpSessions`) and its events (`EventStore`), and a shutdown that lets in-flight
 * calls answer and listen streams end before every session is closed (`internal/httpDrain`). The
 * path one request takes, and how its revision is told, is `internal/httpRequest`.
 *
 * @since 0.1.0
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { ServeError } from "effect/http/HttpServerError"
import * as NodeHttp from "node:http"
import type * as Bundle from "../core/Bundle.ts"
import type * as ResolveError from "../core/ResolveError.ts"
import * as Auth from "./auth/Auth.ts"
import * as Console from "./console/Console.ts"
import * as EventStore from "./v2025/EventStore.ts"
import * as Face from "./face/Face.ts"
import * as HttpChecks from "./transport/HttpChecks.ts"
import * as HttpRedis from "./HttpRedis.ts"
import * as HttpDrain from "./transport/drain.ts"
import * as HttpRequest from "./Endpoint.ts"
import * as ModernHttp from "./v2026/internal/http.ts"
import * as Stateless from "./v2026/Stateless.ts"
import * as Serving from "./internal/httpServe.ts"
import * as PortInUse from "./transport/PortInUse.ts"
import { McpServer } from "./McpServer.ts"

/**
 * The port asked for is taken by another process: a `ServeError` told in one sentence with its way out.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpHttp } from "effect-surface/mcp"
 *
 * declare const serving: Effect.Effect<void, McpHttp.PortInUse | Error>
 * const told = Effect.catch(serving, (e) => Effect.logError(e instanceof McpHttp.PortInUse ? e.message : e))
 * ```
 *
 * @since 0.1.0
 */
export { PortInUse } from "./transport/PortInUse.ts"

/**
 * Where and how the face is served over HTTP.
 *
 * @example
 * ```ts
 * import type { McpHttp } from "effect-surface/mcp"
 *
 * const http: McpHttp.HttpOptions = {
 *   port: 3000,
 *   host: "0.0.0.0",
 *   allowedHosts: ["mcp.example.com"],
 *   idleTimeout: "30 minutes"
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface HttpOptions {
  /** Default 0: any free port, reported back in `Served.port`. */
  readonly port?: number
  /** Default `127.0.0.1`. A non-loopback bind turns rebinding protection off unless lists are given. */
  readonly host?: string
  /** Where the endpoint is mounted. Default `/mcp`. */
  readonly path?: `/${string}`
  /** A session with no request or stream open for this long ends. Default 10 minutes. */
  readonly idleTimeout?: Duration.Input
  /** The largest request body read; a larger one is answered 413. Default 4 MiB. */
  readonly maxBodyBytes?: number
  /**
   * The most sessions open at once. A new one past it takes the place of the least recently used
   * session with nothing open of the caller holding the most sessions (without authorization, of all
   * sessions); when every one is in use, its `initialize` is answered 503. Default 1000.
   */
  readonly maxSessions?: number
  /**
   * Behind a resource server (`McpAuth`), the most sessions one caller (its verified subject) may
   * keep. One more takes the place of that caller's own least recently used idle session, never
   * another caller's; when each of its sessions is in use, its `initialize` is answered 503 in a
   * sentence. A full table (`maxSessions`) likewise gives up a session of the caller holding the
   * most. Without authorization there is no caller to tell apart, and only `maxSessions` applies.
   * Default 16.
   */
  readonly maxSessionsPerHolder?: number
  /**
   * The most URIs one session may be subscribed to; a subscribe past it is refused. The same cap
   * bounds the URIs one 2026 `subscriptions/listen` request may name (refused -32602 past it).
   * Default 256.
   */
  readonly maxSubscriptionsPerSession?: number
  /**
   * The most 2026 `subscriptions/listen` streams one holder may hold open at once: a token's
   * subject behind a resource server, else the connection's peer address (an IPv6 peer by its /64
   * prefix). One more is answered 429 with a sentence. Behind a proxy every caller without a token
   * reaches the server from the proxy's one address and shares this cap: serve behind a resource
   * server (`McpAuth`), or raise it. Default 16.
   *
   * @example
   * ```ts
   * import type { McpHttp } from "effect-surface/mcp"
   * const http: McpHttp.HttpOptions = { maxListenStreamsPerHolder: 4, maxSubscriptionsPerSession: 64 }
   * ```
   */
  readonly maxListenStreamsPerHolder?: number
  /**
   * The most 2026 `subscriptions/listen` streams open at once, whoever holds them; one more is
   * answered 503 with a sentence. A listen counts as a request in flight (`maxRequestsInFlight`)
   * only until its stream is acknowledged, then under this cap alone, so idle streams never keep
   * requests out. Each holds a connection and up to 1024 queued notices. Default 256.
   *
   * @example
   * ```ts
   * import type { McpHttp } from "effect-surface/mcp"
   * const http: McpHttp.HttpOptions = { maxListenStreams: 1024, maxListenStreamsPerHolder: 64 }
   * ```
   */
  readonly maxListenStreams?: number
  /**
   * The most requests served at once; past it a POST is answered 503 with `Retry-After`. A 2025
   * batch counts as the requests it carries, and is refused whole when they do not all fit.
   * Notifications and answers to the server's own requests are never refused (a handler in flight
   * may be waiting on one). Behind a resource server (`McpAuth`) it also bounds the tokens checked
   * at once: a request arriving while that many are being checked is answered the same 503 before
   * its token is read, so a crowd of requests never asks the issuer more often at once. Default 1024.
   */
  readonly maxRequestsInFlight?: number
  /**
   * The bytes a GET stream may hold that its client has not read; past it the stream is closed
   * and the client resumes with `Last-Event-ID`. Default 1 MiB.
   */
  readonly maxStreamBufferBytes?: number
  /** How long a shutdown waits for in-flight POSTs to answer before closing their sessions. Default 10 seconds. */
  readonly drainTimeout?: Duration.Input
  /**
   * Refuse foreign `Host`/`Origin` headers (403). Default: on for a loopback bind or when a list is
   * given. `true` on a bind that is not loopback needs `allowedHosts` or `allowedOrigins`: without
   * either the server refuses to start (`UnguardedBind`).
   */
  readonly dnsRebindingProtection?: boolean
  /** `Host` values served: names (bound port or none) or `name:port`. Default the loopback names. */
  readonly allowedHosts?: ReadonlyArray<string>
  /** Exact origins allowed. Default any origin on a loopback name. A request with no `Origin` is not checked. */
  readonly allowedOrigins?: ReadonlyArray<string>
  /** The SSE `retry` hint sent with each priming event, for clients that poll. */
  readonly retryInterval?: Duration.Input
  /** How long a quiet `subscriptions/listen` stream waits before a keep-alive comment. Default 15 seconds. */
  readonly keepAlive?: Duration.Input
}

/**
 * A face's options plus where to serve it.
 *
 * @example
 * ```ts
 * import type { McpFace, McpHttp } from "effect-surface/mcp"
 *
 * declare const face: McpFace.Options
 * const options: McpHttp.Options = { ...face, http: { port: 3000 } }
 * ```
 *
 * @since 0.1.0
 */
export interface Options<E = never, R = never, C extends Bundle.Clients = Bundle.Clients>
  extends Face.Options<E, R, C>, Stateless.Options
{
  readonly http?: HttpOptions
}

/**
 * A face being served: where, and its live sessions.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { McpHttp } from "effect-surface/mcp"
 *
 * declare const served: McpHttp.Served
 * const endAll = Effect.flatMap(served.sessions, (ids) => Effect.forEach(ids, served.endSession, { discard: true }))
 * ```
 *
 * @since 0.1.0
 */
export interface Served {
  /** The endpoint's URL, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string
  readonly host: string
  /** The bound port (the one the system chose when `port` was 0). */
  readonly port: number
  readonly path: string
  readonly face: Face.Face
  /** The ids of the sessions open now (with sessions shared in Redis: those this instance serves). */
  readonly sessions: Effect.Effect<ReadonlyArray<string>>
  /** End a session as a `DELETE` would (shared in Redis, at every instance). */
  readonly endSession: (id: string) => Effect.Effect<void>
  /**
   * The operator's console link (its `#key=` lets a browser in: show it only to the operator), when a
   * `McpConsole` layer is provided.
   */
  readonly console?: string
}

/**
 * The served endpoint, as a service.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpHttp } from "effect-surface/mcp"
 * import type { McpFace } from "effect-surface/mcp"
 *
 * declare const options: McpFace.Options
 * const program = Effect.gen(function*() {
 *   const endpoint = yield* McpHttp.Endpoint
 *   yield* Effect.log(`serving at ${endpoint.url}`)
 * }).pipe(Effect.provide(McpHttp.layer({ ...options, http: { port: 3000 } })))
 * ```
 *
 * @since 0.1.0
 */
export class Endpoint extends Context.Service<Endpoint, Served>()("effect-surface/McpHttp/Endpoint") {}

/**
 * Serve an existing face over Streamable HTTP until the scope closes. Closing it refuses new
 * requests (503), waits up to `drainTimeout` for in-flight POSTs to answer, ends every session,
 * then stops the server. An `EventStore` in context is used; otherwise an in-memory one.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpFace, McpHttp } from "effect-surface/mcp"
 *
 * declare const options: McpFace.Options
 * const program = Effect.gen(function*() {
 *   const face = yield* McpFace.make(options)
 *   const served = yield* McpHttp.serveFace(face, { port: 0 })
 *   yield* Effect.log(`MCP at ${served.url}`)
 *   yield* Effect.never
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
export const serveFace = (
  given: Face.Face,
  options: HttpOptions = {},
  stateless?: Stateless.Stateless
): Effect.Effect<Served, ServeError | HttpChecks.UnguardedBind, Scope.Scope> =>
  Effect.gen(function*() {
    const host = options.host ?? "127.0.0.1"
    const path = options.path ?? "/mcp"
    yield* HttpChecks.checkBind({
      host,
      protect: options.dnsRebindingProtection,
      allowedHosts: options.allowedHosts,
      allowedOrigins: options.allowedOrigins
    })
    const node = NodeHttp.createServer()
    const server = yield* NodeHttpServer.make(() => node, { port: options.port ?? 0, host }).pipe(
      Effect.mapError((error) => PortInUse.inUse(error.cause) ? PortInUse.make(host, options.port ?? 0) : error)
    )
    // Should the scope close before serving began, no connection is left to hold the close open.
    yield* Effect.addFinalizer(() => Effect.sync(() => node.closeAllConnections()))
    const port = server.address._tag === "UnixPathAddress" ? options.port ?? 0 : server.address.port
    const allow = yield* Serving.allowFor(options, host, port)
    const local = Option.getOrElse(yield* Effect.serviceOption(EventStore.EventStore), () => EventStore.makeMemory())
    const shared = yield* Effect.serviceOption(HttpRedis.SharedSessions)
    // With the console provided, calls go through it (shown, and held where it says) and it is mounted.
    const operator = yield* Effect.serviceOption(Console.Console)
    const face = Option.isSome(operator)
      ? yield* operator.value.attach(given, Option.getOrUndefined(Option.map(shared, Serving.clusterOf)))
      : given
    const table = yield* Serving.sessionTable(face, local, options, shared)
    // Shared sessions keep their events in Redis beside them.
    const store = table.shared?.store ?? local
    const drain = yield* HttpDrain.make
    const url = Serving.urlFor(host, port, path)
    const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024
    const maxInFlight = options.maxRequestsInFlight ?? 1024
    const modern = yield* ModernHttp.make(face, stateless ?? (yield* Stateless.make({})), {
      drain,
      maxBodyBytes,
      maxInFlight,
      keepAlive: Duration.fromInputUnsafe(options.keepAlive ?? "15 seconds"),
      cluster: Option.getOrUndefined(Option.map(shared, Serving.clusterOf)),
      listen: {
        maxUris: options.maxSubscriptionsPerSession,
        maxStreams: options.maxListenStreamsPerHolder,
        maxTotal: options.maxListenStreams
      }
    })
    const resourceServer = yield* Effect.serviceOption(Auth.ResourceServer)
    const guard = Option.map(resourceServer, (server) => Auth.protect(server, url))
    // One endpoint: its exact path is matched at once; every other URL goes through a router with
    // the one route, so the forms a router matches (a trailing slash, …) are served as they were.
    const endpoint = HttpRequest.handler({
      ...(Option.isSome(guard) ? { auth: { guard: guard.value, needs: face.needs } } : {}),
      drain,
      allow,
      maxBodyBytes,
      maxInFlight,
      modern,
      legacy: {
        table,
        store,
        runFork: Effect.runForkWith(yield* Effect.context<never>()),
        drain,
        maxBodyBytes,
        maxInFlight,
        maxStreamBuffer: options.maxStreamBufferBytes ?? 1024 * 1024,
        url,
        urls: new Map()
      }
    })
    const console = Option.map(operator, (console) => Serving.urlFor(host, port, console.link))
    yield* server.serve(HttpRequest.onPath(path, endpoint, yield* Serving.routes(path, endpoint, guard, operator)))
    // Added last, so it runs before the server's own finalizers.
    const drainTimeout = Duration.fromInputUnsafe(options.drainTimeout ?? "10 seconds")
    yield* Effect.addFinalizer(() => Serving.shutdown(node, drain, table, drainTimeout, modern.closing))
    yield* Effect.logInfo(`MCP over HTTP at ${url}`)
    if (Option.isSome(console)) yield* Effect.logInfo(`Console at ${console.value}`)
    const endSession = (id: string) =>
      Effect.andThen(table.end(id), table.shared === undefined ? Effect.void : table.shared.deleted(id))
    return {
      url,
      host,
      port,
      path,
      face,
      sessions: table.ids,
      endSession,
      ...(Option.isSome(console) ? { console: console.value } : {})
    } satisfies Served
  })

/**
 * Build a face from its options and serve it over Streamable HTTP until the scope closes.
 *
 * @example
 * ```ts
 * import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
 * import { Effect } from "effect"
 * import { McpHttp } from "effect-surface/mcp"
 * import type { McpFace } from "effect-surface/mcp"
 *
 * declare const options: McpFace.Options
 * const main = Effect.gen(function*() {
 *   const { url } = yield* McpHttp.serve({ ...options, http: { port: 3000 } })
 *   yield* Effect.log(`claude mcp add --transport http board ${url}`)
 *   yield* Effect.never
 * }).pipe(Effect.scoped)
 *
 * NodeRuntime.runMain(main)
 * ```
 *
 * @since 0.1.0
 */
export const serve = <E, R, C extends Bundle.Clients = Bundle.Clients>(
  options: Options<E, R, C>
): Effect.Effect<
  Served,
  ResolveError.ResolveError | ServeError | HttpChecks.UnguardedBind,
  Scope.Scope | Exclude<R, Scope.Scope>
> =>
  Effect.flatMap(
    Effect.all([Face.make(options), Stateless.make(options)]),
    ([face, stateless]) => serveFace(face, options.http, stateless)
  )

/**
 * The endpoint as a layer: builds the face, serves it, and stops (draining) when the layer is released.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
 * import { McpHttp } from "effect-surface/mcp"
 * import type { McpFace } from "effect-surface/mcp"
 *
 * declare const options: McpFace.Options
 * Layer.launch(McpHttp.layer({ ...options, http: { port: 3000 } })).pipe(NodeRuntime.runMain)
 * ```
 *
 * @since 0.1.0
 */
export const layer = <E, R, C extends Bundle.Clients = Bundle.Clients>(
  options: Options<E, R, C>
): Layer.Layer<Endpoint, ResolveError.ResolveError | ServeError | HttpChecks.UnguardedBind, Exclude<R, Scope.Scope>> =>
  Layer.effect(Endpoint, serve(options))

/**
 * Serve the face of an `McpServer` layer over HTTP, beside whatever else it is connected to.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { McpHttp, McpServer } from "effect-surface/mcp"
 * import type { McpFace } from "effect-surface/mcp"
 *
 * declare const options: McpFace.Options
 * const app = McpHttp.layerServer({ port: 3000 }).pipe(Layer.provide(McpServer.layer(options)))
 * ```
 *
 * @since 0.1.0
 */
export const layerServer = (
  options?: HttpOptions
): Layer.Layer<Endpoint, ServeError | HttpChecks.UnguardedBind, McpServer> =>
  Layer.effect(
    Endpoint,
    Effect.flatMap(Effect.service(McpServer), (server) => serveFace(server, options, server.stateless))
  )
