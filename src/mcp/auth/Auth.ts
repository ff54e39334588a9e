/**
 * The HTTP faces as an OAuth 2.1 resource server: what the MCP authorization specification asks of
 * a server, in one place every HTTP face reads.
 *
 * Put `layer` in an HTTP face's context and every request to it must carry a bearer token the
 * `TokenVerifier` accepts for this resource: a request without one, or with a malformed, expired or
 * foreign one, is answered 401 with a challenge naming where the protected-resource metadata is
 * (RFC 9728, served at both of its well-known URLs); a request for a member its token's scopes do
 * not reach is answered 403 `insufficient_scope`, naming the scope to step up to. The token is read
 * from the `Authorization` header only, checked, and dropped: it is never logged, kept, or sent on.
 * Without the layer a face serves as before (stdio never asks: it is a local child of its host).
 *
 * On a router of one's own the same parts are composed by hand: `layerRoutes` serves the metadata,
 * and `middleware` puts the routes it is provided to (the MCP endpoint's, the console's, one's own)
 * behind the resource server; `McpHttp.serve` is assembled from these same parts.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type * as Identity from "../../core/Identity.ts"
import * as HttpChecks from "../transport/HttpChecks.ts"
import * as TokenVerifier from "./TokenVerifier.ts"

/**
 * How the resource server describes itself.
 *
 * @example
 * ```ts
 * import type { McpAuth } from "effect-surface/mcp"
 * const options: McpAuth.Options = { resource: "https://mcp.example.com/mcp", scopesSupported: ["board:read", "board:write"] }
 * ```
 *
 * @since 0.1.0
 */
export interface Options {
  /**
   * This resource's identifier, the audience its tokens must name. As a URL it is also where clients
   * reach the server — behind a load balancer, the public URL (`https://mcp.example.com/mcp`) — and
   * a 401's challenge names the metadata under it. Default: the endpoint's listening URL.
   */
  readonly resource?: string
  /** Default: the verifier's issuer. */
  readonly authorizationServers?: ReadonlyArray<string>
  /** The scopes a client may ask for here. */
  readonly scopesSupported?: ReadonlyArray<string>
  /** The scopes a token needs to be accepted at all (asked for in every challenge). Default none. */
  readonly requiredScopes?: ReadonlyArray<string>
  /** A human-readable name for the metadata. */
  readonly resourceName?: string
  /** The largest `Authorization` header read; a longer one is refused unread. Default 8 KiB. */
  readonly maxTokenBytes?: number
}

/**
 * The resource server an HTTP face checks each request with.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpAuth } from "effect-surface/mcp"
 * const issuer = Effect.map(Effect.service(McpAuth.ResourceServer), (server) => server.verifier.issuer)
 * ```
 *
 * @since 0.1.0
 */
export class ResourceServer extends Context.Service<ResourceServer, {
  readonly options: Options
  readonly verifier: TokenVerifier.TokenVerifier["Service"]
}>()("effect-surface/McpAuth/ResourceServer") {}

/**
 * The resource server over the `TokenVerifier` in context.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { McpAuth, McpHttp, McpTokenVerifier } from "effect-surface/mcp"
 * import type { McpFace } from "effect-surface/mcp"
 *
 * declare const face: McpFace.Options
 * const served = McpHttp.layer({ ...face, http: { port: 3000 } }).pipe(
 *   Layer.provide(McpAuth.layer({ scopesSupported: ["board:read", "board:write"] })),
 *   Layer.provide(McpTokenVerifier.layerJwt({ issuer: "https://auth.example.com" }))
 * )
 * ```
 *
 * @since 0.1.0
 */
export const layer = (options: Options = {}): Layer.Layer<ResourceServer, never, TokenVerifier.TokenVerifier> =>
  Layer.effect(
    ResourceServer,
    Effect.map(Effect.service(TokenVerifier.TokenVerifier), (verifier) => ResourceServer.of({ options, verifier }))
  )

/**
 * Where an endpoint's protected-resource metadata is served: the path-suffixed form first (the one
 * a challenge names), then the root form.
 *
 * @example
 * ```ts
 * import { McpAuth } from "effect-surface/mcp"
 * McpAuth.metadataPaths("/mcp") // ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]
 * ```
 *
 * @since 0.1.0
 */
export const metadataPaths = (path: string): readonly [string, string] => [
  `/.well-known/oauth-protected-resource${path === "/" ? "" : path}`,
  "/.well-known/oauth-protected-resource"
]

/**
 * One served endpoint's view of its resource server: its resource, metadata and challenges.
 *
 * @example
 * ```ts
 * import { McpAuth } from "effect-surface/mcp"
 * declare const server: McpAuth.ResourceServer["Service"]
 * const endpoint = McpAuth.protect(server, "http://127.0.0.1:3000/mcp")
 * endpoint.metadataUrl // "http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp"
 * ```
 *
 * @since 0.1.0
 */
export interface Protected {
  readonly resource: string
  /** Where a client reads the metadata: under the resource's own origin when it is a URL (see `publicUrl`). */
  readonly metadataUrl: string
  /** The paths this server answers the metadata at: those of the listening path and of the public one. */
  readonly metadataPaths: ReadonlyArray<string>
  /** The RFC 9728 document. */
  readonly metadata: { readonly [key: string]: unknown }
  /** Who the request's `Authorization` header names, or the 401 (or 503) to answer. */
  readonly authenticate: (
    authorization: string | undefined
  ) => Effect.Effect<Identity.Principal, HttpChecks.Refusal>
  /**
   * The 403 for a request needing `scope`; its challenge asks for the scopes the caller already
   * holds and that one, so a client stepping up keeps what it had.
   */
  readonly insufficientScope: (scope: string, what: string, held?: ReadonlyArray<string>) => HttpChecks.Refusal
}

/**
 * Where clients reach the endpoint listening at `url`: the resource it serves when that names an
 * `http:` or `https:` URL — behind a load balancer, its public URL, the audience its tokens name —
 * and the listening URL otherwise. The one place the challenge's metadata URL, the metadata's
 * paths and the metadata's `resource` all come from, so a remote client is never sent to the
 * address the server listens at.
 *
 * @example
 * ```ts
 * import { McpAuth } from "effect-surface/mcp"
 * McpAuth.publicUrl({ resource: "https://mcp.example.com/mcp" }, "http://127.0.0.1:3000/mcp").href
 * // "https://mcp.example.com/mcp"
 * ```
 *
 * @since 0.1.0
 */
export const publicUrl = (options: Pick<Options, "resource">, url: string): URL => {
  const named = options.resource === undefined || !URL.canParse(options.resource)
    ? undefined
    : new URL(options.resource)
  return named !== undefined && (named.protocol === "https:" || named.protocol === "http:") ? named : new URL(url)
}

const quoted = (value: string) => `"${value.replace(/["\\]/g, "")}"`

// RFC 6750 §2.1: the scheme is case-insensitive; the token is token68.
const bearer = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i

/**
 * The protection of the endpoint served at `url` (its resource, unless `options.resource` names another,
 * which is then also where its challenges send a client: see `publicUrl`).
 *
 * @example
 * ```ts
 * import { McpAuth } from "effect-surface/mcp"
 * declare const server: McpAuth.ResourceServer["Service"]
 * const { metadata } = McpAuth.protect(server, "http://127.0.0.1:3000/mcp")
 * ```
 *
 * @since 0.1.0
 */
export const protect = (server: ResourceServer["Service"], url: string): Protected => {
  const { options, verifier } = server
  const resource = options.resource ?? url
  const reached = publicUrl(options, url)
  const metadataUrl = `${reached.origin}${metadataPaths(reached.pathname)[0]}`
  // A proxy passes the public path's well-known URL on as it is; a client on the listening address asks there.
  const paths = [...new Set([...metadataPaths(reached.pathname), ...metadataPaths(new URL(url).pathname)])]
  const required = options.requiredScopes ?? []
  const metadata = {
    resource,
    authorization_servers: options.authorizationServers ?? [verifier.issuer],
    scopes_supported: options.scopesSupported ?? [],
    bearer_methods_supported: ["header"],
    ...(options.resourceName === undefined ? {} : { resource_name: options.resourceName })
  }
  const challenge = (error?: { readonly code: string; readonly description: string }, scope = required.join(" ")) =>
    [
      `Bearer resource_metadata=${quoted(metadataUrl)}`,
      ...(scope === "" ? [] : [`scope=${quoted(scope)}`]),
      ...(error === undefined ? [] : [`error=${quoted(error.code)}`, `error_description=${quoted(error.description)}`])
    ].join(", ")
  const unauthorized = (description: string, code?: string) =>
    new HttpChecks.Refusal({
      status: 401,
      code: -32001,
      message: `Unauthorized: ${description}`,
      challenge: challenge(code === undefined ? undefined : { code, description })
    })
  const maxBytes = options.maxTokenBytes ?? 8 * 1024
  // Built once: a request pays for the check, not for assembling it.
  const refusals = {
    InvalidToken: (invalid: TokenVerifier.InvalidToken) => Effect.fail(unauthorized(invalid.message, "invalid_token")),
    VerifierUnavailable: (down: TokenVerifier.VerifierUnavailable) =>
      Effect.fail(new HttpChecks.Refusal({ status: 503, code: -32000, message: down.message, retryAfter: 5 }))
  }
  const holdsRequired = (principal: Identity.Principal): Effect.Effect<Identity.Principal, HttpChecks.Refusal> => {
    const lacking = required.find((scope) => !principal.scopes.includes(scope))
    return lacking === undefined ? Effect.succeed(principal)
      : Effect.fail(insufficientScope(lacking, "this server", principal.scopes))
  }
  const authenticate = (authorization: string | undefined) => {
    if (authorization === undefined || authorization.trim() === "") {
      return Effect.fail(unauthorized("this server needs a bearer token (see its protected-resource metadata)"))
    }
    if (authorization.length > maxBytes) {
      return Effect.fail(unauthorized(`the Authorization header is longer than ${maxBytes} bytes`, "invalid_token"))
    }
    const token = bearer.exec(authorization)?.[1]
    if (token === undefined) {
      return Effect.fail(unauthorized("the Authorization header is not \"Bearer <token>\"", "invalid_token"))
    }
    const verified = verifier.verify(token, resource)
    return Effect.catchTags(required.length === 0 ? verified : Effect.flatMap(verified, holdsRequired), refusals)
  }
  const insufficientScope = (scope: string, what: string, held: ReadonlyArray<string> = []) =>
    new HttpChecks.Refusal({
      status: 403,
      code: -32001,
      message: `Forbidden: ${what} needs scope ${scope}, which this token was not granted`,
      challenge: challenge(
        { code: "insufficient_scope", description: `${what} needs scope ${scope}` },
        [...new Set([...required, ...held, scope])].join(" ")
      )
    })
  return { resource, metadataUrl, metadataPaths: paths, metadata, authenticate, insufficientScope }
}

/**
 * The resource server a request is served behind, as its endpoint sees it: provided to each request
 * of the routes `middleware` is provided to. A route checks the request's token with it at its own
 * place in its order of refusals: the MCP endpoint after `Host`/`Origin` and under its in-flight
 * bound, the console after its loopback check; a route of one's own calls `authenticate` first.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
 * import { McpAuth, McpHttpChecks } from "effect-surface/mcp"
 *
 * // A route of one's own behind the same tokens as the endpoint: who is calling, or the refusal.
 * const whoami = HttpRouter.add("GET", "/whoami", Effect.gen(function*() {
 *   const bearer = yield* McpAuth.Bearer
 *   const request = yield* HttpServerRequest.HttpServerRequest
 *   const caller = yield* bearer.authenticate(request.headers["authorization"])
 *   return HttpServerResponse.text(caller.subject)
 * }).pipe(Effect.catchTag("Refusal", (refusal) => Effect.succeed(McpHttpChecks.respond(refusal)))))
 * ```
 *
 * @since 0.1.0
 */
export class Bearer extends Context.Service<Bearer, Protected>()("effect-surface/McpAuth/Bearer") {}

/**
 * The protection of the endpoint at `path` on the HTTP server in context (its listening URL is the
 * server's address and `path`): the one value `layerRoutes` and `middleware` both read.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpAuth } from "effect-surface/mcp"
 *
 * const challengeNames = Effect.map(McpAuth.protectAt("/mcp"), (endpoint) => endpoint.metadataUrl)
 * ```
 *
 * @since 0.1.0
 */
export const protectAt = (
  path: `/${string}` = "/mcp"
): Effect.Effect<Protected, never, ResourceServer | HttpServer.HttpServer> =>
  Effect.gen(function*() {
    const server = yield* ResourceServer
    const { address } = yield* HttpServer.HttpServer
    return protect(server, `${HttpServer.formatAddress(address)}${path}`)
  })

/**
 * The routes answering an endpoint's protected-resource metadata (RFC 9728): a `GET` at each of its
 * `metadataPaths`. `McpHttp.serve` adds them to its router; `layerRoutes` to one's own.
 *
 * @example
 * ```ts
 * import { McpAuth } from "effect-surface/mcp"
 * declare const endpoint: McpAuth.Protected
 * const routes = McpAuth.metadataRoutes(endpoint) // GET /.well-known/oauth-protected-resource/mcp, …
 * ```
 *
 * @since 0.1.0
 */
export const metadataRoutes = (endpoint: Protected): ReadonlyArray<HttpRouter.Route> => {
  const document = HttpServerResponse.jsonUnsafe(endpoint.metadata)
  return endpoint.metadataPaths.map((at) => HttpRouter.route("GET", at as HttpRouter.PathInput, document))
}

/**
 * The metadata of the endpoint at `path` (default `/mcp`) as routes on the `HttpRouter` in context,
 * over the `ResourceServer` and the HTTP server in context.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { McpAuth, McpHttp } from "effect-surface/mcp"
 * import type { McpFace } from "effect-surface/mcp"
 *
 * declare const options: McpFace.Options
 * const routes = Layer.mergeAll(McpHttp.layerRoute(options), McpAuth.layerRoutes({ path: "/mcp" })).pipe(
 *   Layer.provide(McpAuth.middleware({ path: "/mcp" }).layer)
 * )
 * ```
 *
 * @since 0.1.0
 */
export const layerRoutes = (
  options: { readonly path?: `/${string}` } = {}
): Layer.Layer<never, never, HttpRouter.HttpRouter | ResourceServer | HttpServer.HttpServer> =>
  HttpRouter.addAll(Effect.map(protectAt(options.path), metadataRoutes))

/**
 * Serve `handler` behind `endpoint`: the request sees it as its `Bearer`. What `middleware` does to
 * every route it is provided to, and what `McpHttp.serve` does to the routes of its own router.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { HttpServerResponse } from "effect/http"
 * import { McpAuth } from "effect-surface/mcp"
 *
 * declare const endpoint: McpAuth.Protected
 * const guarded = McpAuth.behind(endpoint)(Effect.map(McpAuth.Bearer, (b) => HttpServerResponse.text(b.resource)))
 * ```
 *
 * @since 0.1.0
 */
export const behind = (endpoint: Protected) =>
<E, R>(
  handler: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, Exclude<R, Bearer>> =>
  Effect.provideService(handler, Bearer, endpoint)

/**
 * Route middleware putting the routes it is provided to behind the resource server in context, as
 * the endpoint at `path` (default `/mcp`) sees it: each request's token is checked by the route
 * that reads `Bearer` — the MCP endpoint and the console each at their own place in their order of
 * refusals, so a refusal reads as it does from `McpHttp.serve`. Provide its `layer` to the routes.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { McpAuth, McpHttp, McpTokenVerifier } from "effect-surface/mcp"
 * import type { McpFace } from "effect-surface/mcp"
 *
 * declare const options: McpFace.Options
 * const protectedRoutes = Layer.mergeAll(McpHttp.layerRoute(options), McpAuth.layerRoutes()).pipe(
 *   Layer.provide(McpAuth.middleware().layer),
 *   Layer.provide(McpAuth.layer({ scopesSupported: ["board:read"] })),
 *   Layer.provide(McpTokenVerifier.layerJwt({ issuer: "https://auth.example.com" }))
 * )
 * ```
 *
 * @since 0.1.0
 */
export const middleware = (options: { readonly path?: `/${string}` } = {}) =>
  HttpRouter.middleware<{ provides: Bearer }>()(
    Effect.map(protectAt(options.path), (endpoint) => (effect) => behind(endpoint)(effect))
  )
