/**
 * Signing in to a remote MCP server with OAuth 2.1, as the MCP authorization specification has a
 * client do it: the shape a server entry and a toolset are given, and how a sign-in fails.
 *
 * A server that answers 401 is signed in to, once, then the request goes again: its protected
 * resource metadata is found (from the challenge, or at either well-known path), then its
 * authorization server's (RFC 8414 or OpenID), whose `issuer` must be the one asked about; an
 * authorization server that does not advertise PKCE S256 is refused, and so is one whose metadata
 * names an authorization, token or registration endpoint that is not `https:` (or `http:` on
 * loopback: 127.0.0.0/8, `::1`, `localhost`), before anything is registered or the person is sent
 * anywhere, so `authorize` never opens a file, a share or a program. The client is the one given
 * (`clientId`), else its metadata document's URL where the server takes one (`clientMetadataUrl`),
 * else registered (with `application_type`). The person is sent to the authorization URL by the
 * caller's `authorize`, which answers the URL they were sent back to; its `state` must be ours and
 * its `iss` the issuer's (RFC 9207) before the code is exchanged. `resource` (RFC 8707) rides every
 * authorization and token request. Tokens are kept in the toolset's token store, keyed by server and
 * issuer; an expired or refused one is refreshed first. A 403 `insufficient_scope` asks again with
 * the scopes held and those demanded, at most `MAX_STEP_UPS` times a request, and never twice for
 * the same scopes; a registered client its server holds to fewer scopes (`invalid_scope`) registers
 * again, once. The protocol steps are the SDK's (`@modelcontextprotocol/client`); the order,
 * the checks it leaves to its caller, the store and the bounds are this toolset's.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"

/**
 * How a server entry signs in: the client's name (registration), where the person is sent back to,
 * and optionally the client's metadata document URL, a pre-registered client ID (and secret), and
 * the scopes to ask for when neither the server's challenge nor its metadata names any.
 *
 * @example
 * ```ts
 * import type { McpOAuth } from "effect-surface/client"
 * const oauth: McpOAuth.ServerOptions = {
 *   clientName: "my agent",
 *   redirectUrl: "http://127.0.0.1:8765/callback",
 *   clientMetadataUrl: "https://agent.example.com/oauth/client.json"
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface ServerOptions {
  readonly clientName: string
  readonly redirectUrl: string
  /** An HTTPS URL with a path, serving this client's metadata document (used as its client ID where accepted). */
  readonly clientMetadataUrl?: string | undefined
  /** A client registered with the authorization server beforehand: registration is then skipped. */
  readonly clientId?: string | undefined
  readonly clientSecret?: string | undefined
  readonly scope?: string | undefined
}

/**
 * Sends the person to `authorizationUrl` and answers the URL the authorization server redirected
 * them back to (the `redirectUrl`, with its query). A failure ends the sign-in. The URL is always
 * `https:`, or `http:` on loopback: anything else a server's metadata names is refused first.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { McpOAuth } from "effect-surface/client"
 * declare const openBrowserAndWaitForCallback: (url: URL) => Promise<URL>
 * const authorize: McpOAuth.Authorize = (url) => Effect.promise(() => openBrowserAndWaitForCallback(url))
 * ```
 *
 * @since 0.1.0
 */
export type Authorize = (authorizationUrl: URL) => Effect.Effect<URL, unknown>

/**
 * How many times one request may step up its scopes after a 403 `insufficient_scope`.
 *
 * @example
 * ```ts
 * import { McpOAuth } from "effect-surface/client"
 * McpOAuth.MAX_STEP_UPS // 2
 * ```
 *
 * @since 0.1.0
 */
export const MAX_STEP_UPS = 2

/**
 * A sign-in that did not end with a token: the reason says which step failed and why, never a
 * credential.
 *
 * @example
 * ```ts
 * import { McpOAuth } from "effect-surface/client"
 * new McpOAuth.SignInFailed({ server: "docs", reason: "the authorization server does not advertise PKCE S256" }).message
 * ```
 *
 * @since 0.1.0
 */
export class SignInFailed extends Data.TaggedError("McpSignInFailed")<{
  readonly server: string
  readonly reason: string
}> {
  override get message(): string {
    return `signing in to MCP server "${this.server}" failed: ${this.reason}`
  }
}
