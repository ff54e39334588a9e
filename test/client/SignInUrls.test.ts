// The URLs a sign-in opens or contacts come from the authorization server's metadata, which the MCP
// server chose. An MCP server guarded by an authorization server whose metadata names a `file:`,
// `smb:`, `ms-msdt:` or `javascript:` authorization endpoint, or plain http to a host that is not
// loopback (a cloud metadata address among them), for any endpoint: the person is never sent
// anywhere, nothing is registered or requested there, and the failure says which endpoint and why.
// The one rule (https, or http on loopback) is also checked over generated URLs.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import type * as Http from "node:http"
import { McpToolset } from "effect-surface/client"
import * as OAuthUrls from "../../src/client/internal/oauth/urls.ts"
import { resourceServer } from "./oauthServers.ts"
import { listen } from "./servers.ts"

const REDIRECT = "http://127.0.0.1:1/callback"

interface Endpoints {
  readonly authorization?: string
  readonly token?: string
  readonly registration?: string
}

// An authorization server that answers its metadata (with the endpoints given, its own loopback
// ones otherwise) and registers any client; it records every request it is sent.
const fakeAuthorizationServer = (endpoints: Endpoints) =>
  Effect.gen(function*() {
    const requests: Array<string> = []
    const issuer = yield* listen((req: Http.IncomingMessage, res: Http.ServerResponse) => {
      requests.push(`${req.method} ${req.url}`)
      const origin = `http://${req.headers.host}`
      if (req.url === "/.well-known/oauth-authorization-server") {
        return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({
          issuer: origin,
          authorization_endpoint: endpoints.authorization ?? `${origin}/authorize`,
          token_endpoint: endpoints.token ?? `${origin}/token`,
          registration_endpoint: endpoints.registration ?? `${origin}/register`,
          response_types_supported: ["code"],
          code_challenge_methods_supported: ["S256"]
        }))
      }
      if (req.url === "/register" && req.method === "POST") {
        return res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({
          client_id: "registered",
          redirect_uris: [REDIRECT]
        }))
      }
      return res.writeHead(404).end()
    })
    return { issuer, requests }
  })

// A toolset signing in to an MCP server guarded by that authorization server: the URLs `authorize`
// was handed, the diagnostics, and the failure of a request sent to the server afterwards.
const signIn = (endpoints: Endpoints) =>
  Effect.gen(function*() {
    const as = yield* fakeAuthorizationServer(endpoints)
    const rs = yield* resourceServer(as.issuer)
    const opened: Array<URL> = []
    const diagnostics: Array<string> = []
    const toolset = yield* McpToolset.make([{
      name: "guarded",
      type: "streamable-http" as const,
      url: rs.url,
      oauth: { clientName: "effect-surface tests", redirectUrl: REDIRECT }
    }], {
      allowedHosts: ["127.0.0.1"],
      authorize: (url) => {
        opened.push(url)
        return Effect.fail(new Error("the person closed the tab"))
      },
      onDiagnostic: (d) => void diagnostics.push(d.message)
    })
    const failure = yield* Effect.flip(toolset.readResource("guarded", "file:///anything"))
    return { opened, diagnostics, failure, requests: as.requests }
  })

const refused: ReadonlyArray<readonly [string, Endpoints, ReadonlyArray<string>]> = [
  ["a file: authorization endpoint", { authorization: "file:///etc/passwd" }, ["authorization endpoint", "file:"]],
  ["an smb: authorization endpoint", { authorization: "smb://attacker.example/share" }, [
    "authorization endpoint",
    "smb:",
    "attacker.example"
  ]],
  ["an ms-msdt: authorization endpoint", { authorization: "ms-msdt:/id PCWDiagnostic" }, [
    "authorization endpoint",
    "ms-msdt:"
  ]],
  ["a javascript: authorization endpoint", { authorization: "javascript:alert(1)" }, ["javascript:"]],
  ["a cloud metadata address as authorization endpoint", { authorization: "http://169.254.169.254/latest" }, [
    "authorization endpoint",
    "plain http",
    "169.254.169.254"
  ]],
  ["a plain-http authorization endpoint off loopback", { authorization: "http://auth.example/authorize" }, [
    "authorization endpoint",
    "auth.example"
  ]],
  ["a cloud metadata address as token endpoint", { token: "http://169.254.169.254/token" }, [
    "token endpoint",
    "169.254.169.254"
  ]],
  ["a plain-http registration endpoint off loopback", { registration: "http://auth.example/register" }, [
    "registration endpoint",
    "auth.example"
  ]]
]

describe("sign-in URLs", () => {
  for (const [what, endpoints, named] of refused) {
    it.live(
      `${what} is refused before the person is sent anywhere, and the failure says which endpoint and why`,
      () =>
        Effect.gen(function*() {
          const { diagnostics, failure, opened, requests } = yield* signIn(endpoints)
          assert.lengthOf(opened, 0, `authorize was handed ${opened.join(", ")}`)
          assert.notInclude(requests.join("\n"), "POST /register", "no client was registered")
          // A sign-in that fails at the dial leaves the server unavailable; one that fails on a call, AuthFailed.
          assert.oneOf(failure._tag, ["ServerUnavailable", "AuthFailed"])
          for (const words of named) {
            assert.include(failure.message, words)
            assert.isTrue(diagnostics.some((m) => m.includes(words)), diagnostics.join("\n"))
          }
        }),
      { timeout: 30_000 }
    )
  }

  for (
    const authorization of [
      undefined,
      "http://localhost:9/authorize",
      "http://[::1]:9/authorize",
      "http://127.8.9.10:9/authorize",
      "https://auth.example/authorize"
    ]
  ) {
    it.live(
      `an authorization endpoint at ${authorization ?? "the server's own loopback address"} is opened`,
      () =>
        Effect.gen(function*() {
          const { failure, opened } = yield* signIn(authorization === undefined ? {} : { authorization })
          assert.isNotEmpty(opened)
          for (const url of opened) assert.isTrue(url.href.startsWith(authorization ?? "http://127.0.0.1:"), url.href)
          assert.include(failure.message, "the person closed the tab")
        }),
      { timeout: 30_000 }
    )
  }

  const Scheme = Schema.Literals(["https", "http", "file", "smb", "ms-msdt", "javascript", "ftp", "ws", "data"])
  const Host = Schema.Literals([
    "127.0.0.1",
    "127.1",
    "127.255.255.254",
    "0x7f.1",
    "localhost",
    "LocalHost",
    "[::1]",
    "[0:0:0:0:0:0:0:1]",
    "169.254.169.254",
    "10.0.0.1",
    "128.0.0.1",
    "0.0.0.0",
    "[::]",
    "[::ffff:169.254.169.254]",
    "localhost.attacker.example",
    "127.0.0.1.nip.io",
    "auth.example"
  ])
  const Port = Schema.Literals(["", ":1", ":443", ":8080"])

  // Judged apart from the code under test: the WHATWG URL parser's own reading of the host.
  const loopback = (url: URL) =>
    url.hostname === "localhost" || url.hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(url.hostname)

  it.prop(
    "a generated URL is accepted exactly when it is https, or http on 127.0.0.0/8, ::1 or localhost",
    [Scheme, Host, Port, Schema.String],
    ([scheme, host, port, path]) => {
      const text = `${scheme}://${host}${port}/${path}`
      if (!URL.canParse(text)) return
      const url = new URL(text)
      const accepted = OAuthUrls.refusal(url, "authorization endpoint") === undefined
      assert.strictEqual(accepted, url.protocol === "https:" || (url.protocol === "http:" && loopback(url)), text)
    }
  )

  const AnyScheme = Schema.String.check(Schema.isPattern(/^[a-z][a-z0-9+.-]{0,10}$/))

  it.prop(
    "a URL of any scheme but https or http is refused, and the refusal names the scheme",
    [AnyScheme, Schema.String],
    ([scheme, rest]) => {
      const text = `${scheme}:${rest}`
      if (!URL.canParse(text)) return
      const url = new URL(text)
      if (url.protocol === "https:" || url.protocol === "http:") return
      assert.include(OAuthUrls.refusal(url, "token endpoint"), `a ${url.protocol} URL`, text)
    }
  )
})
