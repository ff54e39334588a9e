// OAuth 2.1 sign-in against a real authorization server (oidc-provider) and an MCP server that
// checks its tokens: the first 401 sends the person to the authorization server once (PKCE S256,
// `resource`, `state` and `iss` checked), a refused token is refreshed without the person, a
// missing scope is stepped up to, and a token is never in a log line nor in the connection store.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Logger, References } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import {
  createSqliteMcpTokenStore,
  McpCallResult,
  McpStore,
  McpTokenStore,
  McpTokenStoreSqlite,
  McpToolset,
  mcpTools
} from "effect-surface/client"
import { authorizationServer, browser, resourceServer } from "./oauthServers.ts"
import { listen, tempDir } from "./servers.ts"

const REDIRECT = "http://127.0.0.1:1/callback"

const entry = (url: string, client?: { readonly clientId: string; readonly clientSecret: string }) => ({
  name: "guarded",
  type: "streamable-http" as const,
  url,
  oauth: { clientName: "effect-surface tests", redirectUrl: REDIRECT, ...client }
})

// A client registered beforehand with no scope of its own (a dynamically registered one is held by
// oidc-provider to the scopes it registered with, and registers again to step up: tested apart).
const preRegistered = { clientId: "toolset", secret: "s3cret-client", redirectUrl: REDIRECT }
const client = { clientId: preRegistered.clientId, clientSecret: preRegistered.secret }

describe("OAuth sign-in", () => {
  it.live(
    "a server answering 401 is signed in to once: the authorization request carries PKCE S256, resource and state, and the token works",
    () =>
      Effect.gen(function*() {
        const as = yield* authorizationServer()
        const rs = yield* resourceServer(as.issuer)
        const person = browser(REDIRECT)
        const toolset = yield* McpToolset.make([entry(rs.url)], {
          allowedHosts: ["127.0.0.1"],
          authorize: person.authorize
        })
        assert.deepStrictEqual([...(yield* toolset.tools).keys()].sort(), ["guarded__read", "guarded__write"])
        assert.strictEqual(McpCallResult.textOf(yield* toolset.call("guarded__read", {})), "read done")
        assert.lengthOf(person.visited, 1)
        const asked = person.visited[0]!.searchParams
        assert.strictEqual(asked.get("code_challenge_method"), "S256")
        assert.strictEqual(asked.get("resource"), rs.url)
        assert.isNotNull(asked.get("state"))
        assert.include(asked.get("scope") ?? "", "mcp:read")
        assert.deepStrictEqual(as.grants, ["authorization_code"])
        assert.isUndefined(rs.bearers[0], "the first request went without a token")
      }),
    { timeout: 60_000 }
  )

  it.live(
    "a token the server stops accepting is refreshed without sending the person back",
    () =>
      Effect.gen(function*() {
        const as = yield* authorizationServer()
        const rs = yield* resourceServer(as.issuer)
        const person = browser(REDIRECT)
        const toolset = yield* McpToolset.make([entry(rs.url)], {
          allowedHosts: ["127.0.0.1"],
          authorize: person.authorize
        })
        yield* toolset.call("guarded__read", {})
        const first = rs.bearers.at(-1)!
        rs.revoked.add(first)
        assert.strictEqual(McpCallResult.textOf(yield* toolset.call("guarded__read", {})), "read done")
        assert.lengthOf(person.visited, 1, "the person was not sent to the authorization server again")
        assert.deepStrictEqual(as.grants, ["authorization_code", "refresh_token"])
        assert.notStrictEqual(rs.bearers.at(-1), first)
      }),
    { timeout: 60_000 }
  )

  it.live(
    "a 403 insufficient_scope is stepped up to, asking for the scopes held and those demanded",
    () =>
      Effect.gen(function*() {
        const as = yield* authorizationServer({ preRegistered })
        const rs = yield* resourceServer(as.issuer)
        const person = browser(REDIRECT)
        const toolset = yield* McpToolset.make([entry(rs.url, client)], {
          allowedHosts: ["127.0.0.1"],
          authorize: person.authorize
        })
        assert.strictEqual(McpCallResult.textOf(yield* toolset.call("guarded__write", {})), "write done")
        assert.lengthOf(person.visited, 2)
        const stepped = (person.visited[1]!.searchParams.get("scope") ?? "").split(" ")
        assert.includeMembers(stepped, ["mcp:read", "mcp:write"])
        assert.strictEqual(McpCallResult.textOf(yield* toolset.call("guarded__read", {})), "read done")
        assert.lengthOf(person.visited, 2, "the stepped-up token serves the other tools too")
      }),
    { timeout: 60_000 }
  )

  it.live(
    "a dynamically registered client held to the scopes it registered with registers again to step up",
    () =>
      Effect.gen(function*() {
        const as = yield* authorizationServer()
        const rs = yield* resourceServer(as.issuer)
        const person = browser(REDIRECT)
        const toolset = yield* McpToolset.make([entry(rs.url)], {
          allowedHosts: ["127.0.0.1"],
          authorize: person.authorize
        })
        assert.strictEqual(McpCallResult.textOf(yield* toolset.call("guarded__write", {})), "write done")
        const clients = person.visited.map((url) => url.searchParams.get("client_id"))
        assert.lengthOf(clients, 3, "signed in, refused the wider scope, signed in again as a new client")
        assert.strictEqual(clients[0], clients[1])
        assert.notStrictEqual(clients[2], clients[1])
      }),
    { timeout: 60_000 }
  )

  it.live(
    "calls refused together wait for one refresh, then all go through with its token",
    () =>
      Effect.gen(function*() {
        const as = yield* authorizationServer()
        const rs = yield* resourceServer(as.issuer)
        const person = browser(REDIRECT)
        const toolset = yield* McpToolset.make([entry(rs.url)], {
          allowedHosts: ["127.0.0.1"],
          authorize: person.authorize
        })
        yield* toolset.call("guarded__read", {})
        rs.revoked.add(rs.bearers.at(-1)!)
        const answers = yield* Effect.forEach(
          [1, 2, 3, 4],
          () => Effect.map(toolset.call("guarded__read", {}), McpCallResult.textOf),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(answers, ["read done", "read done", "read done", "read done"])
        assert.deepStrictEqual(as.grants, ["authorization_code", "refresh_token"])
        assert.lengthOf(person.visited, 1)
      }),
    { timeout: 60_000 }
  )

  it.live(
    "a step-up the person declines fails that call with AuthFailed, and the token held still serves the rest",
    () =>
      Effect.gen(function*() {
        const as = yield* authorizationServer({ preRegistered })
        const rs = yield* resourceServer(as.issuer)
        const person = browser(REDIRECT)
        const toolset = yield* McpToolset.make([entry(rs.url, client)], {
          allowedHosts: ["127.0.0.1"],
          authorize: (url) =>
            person.visited.length === 0 ? person.authorize(url) : Effect.fail(new Error("the person closed the tab"))
        })
        const refused = yield* Effect.flip(toolset.call("guarded__write", {}))
        assert.strictEqual(refused._tag, "AuthFailed")
        assert.include(refused.message, "the person closed the tab")
        assert.strictEqual(McpCallResult.textOf(yield* toolset.call("guarded__read", {})), "read done")
      }),
    { timeout: 60_000 }
  )

  it.live(
    "no token is in a log line or the connection store; the SQLite token store holds it, readable by its owner only",
    () =>
      Effect.gen(function*() {
        const as = yield* authorizationServer({ preRegistered })
        const rs = yield* resourceServer(as.issuer)
        const person = browser(REDIRECT)
        const lines: Array<string> = []
        const dir = yield* tempDir
        const file = Path.join(dir, "tokens.db")
        const storage = yield* McpStore.makeMemory
        const tokenStore = yield* McpTokenStoreSqlite.make(file)
        yield* Effect.gen(function*() {
          const toolset = yield* McpToolset.make([entry(rs.url, client)], {
            allowedHosts: ["127.0.0.1"],
            authorize: person.authorize,
            storage,
            tokenStore
          })
          yield* toolset.call("guarded__write", {})
        }).pipe(
          Effect.scoped,
          Effect.provide(Logger.layer([Logger.make((options) => lines.push(JSON.stringify(options.message)))])),
          Effect.provideService(References.MinimumLogLevel, "All")
        )
        const tokens = rs.bearers.filter((t): t is string => t !== undefined)
        assert.isAtLeast(tokens.length, 2)
        const rows = JSON.stringify(yield* storage.list)
        for (const token of tokens) {
          assert.notInclude(rows, token)
          for (const line of lines) assert.notInclude(line, token)
        }
        const saved = yield* tokenStore.latest(rs.url)
        assert.strictEqual(saved?.issuer, as.issuer)
        assert.strictEqual(saved?.credentials.tokens?.access_token, tokens.at(-1))
        assert.strictEqual(Fs.statSync(file).mode & 0o777, 0o600)
      }),
    { timeout: 60_000 }
  )

  it.live("a sign-in resumed from the token store sends the person nowhere", () =>
    Effect.gen(function*() {
      const as = yield* authorizationServer()
      const rs = yield* resourceServer(as.issuer)
      const person = browser(REDIRECT)
      const dir = yield* tempDir
      const file = Path.join(dir, "tokens.db")
      const once = Effect.scoped(Effect.gen(function*() {
        const tokenStore = yield* McpTokenStoreSqlite.make(file)
        const toolset = yield* McpToolset.make([entry(rs.url)], {
          allowedHosts: ["127.0.0.1"],
          authorize: person.authorize,
          tokenStore
        })
        return McpCallResult.textOf(yield* toolset.call("guarded__read", {}))
      }))
      assert.strictEqual(yield* once, "read done")
      assert.strictEqual(yield* once, "read done")
      assert.lengthOf(person.visited, 1)
    }), { timeout: 60_000 })

  it.live(
    "an authorization server that does not advertise PKCE S256 is refused before the person is sent anywhere",
    () =>
      Effect.gen(function*() {
        const as = yield* listen((req, res) => {
          const origin = `http://${req.headers.host}`
          if (req.url !== "/.well-known/oauth-authorization-server") return res.writeHead(404).end()
          return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({
            issuer: origin,
            authorization_endpoint: `${origin}/authorize`,
            token_endpoint: `${origin}/token`,
            registration_endpoint: `${origin}/register`,
            response_types_supported: ["code"]
          }))
        })
        const rs = yield* resourceServer(as)
        const person = browser(REDIRECT)
        const diagnostics: Array<string> = []
        yield* McpToolset.make([entry(rs.url)], {
          allowedHosts: ["127.0.0.1"],
          authorize: person.authorize,
          onDiagnostic: (d) => void diagnostics.push(d.message)
        })
        assert.lengthOf(person.visited, 0)
        assert.isTrue(diagnostics.some((m) => m.includes("does not advertise PKCE with S256")), diagnostics.join("\n"))
      }),
    { timeout: 60_000 }
  )

  it.live(
    "the Promise API signs in with a Promise-returning authorize and keeps the sign-in in its SQLite token store",
    () =>
      Effect.gen(function*() {
        const as = yield* authorizationServer()
        const rs = yield* resourceServer(as.issuer)
        const person = browser(REDIRECT)
        const dir = yield* tempDir
        const text = yield* Effect.promise(async () => {
          const tokenStore = createSqliteMcpTokenStore(Path.join(dir, "tokens.db"))
          const toolset = await mcpTools([entry(rs.url)], {
            allowedHosts: ["127.0.0.1"],
            authorize: (url) => Effect.runPromise(person.authorize(url)),
            tokenStore
          })
          try {
            const result = await toolset.tools["guarded__read"]!.execute({})
            return McpCallResult.textOf(result)
          } finally {
            await toolset.close()
            await tokenStore.close()
          }
        })
        assert.strictEqual(text, "read done")
        assert.lengthOf(person.visited, 1)
      }),
    { timeout: 60_000 }
  )

  it.effect("a server entry with oauth in a toolset without authorize is refused at wiring time, saying why", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(McpToolset.make([entry("http://127.0.0.1:9/mcp")], {}))
      assert.strictEqual(refused._tag, "WiringError")
      assert.include(refused.message, "needs authorize")
    }))

  it.effect("an oauth entry whose metadata document is not an https URL with a path is refused, naming the field", () =>
    Effect.gen(function*() {
      const server = entry("http://127.0.0.1:9/mcp")
      const refused = yield* Effect.flip(
        McpToolset.make([{
          ...server,
          oauth: { ...server.oauth, clientMetadataUrl: "http://agent.example/client.json" }
        }], {
          authorize: () => Effect.succeed(new URL(REDIRECT))
        })
      )
      assert.strictEqual(refused._tag, "WiringError")
      assert.include(refused.message, `"oauth.clientMetadataUrl" must be an https URL with a path`)
    }))

  it.effect("a token store of the wrong shape is refused at wiring time, naming the option", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(
        McpToolset.make([entry("http://127.0.0.1:9/mcp")], {
          authorize: () => Effect.succeed(new URL(REDIRECT)),
          tokenStore: { get: () => Effect.void } as unknown as McpTokenStore.TokenStore
        })
      )
      assert.strictEqual(refused._tag, "WiringError")
      assert.include(refused.message, "tokenStore must be a token store")
    }))
})
