// A real authorization server (oidc-provider, a certified OpenID provider) and a small MCP resource
// server that checks its tokens (jose against the provider's keys: issuer, audience, expiry, scope),
// both on free ports for the life of a test's scope. The resource server answers 401 with its
// protected resource metadata, and 403 insufficient_scope when a tool needs a scope the token lacks.
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import type { Scope } from "effect"
import * as Http from "node:http"
import { createRemoteJWKSet, jwtVerify } from "jose"
import { Provider } from "oidc-provider"
import { listen } from "./servers.ts"

export interface AuthorizationServer {
  readonly issuer: string
  /** Grant types the token endpoint has answered, in order. */
  readonly grants: Array<string>
}

/**
 * oidc-provider with dynamic registration, PKCE, resource indicators (JWT access tokens whose
 * audience is the resource) and refresh tokens; its login and consent are answered at once for
 * "ada", granting what was asked.
 */
export const authorizationServer = (
  options: {
    readonly preRegistered?: { readonly clientId: string; readonly secret: string; readonly redirectUrl: string }
  } = {}
): Effect.Effect<AuthorizationServer, never, Scope.Scope> =>
  Effect.gen(function*() {
    let provider: Provider | undefined
    const grants: Array<string> = []
    const issuer = yield* listen((req, res) => {
      if (provider === undefined) return res.writeHead(503).end()
      if (req.url?.startsWith("/interaction/")) return void interact(provider, req, res)
      return provider.callback()(req, res)
    })
    const pre = options.preRegistered
    provider = new Provider(issuer, {
      clients: pre === undefined ? [] : [{
        client_id: pre.clientId,
        client_secret: pre.secret,
        redirect_uris: [pre.redirectUrl],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        application_type: "native"
      }],
      features: {
        devInteractions: { enabled: false },
        registration: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => undefined as unknown as string,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, resource: string) => ({
            scope: "mcp:read mcp:write",
            audience: resource,
            accessTokenFormat: "jwt",
            accessTokenTTL: 300
          })
        }
      },
      interactions: {
        url: (_ctx: unknown, interaction: { readonly uid: string }) => `/interaction/${interaction.uid}`
      },
      issueRefreshToken: (_ctx: unknown, client: { grantTypeAllowed: (grant: string) => boolean }) =>
        client.grantTypeAllowed("refresh_token"),
      scopes: ["openid", "offline_access", "mcp:read", "mcp:write"],
      cookies: { keys: ["a-test-cookie-key"] },
      ttl: { Interaction: 600, Session: 600, Grant: 600, RefreshToken: 600, AccessToken: 300 }
    })
    provider.on(
      "grant.success",
      (ctx: { readonly oidc: { readonly params?: Record<string, unknown> } }) =>
        grants.push(String(ctx.oidc.params?.["grant_type"]))
    )
    return { issuer, grants }
  })

const interact = async (provider: Provider, req: Http.IncomingMessage, res: Http.ServerResponse) => {
  const details = await provider.interactionDetails(req, res)
  if (details.prompt.name === "login") {
    return provider.interactionFinished(req, res, { login: { accountId: "ada" } }, { mergeWithLastSubmission: false })
  }
  const grant = details.grantId === undefined
    ? new provider.Grant({ accountId: "ada", clientId: String(details.params["client_id"]) })
    : (await provider.Grant.find(details.grantId))!
  const missing = details.prompt.details as {
    missingOIDCScope?: ReadonlyArray<string>
    missingResourceScopes?: Record<string, ReadonlyArray<string>>
  }
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "))
  for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(resource, scopes.join(" "))
  }
  const grantId = await grant.save()
  return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true })
}

/**
 * The person at the authorization server: follows its redirects (keeping its cookies) until it
 * sends them back to `redirectUrl`, and answers that URL; records every authorization URL.
 */
export const browser = (redirectUrl: string) => {
  const visited: Array<URL> = []
  const authorize = (url: URL) =>
    Effect.promise(async () => {
      visited.push(url)
      const jar = new Map<string, string>()
      let next = url
      for (let hop = 0; hop < 12; hop++) {
        if (next.href.startsWith(redirectUrl)) return next
        const response = await fetch(next, {
          redirect: "manual",
          headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") }
        })
        for (const cookie of response.headers.getSetCookie()) {
          const [pair = ""] = cookie.split(";")
          const at = pair.indexOf("=")
          jar.set(pair.slice(0, at), pair.slice(at + 1))
        }
        const location = response.headers.get("location")
        if (location === null)
          throw new Error(`the authorization server stopped at ${next.pathname} (${response.status})`)
        next = new URL(location, next)
      }
      throw new Error("too many redirects at the authorization server")
    })
  return { authorize, visited }
}

export interface ResourceServer {
  readonly url: string
  /** The bearer tokens requests arrived with (undefined for none). */
  readonly bearers: Array<string | undefined>
  /** Tokens refused from now on, as if revoked. */
  readonly revoked: Set<string>
}

const mcpServer = () => {
  const server = new Server({ name: "guarded", version: "1.0.0" }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      { name: "read", description: "Reads", inputSchema: { type: "object" } },
      { name: "write", description: "Writes (needs mcp:write)", inputSchema: { type: "object" } }
    ]
  }))
  server.setRequestHandler(CallToolRequestSchema, (request) => ({
    content: [{ type: "text", text: `${request.params.name} done` }]
  }))
  return server
}

const readBody = (req: Http.IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = ""
    req.on("data", (chunk) => body += chunk)
    req.on("end", () => resolve(body))
  })

/**
 * An MCP server whose every request needs a token `issuer` signed for it (`mcp:read`; `write`
 * needs `mcp:write` too).
 */
export const resourceServer = (issuer: string): Effect.Effect<ResourceServer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const bearers: Array<string | undefined> = []
    const revoked = new Set<string>()
    const keys = createRemoteJWKSet(new URL(`${issuer}/jwks`))
    let origin = ""
    const challenge = (res: Http.ServerResponse, status: number, extra: string) =>
      res.writeHead(status, {
        "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", ${extra}`,
        "content-type": "application/json"
      }).end(JSON.stringify({ error: status === 401 ? "invalid_token" : "insufficient_scope" }))
    origin = yield* listen(async (req, res) => {
      if (req.method === "GET" && req.url === "/.well-known/oauth-protected-resource/mcp") {
        res.writeHead(200, { "content-type": "application/json" })
        return res.end(JSON.stringify({
          resource: `${origin}/mcp`,
          authorization_servers: [issuer],
          scopes_supported: ["mcp:read", "mcp:write"]
        }))
      }
      if (req.url !== "/mcp") return res.writeHead(404).end()
      if (req.method !== "POST") return res.writeHead(405).end()
      const header = req.headers.authorization
      const token = header?.startsWith("Bearer ") ? header.slice(7) : undefined
      bearers.push(token)
      const body = await readBody(req)
      if (token === undefined || revoked.has(token)) return challenge(res, 401, `scope="mcp:read"`)
      const verified = await jwtVerify(token, keys, { issuer, audience: `${origin}/mcp` }).catch(() => undefined)
      if (verified === undefined) return challenge(res, 401, `scope="mcp:read"`)
      const scopes = String(verified.payload["scope"] ?? "").split(" ")
      const message = JSON.parse(body) as { method?: string; params?: { name?: string } }
      const needs = message.method === "tools/call" && message.params?.name === "write" ? "mcp:write" : "mcp:read"
      if (!scopes.includes(needs)) return challenge(res, 403, `error="insufficient_scope", scope="${needs}"`)
      // Stateless: no session ID generator (the option's type does not admit an explicit undefined).
      const transport = new StreamableHTTPServerTransport(
        { enableJsonResponse: true } as ConstructorParameters<
          typeof StreamableHTTPServerTransport
        >[0]
      )
      const server = mcpServer()
      res.on("close", () => {
        void transport.close()
        void server.close()
      })
      await server.connect(transport)
      await transport.handleRequest(req, res, JSON.parse(body))
    })
    return { url: `${origin}/mcp`, bearers, revoked }
  })
