/**
 * Serving an MCP face over Streamable HTTP, on Effect's HTTP server.
 *
 * Hosts that connect over the network (and every host that wants more than one client on one
 * server) speak Streamable HTTP, in one of two revisions on the same endpoint: a 2026-07-28 client
 * sends each request whole and is answered on the stateless path (`v2026/`); a 2025-11-25 client has
 * a session, a GET stream and `Last-Event-ID` to resume (`v2025/`). The endpoint is one route
 * (`internal/httpServe`, the path a request takes in `Endpoint`): `route` and `layerRoute` add it to
 * a router of one's own, beside `McpAuth`'s metadata routes and middleware and `McpConsole`'s page;
 * `serve` and `serveFace` assemble the same parts on a server they bind themselves, and shut it down
 * in order (refuse, let in-flight calls answer, end every session, stop the server).
 *
 * @since 0.1.0
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import type { ServeError } from "effect/http/HttpServerError"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as NodeHttp from "node:http"
import type * as Bundle from "../core/Bundle.ts"
import type * as ResolveError from "../core/ResolveError.ts"
import * as Auth from "./auth/Auth.ts"
import * as Console from "./console/Console.ts"
import * as Face from "./face/Face.ts"
import * as HttpChecks from "./transport/HttpChecks.ts"
import * as HttpRequest from "./Endpoint.ts"
import * as Stateless from "./v2026/Stateless.ts"
import * as Serving from "./internal/httpServe.ts"
import type { HttpOptions } from "./internal/httpServe.ts"
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
export type { HttpOptions } from "./internal/httpServe.ts"

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
 * Its router is assembled from the parts one composes on one's own (`route`, `McpAuth.middleware`
 * and `McpAuth.metadataRoutes`, `McpConsole.route`): an `McpAuth` resource server provided to it puts
 * the endpoint and the console behind it and serves its metadata; an `McpConsole` provided to it is
 * shown the calls and mounted.
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
  face: Face.Face,
  options: HttpOptions = {},
  stateless?: Stateless.Stateless
): Effect.Effect<Served, ServeError | HttpChecks.UnguardedBind, Scope.Scope> =>
  Effect.gen(function*() {
    const host = options.host ?? "127.0.0.1"
    yield* Serving.checkBind(host, options)
    const node = NodeHttp.createServer()
    const server = yield* NodeHttpServer.make(() => node, { port: options.port ?? 0, host }).pipe(
      Effect.mapError((error) => PortInUse.inUse(error.cause) ? PortInUse.make(host, options.port ?? 0) : error)
    )
    // Should the scope close before serving began, no connection is left to hold the close open.
    yield* Effect.addFinalizer(() => Effect.sync(() => node.closeAllConnections()))
    const port = server.address._tag === "UnixPathAddress" ? options.port ?? 0 : server.address.port
    const console = Option.getOrUndefined(yield* Effect.serviceOption(Console.Console))
    const mounted = yield* Serving.mount(face, options, { host, port, stateless, console })
    const guard = Option.map(yield* Effect.serviceOption(Auth.ResourceServer), (rs) => Auth.protect(rs, mounted.url))
    // What `McpAuth.middleware` does to the routes of one's own router.
    const behind = <E, R>(handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
      Option.isSome(guard) ? Auth.behind(guard.value)(handler) : handler
    const routes = [
      ...Option.match(guard, { onNone: () => [], onSome: Auth.metadataRoutes }),
      ...(console === undefined ? [] : [Console.route(console)])
    ]
    const router = yield* HttpRouter.make
    // The endpoint under a router's matching too (a trailing slash, …).
    yield* router.addAll([
      HttpRouter.route("*", mounted.path, behind(mounted.endpoint)),
      ...routes.map((route) => HttpRouter.route(route.method, route.path, behind(route.handler)))
    ])
    yield* server.serve(HttpRequest.onPath(mounted.path, behind(mounted.endpoint), router.asHttpEffect()))
    // Added last, so it runs before the server's own finalizers.
    yield* Effect.addFinalizer(() => mounted.stop(node))
    return yield* announce(mounted, host, port, console)
  })

// The URL served (and the console's link) said once, as every door says it.
const announce = (
  mounted: Serving.Mounted,
  host: string,
  port: number,
  console: Console.Console["Service"] | undefined
): Effect.Effect<Served> =>
  Effect.gen(function*() {
    const link = console === undefined ? undefined : Serving.urlFor(host, port, console.link)
    yield* Effect.logInfo(`MCP over HTTP at ${mounted.url}`)
    if (link !== undefined) yield* Effect.logInfo(`Console at ${link}`)
    return {
      url: mounted.url,
      host,
      port,
      path: mounted.path,
      face: mounted.face,
      sessions: mounted.sessions,
      endSession: mounted.endSession,
      ...(link === undefined ? {} : { console: link })
    }
  })

/**
 * Where and how the endpoint is served on a router of one's own: `HttpOptions` but the bind, which
 * is the router's server's.
 *
 * @example
 * ```ts
 * import type { McpHttp } from "effect-surface/mcp"
 * const options: McpHttp.RouteOptions = { path: "/mcp", allowedHosts: ["mcp.example.com"] }
 * ```
 *
 * @since 0.1.0
 */
export interface RouteOptions extends Omit<HttpOptions, "port" | "host"> {}

/**
 * Add an existing face's endpoint to the `HttpRouter` in context, at `options.path` (default
 * `/mcp`), served as `serveFace` serves it — both revisions, sessions, bounds, the drain — with the
 * address of the HTTP server in context. Released with its scope: new requests are refused, those in
 * flight answer (within `drainTimeout`), and every session ends. Behind a resource server when
 * `McpAuth.middleware` is provided to the route; shown to `console` when one is given.
 *
 * The server stops taking connections first when the router's layer is released (`HttpRouter.serve`
 * waits up to its server's `gracefulShutdownTimeout` for open ones, a 2025 session's stream among
 * them), and only then is the route released; `serve` orders its own server's close after the drain.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { McpFace, McpHttp } from "effect-surface/mcp"
 *
 * declare const options: McpFace.Options
 * const routed = Layer.effect(McpHttp.Endpoint, Effect.flatMap(McpFace.make(options), (face) => McpHttp.route(face, { path: "/mcp" })))
 * ```
 *
 * @since 0.1.0
 */
export const route = (
  face: Face.Face,
  options: RouteOptions = {},
  composed: { readonly stateless?: Stateless.Stateless; readonly console?: Console.Console["Service"] } = {}
): Effect.Effect<Served, HttpChecks.UnguardedBind, HttpRouter.HttpRouter | HttpServer.HttpServer | Scope.Scope> =>
  Effect.gen(function*() {
    const { host, port } = Serving.addressOf((yield* HttpServer.HttpServer).address)
    yield* Serving.checkBind(host, options)
    const mounted = yield* Serving.mount(face, options, { host, port, ...composed })
    yield* (yield* HttpRouter.HttpRouter).add("*", mounted.path, mounted.endpoint)
    yield* Effect.addFinalizer(() => mounted.stop())
    return yield* announce(mounted, host, port, composed.console)
  })

/**
 * A face's options, and how its endpoint is routed on a router of one's own.
 *
 * @example
 * ```ts
 * import type { McpFace, McpHttp } from "effect-surface/mcp"
 *
 * declare const face: McpFace.Options
 * const options: McpHttp.RouteLayerOptions = { ...face, http: { path: "/mcp" }, console: true }
 * ```
 *
 * @since 0.1.0
 */
export interface RouteLayerOptions<E = never, R = never, C extends Bundle.Clients = Bundle.Clients>
  extends Face.Options<E, R, C>, Stateless.Options
{
  readonly http?: RouteOptions
  /**
   * Show the endpoint's calls to the `McpConsole` in context, and hold those it holds; its page is
   * mounted with `McpConsole.layerRoutes`. Default `false`.
   */
  readonly console?: boolean
}

/**
 * Build a face from its options and add its endpoint to the `HttpRouter` in context, as `route`
 * does: effect's `HttpRouter` composition, beside one's own routes, middleware and server.
 *
 * @example
 * ```ts
 * import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
 * import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
 * import { Layer } from "effect"
 * import { HttpRouter, HttpServerResponse } from "effect/http"
 * import { McpHttp } from "effect-surface/mcp"
 * import type { McpFace } from "effect-surface/mcp"
 * import { createServer } from "node:http"
 *
 * declare const options: McpFace.Options
 * const app = Layer.mergeAll(
 *   McpHttp.layerRoute({ ...options, http: { path: "/mcp" } }),
 *   HttpRouter.add("GET", "/health", HttpServerResponse.text("ok"))
 * )
 * HttpRouter.serve(app).pipe(
 *   Layer.provide(NodeHttpServer.layer(createServer, { port: 3000 })),
 *   Layer.launch,
 *   NodeRuntime.runMain
 * )
 * ```
 *
 * @since 0.1.0
 */
export function layerRoute<E, R, C extends Bundle.Clients = Bundle.Clients>(
  options: RouteLayerOptions<E, R, C> & { readonly console: true }
): Layer.Layer<
  Endpoint,
  ResolveError.ResolveError | HttpChecks.UnguardedBind,
  Exclude<R, Scope.Scope> | HttpRouter.HttpRouter | HttpServer.HttpServer | Console.Console
>
export function layerRoute<E, R, C extends Bundle.Clients = Bundle.Clients>(
  options: RouteLayerOptions<E, R, C>
): Layer.Layer<
  Endpoint,
  ResolveError.ResolveError | HttpChecks.UnguardedBind,
  Exclude<R, Scope.Scope> | HttpRouter.HttpRouter | HttpServer.HttpServer
>
export function layerRoute<E, R, C extends Bundle.Clients = Bundle.Clients>(
  options: RouteLayerOptions<E, R, C>
): Layer.Layer<
  Endpoint,
  ResolveError.ResolveError | HttpChecks.UnguardedBind,
  Exclude<R, Scope.Scope> | HttpRouter.HttpRouter | HttpServer.HttpServer | Console.Console
> {
  return Layer.effect(
    Endpoint,
    Effect.gen(function*() {
      const console = options.console === true ? yield* Console.Console : undefined
      const [face, stateless] = yield* Effect.all([Face.make(options), Stateless.make(options)])
      return yield* route(face, options.http, { stateless, ...(console === undefined ? {} : { console }) })
    })
  )
}

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
