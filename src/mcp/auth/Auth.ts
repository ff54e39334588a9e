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
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
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
