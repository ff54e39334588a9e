/**
 * The HTTP endpoint's plumbing around `McpHttp.serveFace`: which Host and Origin values are let in,
 * the 2025 session table with its bounds, where instances sharing sessions in Redis meet, the URL
 * served, and the drain that stops it. Module-level so `serveFace` reads as the order of assembly.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as HttpRouter from "effect/http/HttpRouter"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type * as Auth from "../auth/Auth.ts"
import type * as Console from "../console/Console.ts"
import type * as NodeHttp from "node:http"
import * as Face from "../face/Face.ts"
import * as HttpRedis from "../HttpRedis.ts"
import * as HttpDrain from "../transport/drain.ts"
import * as HttpChecks from "../transport/HttpChecks.ts"
import * as Stopping from "../transport/stopping.ts"
import type * as EventStore from "../v2025/EventStore.ts"
import * as HttpSessions from "../v2025/HttpSessions.ts"
import type * as ModernHttp from "../v2026/internal/http.ts"

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

export const urlFor = (host: string, port: number, path: string) =>
  `http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}${path}`

// Refuse new requests, stop accepting connections (a client reconnecting its stream as its
// session ends is refused at once, not left half-open), let in-flight POSTs answer, end every
// session (which ends its streams), let those responses finish, then cut whatever connection is left.
export const shutdown = (
  node: NodeHttp.Server,
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
    yield* Effect.sync(() => node.listening && node.close())
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
    yield* Effect.sync(() => node.closeAllConnections())
    yield* Effect.logInfo(`MCP over HTTP stopped; closed ${open.length} session(s)`)
  })

/**
 * Every URL but the endpoint's own: the endpoint under a router's matching (a trailing slash, …),
 * the protected-resource metadata at each of its paths behind authorization, and the console's
 * pages when one is provided.
 */
export const routes = (
  path: string,
  endpoint: Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    never,
    HttpServerRequest.HttpServerRequest | Scope.Scope
  >,
  guard: Option.Option<Auth.Protected>,
  operator: Option.Option<Console.Console["Service"]>
) =>
  Effect.gen(function*() {
    const router = yield* HttpRouter.make
    yield* router.add("*", path as HttpRouter.PathInput, endpoint)
    if (Option.isSome(guard)) {
      const metadata = HttpServerResponse.jsonUnsafe(guard.value.metadata)
      for (const at of guard.value.metadataPaths) {
        yield* router.add("GET", at as HttpRouter.PathInput, Effect.succeed(metadata))
      }
    }
    if (Option.isSome(operator)) {
      // The wildcard route serves the page's own path too.
      yield* router.add("*", `${operator.value.path}/*`, operator.value.handler(Option.getOrUndefined(guard)))
    }
    return router.asHttpEffect()
  })
