/**
 * The MCP endpoint as one value, mounted the same way on `McpHttp.serve`'s own router and on a
 * router of one's own (`McpHttp.route`): which Host and Origin values are let in, the 2025 session
 * table with its bounds and its events, where instances sharing sessions in Redis meet, the 2026
 * path, the URL served, the resource server each request is served behind (`McpAuth.Bearer`, put
 * there by `McpAuth.middleware` or by `serve` itself), and the drain that stops it.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import type * as NetAddress from "effect/net/NetAddress"
import type * as NodeHttp from "node:http"
import * as Auth from "../auth/Auth.ts"
import type * as Console from "../console/Console.ts"
import * as HttpRequest from "../Endpoint.ts"
import * as Face from "../face/Face.ts"
import * as HttpRedis from "../HttpRedis.ts"
import * as HttpDrain from "../transport/drain.ts"
import * as HttpChecks from "../transport/HttpChecks.ts"
import * as Stopping from "../transport/stopping.ts"
import * as EventStore from "../v2025/EventStore.ts"
import * as HttpSessions from "../v2025/HttpSessions.ts"
import * as ModernHttp from "../v2026/internal/http.ts"
import * as Stateless from "../v2026/Stateless.ts"

// Where the instances sharing sessions in Redis meet, for the stateless revision too.
export const clusterOf = ({ options, redis }: HttpRedis.SharedSessions["Service"]): ModernHttp.Cluster => ({
  redis,
  prefix: options.prefix ?? "effect-surface:mcp:",
  heartbeat: Duration.fromInputUnsafe(options.heartbeat ?? "2 seconds"),
  timeout: Duration.fromInputUnsafe(options.timeout ?? "5 seconds")
})

export const allowFor = (
  options: {
    readonly dnsRebindingProtection?: boolean | undefined
    readonly allowedHosts?: ReadonlyArray<string> | undefined
    readonly allowedOrigins?: ReadonlyArray<string> | undefined
  },
  host: string,
  port: number
) =>
  Effect.gen(function*() {
    const allow = HttpChecks.allowFor({
      host,
      port,
      protect: options.dnsRebindingProtection,
      allowedHosts: options.allowedHosts,
      allowedOrigins: options.allowedOrigins
    })
    if (allow.hosts === undefined && allow.origins === undefined && options.dnsRebindingProtection !== false) {
      yield* Effect.logWarning(
        `MCP over HTTP bound to ${host} with no allowedHosts or allowedOrigins: Host and Origin are not checked`
      )
    }
    return allow
  })

export const sessionTable = (
  face: Face.Face,
  store: EventStore.EventStore["Service"],
  options: {
    readonly idleTimeout?: Duration.Input | undefined
    readonly maxSessions?: number | undefined
    readonly maxSessionsPerHolder?: number | undefined
    readonly maxSubscriptionsPerSession?: number | undefined
    readonly retryInterval?: Duration.Input | undefined
  },
  shared: Option.Option<HttpRedis.SharedSessions["Service"]>
) => {
  const config: HttpSessions.Config = {
    idleTimeout: Duration.fromInputUnsafe(options.idleTimeout ?? "10 minutes"),
    maxSessions: options.maxSessions ?? 1000,
    maxSessionsPerHolder: options.maxSessionsPerHolder ?? 16,
    maxSubscriptions: options.maxSubscriptionsPerSession ?? Face.defaultMaxSubscriptions,
    retryInterval: options.retryInterval === undefined ? undefined
      : Duration.toMillis(Duration.fromInputUnsafe(options.retryInterval))
  }
  return HttpSessions.make(
    face,
    store,
    config,
    Option.getOrUndefined(Option.map(shared, (shared) => HttpRedis.joining(shared, config)))
  )
}

/** A bind that is not loopback, protected and given no lists, is refused before it serves (`UnguardedBind`). */
export const checkBind = (host: string, options: Omit<HttpOptions, "host" | "port">) =>
  HttpChecks.checkBind({
    host,
    protect: options.dnsRebindingProtection,
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins
  })

export const urlFor = (host: string, port: number, path: string) =>
  `http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}${path}`

// Refuse new requests, stop accepting connections when the server is ours (a client reconnecting
// its stream as its session ends is refused at once, not left half-open), let in-flight POSTs answer, end every
// session (which ends its streams), let those responses finish, then cut whatever connection is left.
const shutdown = (
  node: NodeHttp.Server | undefined,
  drain: HttpDrain.Drain,
  table: HttpSessions.Table,
  drainTimeout: Duration.Duration,
  closing: Deferred.Deferred<void>
) =>
  Effect.gen(function*() {
    yield* HttpDrain.count(drain, (d) => {
      d.closing = true
    })
    // Listen streams end with their response; calls in flight answer below.
    yield* Deferred.succeed(closing, undefined)
    yield* Effect.sync(() => node?.listening === true && node.close())
    // Said at once when requests are running, and cut short by a second Ctrl-C; what is still
    // running then is answered that the server stopped, as its session ends below.
    const running = drain.admitting + drain.awaiting.size
    yield* Stopping.waitFor({
      running: running > 0,
      what: running === 1 ? "the request in flight" : `the ${running} requests in flight`,
      within: drainTimeout,
      settled: HttpDrain.settled(drain, (d) => d.admitting === 0 && d.awaiting.size === 0, Duration.infinity, "")
    })
    const open = yield* table.ids
    // Shared sessions go on at the other instances, which lead what this one led.
    if (table.shared !== undefined) yield* table.shared.leave
    yield* table.endAll
    yield* HttpDrain.settled(
      drain,
      (d) => d.responses === 0,
      Duration.seconds(1),
      "responses still being written; cutting their connections"
    )
    yield* Effect.sync(() => node?.closeAllConnections())
    yield* Effect.logInfo(`MCP over HTTP stopped; closed ${open.length} session(s)`)
  })

/** Where a router's server listens, as the endpoint names it: `127.0.0.1`, `::1`, … */
export const addressOf = (address: NetAddress.SocketAddress): { readonly host: string; readonly port: number } =>
  address._tag === "UnixPathAddress" ? { host: "localhost", port: 0 } : {
    host: String(address.address),
    port: address.port
  }

/**
 * Where and how the face is served over HTTP (`McpHttp.HttpOptions`).
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

/** The endpoint, ready to be routed. */
export interface Mounted {
  readonly url: string
  readonly path: `/${string}`
  /** The face served: the one given, shown to the console when one watches it. */
  readonly face: Face.Face
  /** Every request to the endpoint, behind the `McpAuth.Bearer` it is served with (none: open). */
  readonly endpoint: Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    never,
    HttpServerRequest.HttpServerRequest | Scope.Scope
  >
  readonly sessions: Effect.Effect<ReadonlyArray<string>>
  readonly endSession: (id: string) => Effect.Effect<void>
  /**
   * Refuse new requests, let those in flight answer (within `drainTimeout`), end every session;
   * with the server's own `node` also stop taking connections and cut those left.
   */
  readonly stop: (node?: NodeHttp.Server) => Effect.Effect<void>
}

/**
 * Build the endpoint serving `face` at `host`:`port`: an `EventStore` and `McpHttpRedis`'s shared
 * sessions in context are used (otherwise an in-memory store, one process), and the calls are shown
 * to `console` when one is given.
 */
export const mount = (
  given: Face.Face,
  options: Omit<HttpOptions, "port" | "host">,
  at: {
    readonly host: string
    readonly port: number
    readonly stateless?: Stateless.Stateless | undefined
    readonly console?: Console.Console["Service"] | undefined
  }
): Effect.Effect<Mounted, never, Scope.Scope> =>
  Effect.gen(function*() {
    const path = options.path ?? "/mcp"
    const allow = yield* allowFor(options, at.host, at.port)
    const local = Option.getOrElse(yield* Effect.serviceOption(EventStore.EventStore), () => EventStore.makeMemory())
    const shared = yield* Effect.serviceOption(HttpRedis.SharedSessions)
    const cluster = Option.getOrUndefined(Option.map(shared, clusterOf))
    // With the console, calls go through it: shown, and held where it says.
    const face = at.console === undefined ? given : yield* at.console.attach(given, cluster)
    const table = yield* sessionTable(face, local, options, shared)
    // Shared sessions keep their events in Redis beside them.
    const store = table.shared?.store ?? local
    const drain = yield* HttpDrain.make
    const url = urlFor(at.host, at.port, path)
    const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024
    const maxInFlight = options.maxRequestsInFlight ?? 1024
    const modern = yield* ModernHttp.make(face, at.stateless ?? (yield* Stateless.make({})), {
      drain,
      maxBodyBytes,
      maxInFlight,
      keepAlive: Duration.fromInputUnsafe(options.keepAlive ?? "15 seconds"),
      cluster,
      listen: {
        maxUris: options.maxSubscriptionsPerSession,
        maxStreams: options.maxListenStreamsPerHolder,
        maxTotal: options.maxListenStreams
      }
    })
    const runFork = Effect.runForkWith(yield* Effect.context<never>())
    const server = (guard: Auth.Protected | undefined): HttpRequest.Server => ({
      ...(guard === undefined ? {} : { auth: { guard, needs: face.needs } }),
      drain,
      allow,
      maxBodyBytes,
      maxInFlight,
      modern,
      legacy: {
        table,
        store,
        runFork,
        drain,
        maxBodyBytes,
        maxInFlight,
        maxStreamBuffer: options.maxStreamBufferBytes ?? 1024 * 1024,
        url,
        urls: new Map()
      }
    })
    const open = HttpRequest.handler(server(undefined))
    // One handler per resource server the endpoint is served behind (one, in practice), built at its first request.
    const behind = new WeakMap<Auth.Protected, typeof open>()
    const guarded = (guard: Auth.Protected) => {
      const known = behind.get(guard)
      if (known !== undefined) return known
      const made = HttpRequest.handler(server(guard))
      behind.set(guard, made)
      return made
    }
    const drainTimeout = Duration.fromInputUnsafe(options.drainTimeout ?? "10 seconds")
    return {
      url,
      path,
      face,
      endpoint: Effect.flatMap(
        Effect.serviceOption(Auth.Bearer),
        (bearer) => Option.isNone(bearer) ? open : guarded(bearer.value)
      ),
      sessions: table.ids,
      endSession: (id) =>
        Effect.andThen(table.end(id), table.shared === undefined ? Effect.void : table.shared.deleted(id)),
      stop: (node) => shutdown(node, drain, table, drainTimeout, modern.closing)
    }
  })
