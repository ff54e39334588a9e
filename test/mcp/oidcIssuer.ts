// A real authorization server for the end-to-end tests: oidc-provider (a certified OpenID provider) on
// a free loopback port, issuing access tokens for resource indicators (JWTs, or opaque ones for the
// introspection tests), a public client `board-cli` for the authorization-code + PKCE flow, and a
// confidential `board-rs` for introspection. Login and consent are answered at once for the test
// accounts: `writer` is granted board:read and board:write, `reader` board:read only (the rest is
// recorded as refused, so the provider does not ask again). Also: a browser's part, following the
// authorization redirects with the provider's cookies up to the client's redirect URI.
import { Effect } from "effect"
import type { Scope } from "effect"
import * as Jose from "jose"
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"
import { Provider } from "oidc-provider"

export interface Oidc {
  readonly issuer: string
  readonly redirectUri: string
  /** The account the next login is answered for. */
  account: "reader" | "writer"
  /** Follow an authorization URL as a browser would; the code the redirect URI is handed. */
  readonly authorize: (url: URL) => Promise<string>
  readonly stop: () => Promise<void>
}

const granted = { reader: ["board:read"], writer: ["board:read", "board:write"] } as const

export const start = (
  options: { readonly format: "jwt" | "opaque" } = { format: "jwt" }
): Effect.Effect<Oidc, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const { privateKey } = await Jose.generateKeyPair("RS256", { extractable: true })
      const jwk = { ...(await Jose.exportJWK(privateKey)), kid: "oidc-1", alg: "RS256", use: "sig" }
      const server = NodeHttp.createServer()
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const redirectUri = `${origin}/callback`
      const provider = new Provider(origin, {
        clients: [
          {
            client_id: "board-cli",
            application_type: "native",
            token_endpoint_auth_method: "none",
            redirect_uris: [redirectUri],
            grant_types: ["authorization_code", "refresh_token"],
            response_types: ["code"]
          },
          {
            client_id: "board-rs",
            client_secret: "board-rs-secret",
            token_endpoint_auth_method: "client_secret_basic",
            redirect_uris: [],
            grant_types: [],
            response_types: []
          }
        ],
        jwks: { keys: [jwk] },
        cookies: { keys: ["cookie-key-for-tests"] },
        scopes: ["openid", "offline_access", "board:read", "board:write"],
        pkce: { required: () => true },
        findAccount: (_: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
        features: {
          devInteractions: { enabled: false },
          introspection: { enabled: true },
          resourceIndicators: {
            enabled: true,
            useGrantedResource: () => true,
            getResourceServerInfo: (_: unknown, resource: string) => ({
              scope: "board:read board:write",
              audience: resource,
              accessTokenFormat: options.format,
              accessTokenTTL: 600,
              ...(options.format === "jwt" ? { jwt: { sign: { alg: "RS256" } } } : {})
            })
          }
        },
        interactions: { url: (_: unknown, interaction: { readonly uid: string }) => `/interaction/${interaction.uid}` }
      })
      const oidc: Oidc = {
        issuer: origin,
        redirectUri,
        account: "writer",
        authorize: (url) => follow(url, redirectUri),
        stop: () =>
          new Promise<void>((resolve) => {
            server.closeAllConnections()
            server.close(() => resolve())
          })
      }
      const callback = provider.callback()
      server.on("request", (request: NodeHttp.IncomingMessage, response: NodeHttp.ServerResponse) => {
        if (request.url?.startsWith("/interaction/")) {
          void interact(provider, request, response, oidc.account).catch((error: unknown) => {
            response.statusCode = 500
            response.end(String(error))
          })
          return
        }
        callback(request, response)
      })
      return oidc
    }),
    (oidc) => Effect.promise(() => oidc.stop().catch(() => undefined))
  )

// Login as the account, then consent to its scopes and refuse the others, as a person would.
const interact = async (
  provider: Provider,
  request: NodeHttp.IncomingMessage,
  response: NodeHttp.ServerResponse,
  account: "reader" | "writer"
) => {
  const details = await provider.interactionDetails(request, response)
  if (details.prompt.name === "login") {
    return provider.interactionFinished(request, response, { login: { accountId: account } }, {
      mergeWithLastSubmission: false
    })
  }
  const grant = (details.grantId === undefined ? undefined : await provider.Grant.find(details.grantId)) ??
    new provider.Grant({
      accountId: details.session?.accountId ?? account,
      clientId: String(details.params["client_id"])
    })
  const missingOidc = details.prompt.details["missingOIDCScope"] as ReadonlyArray<string> | undefined
  if (missingOidc !== undefined) grant.addOIDCScope(missingOidc.join(" "))
  const missing = (details.prompt.details["missingResourceScopes"] ?? {}) as Record<string, ReadonlyArray<string>>
  for (const [resource, scopes] of Object.entries(missing)) {
    const allowed = scopes.filter((scope) => (granted[account] as ReadonlyArray<string>).includes(scope))
    const refused = scopes.filter((scope) => !allowed.includes(scope))
    if (allowed.length > 0) grant.addResourceScope(resource, allowed.join(" "))
    if (refused.length > 0) grant.rejectResourceScope(resource, refused.join(" "))
  }
  const grantId = await grant.save()
  return provider.interactionFinished(request, response, { consent: { grantId } }, { mergeWithLastSubmission: true })
}

// A browser's part: every redirect followed by hand with the cookies set on the way, until one
// reaches the redirect URI; its `code` is the answer.
const follow = async (start: URL, redirectUri: string): Promise<string> => {
  const jar = new Map<string, string>()
  let url = start.href
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith(redirectUri)) {
      const answer = new URL(url)
      const code = answer.searchParams.get("code")
      if (code === null) throw new Error(`the authorization ended without a code: ${url}`)
      return code
    }
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join("; ")
    const response = await fetch(url, { redirect: "manual", headers: cookie === "" ? {} : { cookie } })
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";")
      const at = pair.indexOf("=")
      jar.set(pair.slice(0, at), pair.slice(at + 1))
    }
    const location = response.headers.get("location")
    if (location === null)
      throw new Error(`${url} answered ${response.status} without a redirect: ${await response.text()}`)
    url = new URL(location, url).href
  }
  throw new Error("the authorization went round more than 20 redirects")
}
