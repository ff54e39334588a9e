/**
 * Serving an MCP face over Streamable HTTP, on Effect's HTTP server.
 *
 * Hosts that connect over the network (and every host that wants more than one client on one
 * server) speak Streamable HTTP: a POST per message, an optional GET stream for what the server
 * says unprompted, a `Mcp-Session-Id` per session, `Last-Event-ID` to resume. The SDK's web-standard
 * transport owns that protocol; this module owns what is around it — binding, the session table
 * (`HttpSessions`), refusals before a session is reached (`HttpGuard`), resumable events
 * (`EventStore`), and a shutdown that lets in-flight calls answer before every session is closed.
 *
 * @since 0.1.0
 */
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Duration, Effect, Layer, Option, Queue, Ref, Scope } from "effect"
import * as HttpEffect from "effect/http/HttpEffect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type { ServeError } from "effect/http/HttpServerError"
import * as NodeHttp from "node:http"
import type * as Bundle from "../core/Bundle.ts"
import type * as ResolveError from "../core/ResolveError.ts"
import * as EventStore from "./EventStore.ts"
import * as Face from "./Face.ts"
import * as HttpGuard from "./HttpGuard.ts"
import * as HttpResponse from "./HttpResponse.ts"
import * as HttpSessions from "./HttpSessions.ts"
import * as Web from "./internal/web.ts"
import { McpServer } from "./McpServer.ts"

/**
 * Where and how the face is served over HTTP.
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
  /** The most sessions open at once; an `initialize` beyond them is answered 503. Default 1000. */
  readonly maxSessions?: number
  /** How long a shutdown waits for in-flight POSTs to answer before closing their sessions. Default 10 seconds. */
  readonly drainTimeout?: Duration.Input
  /** Refuse foreign `Host`/`Origin` headers (403). Default: on for a loopback bind or when a list is given. */
  readonly dnsRebindingProtection?: boolean
  /** `Host` values served: names (bound port or none) or `name:port`. Default the loopback names. */
  readonly allowedHosts?: ReadonlyArray<string>
  /** Exact origins allowed. Default any origin on a loopback name. A request with no `Origin` is not checked. */
  readonly allowedOrigins?: ReadonlyArray<string>
  /** The SSE `retry` hint sent with each priming event, for clients that poll. */
  readonly retryInterval?: Duration.Input
}

/**
 * A face's options plus where to serve it.
 *
 * @since 0.1.0
 */
export interface Options<E = never, R = never, C extends Bundle.Clients = Bundle.Clients> extends Face.Options<E, R, C> {
  readonly http?: HttpOptions
}

/**
 * A face being served: where, and its live sessions.
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
  /** The ids of the sessions open now. */
  readonly sessions: Effect.Effect<ReadonlyArray<string>>
  /** End a session as a `DELETE` would. */
  readonly endSession: (id: string) => Effect.Effect<void>
}

/**
 * The served endpoint, as a service.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpHttp } from "effect-surface/mcp"
 *
 * const program = Effect.gen(function*() {
 *   const endpoint = yield* McpHttp.Endpoint
 *   yield* Effect.log(`serving at ${endpoint.url}`)
 * }).pipe(Effect.provide(McpHttp.layer({ ...options, http: { port: 3000 } })))
 * ```
 *
 * @since 0.1.0
 */
export class Endpoint extends Context.Service<Endpoint, Served>()("effect-surface/McpHttp/Endpoint") {}

// What a shutdown waits for: POSTs being admitted, responses not yet written, and the requests
// admitted and not yet answered (keyed by session and JSON-RPC id). Counted on every request, so
// kept as plain values changed in single synchronous steps (each atomic), not as a published ref;
// once a shutdown has begun, each change pokes it to look again.
interface Drain {
  admitting: number
  responses: number
  readonly awaiting: Set<string>
}

const awaitKey = (session: string, id: unknown) => `${session} ${JSON.stringify(id)}`

const refuse = (status: number, code: number, message: string) => Effect.fail(new HttpGuard.Refusal({ status, code, message }))

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
export const serveFace = (face: Face.Face, options: HttpOptions = {}): Effect.Effect<Served, ServeError, Scope.Scope> =>
  Effect.gen(function*() {
    const host = options.host ?? "127.0.0.1"
    const path = options.path ?? "/mcp"
    const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024
    const drainTimeout = Duration.fromInputUnsafe(options.drainTimeout ?? "10 seconds")

    const node = NodeHttp.createServer()
    const server = yield* NodeHttpServer.make(() => node, { port: options.port ?? 0, host })
    // Should the scope close before serving began, no connection is left to hold the close open.
    yield* Effect.addFinalizer(() => Effect.sync(() => node.closeAllConnections()))
    const port = server.address._tag === "UnixPathAddress" ? options.port ?? 0 : server.address.port
    const allow = HttpGuard.allowFor({
      host,
      port,
      protect: options.dnsRebindingProtection,
      allowedHosts: options.allowedHosts,
      allowedOrigins: options.allowedOrigins
    })
    if (allow.hosts === undefined && allow.origins === undefined && options.dnsRebindingProtection !== false) {
      yield* Effect.logWarning(`MCP over HTTP bound to ${host} with no allowedHosts or allowedOrigins: Host and Origin are not checked`)
    }
    const store = Option.getOrElse(yield* Effect.serviceOption(EventStore.EventStore), () => EventStore.makeMemory())
    const table = yield* HttpSessions.make(face, store, {
      idleTimeout: Duration.fromInputUnsafe(options.idleTimeout ?? "10 minutes"),
      maxSessions: options.maxSessions ?? 1000,
      retryInterval: options.retryInterval === undefined ? undefined : Duration.toMillis(Duration.fromInputUnsafe(options.retryInterval))
    })
    const closing = yield* Ref.make(false)
    // Touched only in single synchronous steps; see `Drain`.
    const drain: Drain = { admitting: 0, responses: 0, awaiting: new Set() }
    // Cancellations that arrived before their requests; see `admitPost`. Same discipline as `drain`.
    const cancelledEarly = new Set<string>()
    const maxCancelledEarly = 1024
    // Poked at each change once a shutdown has begun (it only needs to re-check, so one poke is enough).
    const changed = yield* Queue.sliding<void>(1)
    const count = (change: (drain: Drain) => void) =>
      Effect.sync(() => {
        change(drain)
        if (Ref.getUnsafe(closing)) Queue.offerUnsafe(changed, undefined)
      })
    // Wait (at most `within`) for the drain to reach a state.
    const settled = (done: (drain: Drain) => boolean, within: Duration.Duration, late: string) =>
      Effect.suspend(function recheck(): Effect.Effect<void> {
        return done(drain) ? Effect.void : Effect.andThen(Queue.take(changed), recheck)
      }).pipe(
        Effect.timeoutOrElse({ duration: within, orElse: () => Effect.logWarning(`MCP over HTTP after ${Duration.format(within)}: ${late}`) })
      )
    const urlHost = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host
    const url = `http://${urlHost}:${port}${path}`

    // The URL the transport is told a request came to, as `toURL` reads it off the request's `Host`
    // and path: the same few on every request, so remembered (bounded, a memo of a pure function).
    const urls = new Map<string, string>()
    const urlOf = (request: HttpServerRequest.HttpServerRequest): string => {
      const key = `${request.headers.host ?? ""} ${request.url}`
      const known = urls.get(key)
      if (known !== undefined) return known
      const href = Option.match(HttpServerRequest.toURL(request), { onNone: () => url, onSome: (parsed) => parsed.href })
      if (urls.size >= 64) urls.clear()
      urls.set(key, href)
      return href
    }
    // The body was read (and bounded) here, so the SDK is handed it parsed.
    const forward = (entry: HttpSessions.Entry, request: HttpServerRequest.HttpServerRequest, body: Option.Option<unknown>) =>
      Effect.tryPromise({
        try: () =>
          entry.transport.handleRequest(
            Web.toWebRequest(request.method, urlOf(request), Web.headersFor(request.headers, Ref.getUnsafe(entry.version))),
            Option.isSome(body) ? { parsedBody: body.value } : undefined
          ),
        catch: (cause) => new HttpGuard.Refusal({ status: 500, code: -32603, message: `Internal error: ${String(cause)}` })
      })

    // What one request has counted, undone in one step when its scope closes (when its body has
    // been written): its response, the session it used and the requests it carried. Filled in as
    // the request proceeds, each entry in the same uninterruptible step as what it records.
    interface Ledger {
      entry: HttpSessions.Entry | undefined
      asked: ReadonlyArray<string>
    }
    const settle = (ledger: Ledger) =>
      Effect.suspend(() => {
        const { asked, entry } = ledger
        return Effect.andThen(
          count((d) => {
            d.responses--
            for (const key of asked) d.awaiting.delete(key)
          }),
          entry === undefined ? Effect.void : table.touch(entry, -1)
        )
      })
    const openLedger = Effect.flatMap(Effect.scope, (scope) =>
      Effect.uninterruptible(Effect.suspend(() => {
        const ledger: Ledger = { entry: undefined, asked: [] }
        return Effect.as(Effect.andThen(count((d) => d.responses++), Scope.addFinalizer(scope, settle(ledger))), ledger)
      })))

    // The session a request names, or the one its `initialize` opens; counted as in use while the
    // request's response is open.
    const sessionFor = (request: HttpServerRequest.HttpServerRequest, body: Option.Option<unknown>, ledger: Ledger) =>
      Effect.gen(function*() {
        const id = request.headers["mcp-session-id"]
        const opening = id === undefined && Option.isSome(body) && Web.initializes(body.value)
        const entry = opening
          ? yield* table.open
          : id === undefined
          ? yield* refuse(400, -32000, "Bad Request: Mcp-Session-Id header is required")
          : yield* Effect.flatMap(table.lookup(id), Option.match({ onNone: () => refuse(404, -32001, "Session not found"), onSome: Effect.succeed }))
        yield* Effect.uninterruptible(Effect.suspend(() => {
          ledger.entry = entry
          return table.touch(entry, 1)
        }))
        if (opening && Option.isSome(body)) yield* Ref.set(entry.version, Web.initializeVersion(body.value))
        return { entry, opening }
      })

    // A POST is admitted (its body read under the bound, its session found) while counted as
    // admitting; the requests it carries then await their answers until the response is written,
    // or until the client cancels them — the SDK answers nothing to a cancelled request.
    const admitPost = (request: HttpServerRequest.HttpServerRequest, ledger: Ledger) =>
      Effect.gen(function*() {
        if (!HttpGuard.isJson(request.headers["content-type"])) {
          return yield* refuse(415, -32000, "Unsupported Media Type: Content-Type must be application/json")
        }
        const body = yield* HttpGuard.readJson(request, maxBodyBytes)
        const { entry, opening } = yield* sessionFor(request, Option.some(body), ledger)
        const ids = Web.requestIds(body)
        const cancelled = Web.cancelledIds(body)
        // Over HTTP a request and its cancellation are two POSTs that may arrive in either order:
        // a cancellation for a request not seen yet is remembered, and that request never starts.
        const dropped: Array<unknown> = []
        if (ids.length > 0 || cancelled.length > 0) {
          yield* count(({ awaiting }) => {
            for (const id of cancelled) {
              const key = awaitKey(entry.id, id)
              if (!awaiting.delete(key)) cancelledEarly.add(key)
            }
            const asked: Array<string> = []
            for (const id of ids) {
              const key = awaitKey(entry.id, id)
              if (cancelledEarly.delete(key)) dropped.push(id)
              else asked.push(key)
            }
            for (const key of asked) awaiting.add(key)
            ledger.asked = asked
            // Bounded: the oldest remembered cancellations go first (a Set iterates in insertion order).
            for (const key of cancelledEarly) {
              if (cancelledEarly.size <= maxCancelledEarly) break
              cancelledEarly.delete(key)
            }
          })
        }
        return { entry, opening, body: Option.some(dropped.length === 0 ? body : Web.withoutRequests(body, dropped)), dropped }
      }).pipe(
        (admit) => Effect.uninterruptibleMask((restore) => Effect.andThen(count((d) => d.admitting++), Effect.onExit(restore(admit), () => count((d) => d.admitting--))))
      )

    const handle = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const ledger = yield* openLedger
      if (Ref.getUnsafe(closing)) return yield* refuse(503, -32000, "Service Unavailable: the server is shutting down")
      const refused = HttpGuard.checkHeaders(allow, request.headers)
      if (Option.isSome(refused)) {
        yield* Effect.logDebug(`MCP over HTTP refused: ${refused.value.message}`)
        return yield* refused.value
      }
      const method = request.method
      if (method !== "GET" && method !== "POST" && method !== "DELETE") {
        return HttpServerResponse.setHeader(HttpGuard.respond(new HttpGuard.Refusal({ status: 405, code: -32000, message: "Method not allowed." })), "allow", "GET, POST, DELETE")
      }
      const { body, dropped, entry, opening } = method === "POST"
        ? yield* admitPost(request, ledger)
        : { ...(yield* sessionFor(request, Option.none(), ledger)), body: Option.none<unknown>(), dropped: [] }
      // Every request in the POST had been cancelled before it arrived: each is answered as such.
      if (dropped.length > 0 && Option.isSome(body) && Web.isEmpty(body.value)) {
        const answers = dropped.map((id) => ({ jsonrpc: "2.0", id, error: { code: -32800, message: "Request cancelled before it started" } }))
        return HttpServerResponse.jsonUnsafe(answers.length === 1 ? answers[0] : answers, { headers: { "mcp-session-id": entry.id } })
      }
      // A client gone before its `initialize` was answered never learns the session's id.
      const web = yield* forward(entry, request, body).pipe(Effect.onInterrupt(() => opening ? table.end(entry.id) : Effect.void))
      // An initialize the transport refused (a batch, a bad message) opened no session; a DELETE
      // the transport accepted has closed it: either way the entry goes now, not when its life ends.
      if ((opening && entry.transport.sessionId === undefined) || (method === "DELETE" && web.ok)) yield* table.end(entry.id)
      if (opening && web.ok) yield* Effect.logInfo("MCP session initialized").pipe(Effect.annotateLogs("session", entry.id))
      // The request scope (and with it what was counted above) closes when the body has been
      // written: at once for a body written whole, when its stream ends for one streamed.
      // A POST whose requests produced nothing but their answers is answered as one JSON body.
      const expected = Option.match(body, { onNone: () => 0, onSome: (sent) => Web.requestIds(sent).length })
      const answer = method === "POST" ? yield* HttpResponse.settle(web, expected) : web
      return HttpEffect.scopeTransferToStream(yield* Web.toResponse(answer, method === "POST"))
    }).pipe(
      Effect.catchTags({
        Refusal: (refusal) => Effect.succeed(HttpGuard.respond(refusal)),
        Unavailable: (unavailable) => Effect.succeed(HttpGuard.respond(new HttpGuard.Refusal({ status: 503, code: -32000, message: `Service Unavailable: ${unavailable.reason}` })))
      })
    )

    const router = yield* HttpRouter.make
    yield* router.add("*", path, handle)
    yield* server.serve(router.asHttpEffect())
    // The shutdown: refuse new requests, stop accepting connections (a client reconnecting its
    // stream as its session ends is refused at once, not left half-open), let in-flight POSTs
    // answer, end every session (which ends its streams), let those responses finish, then cut
    // whatever connection is left. Added last, so it runs before the server's own finalizers.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        yield* Ref.set(closing, true)
        yield* Effect.sync(() => node.listening && node.close())
        yield* settled((d) => d.admitting === 0 && d.awaiting.size === 0, drainTimeout, "requests still unanswered; closing their sessions")
        const open = yield* table.ids
        yield* table.endAll
        yield* settled((d) => d.responses === 0, Duration.seconds(1), "responses still being written; cutting their connections")
        yield* Effect.sync(() => node.closeAllConnections())
        yield* Effect.logInfo(`MCP over HTTP stopped; closed ${open.length} session(s)`)
      })
    )
    yield* Effect.logInfo(`MCP over HTTP at ${url}`)
    return { url, host, port, path, face, sessions: table.ids, endSession: table.end } satisfies Served
  })

/**
 * Build a face from its options and serve it over Streamable HTTP until the scope closes.
 *
 * @example
 * ```ts
 * import { NodeRuntime } from "@effect/platform-node"
 * import { Effect } from "effect"
 * import { McpHttp } from "effect-surface/mcp"
 *
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
export const serve = <E, R, C extends Bundle.Clients = Bundle.Clients>(options: Options<E, R, C>): Effect.Effect<Served, ResolveError.ResolveError | ServeError, Scope.Scope | Exclude<R, Scope.Scope>> =>
  Effect.flatMap(Face.make(options), (face) => serveFace(face, options.http))

/**
 * The endpoint as a layer: builds the face, serves it, and stops (draining) when the layer is released.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { NodeRuntime } from "@effect/platform-node"
 * import { McpHttp } from "effect-surface/mcp"
 *
 * Layer.launch(McpHttp.layer({ ...options, http: { port: 3000 } })).pipe(NodeRuntime.runMain)
 * ```
 *
 * @since 0.1.0
 */
export const layer = <E, R, C extends Bundle.Clients = Bundle.Clients>(options: Options<E, R, C>): Layer.Layer<Endpoint, ResolveError.ResolveError | ServeError, Exclude<R, Scope.Scope>> =>
  Layer.effect(Endpoint, serve(options))

/**
 * Serve the face of an `McpServer` layer over HTTP, beside whatever else it is connected to.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { McpHttp, McpServer } from "effect-surface/mcp"
 *
 * const app = McpHttp.layerServer({ port: 3000 }).pipe(Layer.provide(McpServer.layer(options)))
 * ```
 *
 * @since 0.1.0
 */
export const layerServer = (options?: HttpOptions): Layer.Layer<Endpoint, ServeError, McpServer> =>
  Layer.effect(Endpoint, Effect.flatMap(Effect.service(McpServer), (server) => serveFace(server, options)))
