// The board behind a real authorization server: oidc-provider started on a free port, the official SDK
// client with its OAuth provider discovering it from the board's 401, completing the authorization-code
// + PKCE flow (the browser's redirects followed by the test, consent pre-granted for the test accounts)
// with the board's resource indicator, and calling the board; the same token then serves a 2026 client.
// The token the provider issues is a JWT checked against its discovered keys, or an opaque one checked
// by introspection.
import { assert, describe, it } from "@effect/vitest"
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from "@modelcontextprotocol/client"
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js"
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { OAuthClientInformation, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js"
import { Effect } from "effect"
import { McpTokenVerifier } from "effect-surface/mcp"
import { serveBehind } from "./authServed.ts"
import * as OidcIssuer from "./oidcIssuer.ts"

/** An OAuth client provider kept in memory: the pre-registered public client, its PKCE verifier and tokens. */
class MemoryProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined
  saved: OAuthTokens | undefined
  verifier = ""
  readonly redirectUri: string
  constructor(redirectUri: string) {
    this.redirectUri = redirectUri
  }
  get redirectUrl() {
    return this.redirectUri
  }
  get clientMetadata() {
    return { client_name: "board-cli", redirect_uris: [this.redirectUri], token_endpoint_auth_method: "none" }
  }
  clientInformation(): OAuthClientInformation {
    return { client_id: "board-cli" }
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    return this.verifier
  }
}

/** Sign in through the SDK's OAuth flow as the issuer's current account; the provider then holds the tokens. */
const signIn = (url: string, oidc: OidcIssuer.Oidc) =>
  Effect.promise(async () => {
    const provider = new MemoryProvider(oidc.redirectUri)
    const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider })
    const refused = await new Client({ name: "board-cli", version: "1.0.0" }).connect(first).then(
      () => undefined,
      (error: unknown) => error
    )
    assert.instanceOf(refused, UnauthorizedError)
    assert.isDefined(provider.authorizationUrl)
    const asked = provider.authorizationUrl!
    assert.strictEqual(asked.searchParams.get("code_challenge_method"), "S256")
    assert.strictEqual(asked.searchParams.get("resource"), url)
    await first.finishAuth(await oidc.authorize(asked))
    return provider
  })

const connectWith = (url: string, provider: MemoryProvider) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "board-cli", version: "1.0.0" })
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }))
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

const modernWith = (url: string, token: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new V2Client({ name: "board-cli", version: "2.0.0" }, {
        versionNegotiation: { mode: { pin: "2026-07-28" } }
      })
      await client.connect(new V2Transport(new URL(url), { authProvider: { token: async () => token } }))
      return client
    }),
    (client) => Effect.promise(() => client.close().catch(() => undefined))
  )

const names = (tools: ReadonlyArray<{ readonly name: string }>) => tools.map((tool) => tool.name).sort()

describe("the board behind oidc-provider", () => {
  it.live(
    "the SDK client's OAuth provider completes authorization code + PKCE for the board's resource and calls it; the token serves a 2026 client alike",
    () =>
      Effect.gen(function*() {
        const oidc = yield* OidcIssuer.start()
        const served = yield* serveBehind(McpTokenVerifier.layerJwt({ issuer: oidc.issuer }))
        const provider = yield* signIn(served.url, oidc)
        const token = provider.saved?.access_token ?? ""
        assert.notStrictEqual(token, "")
        const client = yield* connectWith(served.url, provider)
        const listed = names((yield* Effect.promise(() => client.listTools())).tools)
        assert.includeMembers(listed, ["tasks_add", "tasks_open", "whoami"])
        const added = yield* Effect.promise(() =>
          client.callTool({ name: "tasks_add", arguments: { title: "signed in" } })
        )
        assert.notStrictEqual(added.isError, true)
        const me = yield* Effect.promise(() => client.callTool({ name: "whoami", arguments: {} }))
        assert.match(JSON.stringify(me.content), /writer via board-cli with board:read board:write/)
        const modern = yield* modernWith(served.url, token)
        assert.deepStrictEqual(names((yield* Effect.promise(() => modern.listTools())).tools), listed)
        // The token is checked and dropped: no log line of the server carries it.
        assert.isFalse(served.logs.some((line) => line.includes(token)))
      }).pipe(Effect.scoped)
  )

  it.live("an account granted board:read only sees the reads, and a mutating call is refused 403 naming board:write, which sends the SDK client to step up", () =>
    Effect.gen(function*() {
      const oidc = yield* OidcIssuer.start()
      oidc.account = "reader"
      const served = yield* serveBehind(McpTokenVerifier.layerJwt({ issuer: oidc.issuer }))
      const provider = yield* signIn(served.url, oidc)
      const client = yield* connectWith(served.url, provider)
      const listed = names((yield* Effect.promise(() => client.listTools())).tools)
      assert.includeMembers(listed, ["tasks_open", "whoami"])
      assert.notInclude(listed, "tasks_add")
      provider.authorizationUrl = undefined
      const refused = yield* Effect.promise(() =>
        client.callTool({ name: "tasks_add", arguments: { title: "no" } }).then(() => "answered", (e: unknown) => e)
      )
      // The 403 named the scope: the SDK asks the person again, for what it held and board:write.
      assert.instanceOf(refused, UnauthorizedError)
      const stepUp = provider.authorizationUrl as URL | undefined
      assert.deepStrictEqual(stepUp?.searchParams.get("scope")?.split(" ").sort(), [
        "board:read",
        "board:write"
      ])
    }).pipe(Effect.scoped))

  it.live("an opaque token is checked by introspection (RFC 7662) and names the same caller", () =>
    Effect.gen(function*() {
      const oidc = yield* OidcIssuer.start({ format: "opaque" })
      const served = yield* serveBehind(McpTokenVerifier.layerIntrospection({
        issuer: oidc.issuer,
        clientId: "board-rs",
        clientSecret: "board-rs-secret"
      }))
      const provider = yield* signIn(served.url, oidc)
      assert.notMatch(provider.saved?.access_token ?? "", /^ey/)
      const client = yield* connectWith(served.url, provider)
      const me = yield* Effect.promise(() => client.callTool({ name: "whoami", arguments: {} }))
      assert.match(JSON.stringify(me.content), /writer via board-cli with board:read board:write/)
    }).pipe(Effect.scoped))
})
