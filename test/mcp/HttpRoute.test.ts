// The MCP endpoint as a route on one's own `HttpRouter`, composed as effect composes HTTP: served by
// `HttpRouter.serve` on a server the app binds, beside the app's own routes, in both revisions;
// behind `McpAuth.middleware` with `McpAuth.layerRoutes` serving the metadata its challenge names;
// and watched by the console whose page `McpConsole.layerRoutes` mounts — no part found in context.
import { assert, describe, it } from "@effect/vitest"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Context, Effect, Fiber, Layer, Schedule } from "effect"
import { HttpRouter, type HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Identity } from "effect-surface"
import { McpAuth, McpConsole, McpHttp, McpHttpChecks, McpTokenVerifier } from "effect-surface/mcp"
import { createServer } from "node:http"
import { serverOptions } from "../../examples/board/app.ts"
import { legacyInitialize, legacyRequest, modernRequest, resultOf } from "./authServed.ts"
import { connect as connectModern } from "./modern.ts"

/** Serve `app` with `HttpRouter.serve` on a loopback server of its own, for the scope's life. */
const serveApp = <E>(app: Layer.Layer<McpHttp.Endpoint, E, HttpRouter.HttpRouter | HttpServer.HttpServer>) =>
  Effect.map(
    Layer.build(
      HttpRouter.serve(app, { disableLogger: true }).pipe(
        Layer.provide(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
      )
    ),
    (context) => Context.get(context, McpHttp.Endpoint)
  )

const connectLegacy = (url: string, headers: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "routed", version: "1.0.0" })
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }))
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

const health = HttpRouter.add("GET", "/health", HttpServerResponse.text("ok"))

const tokens = {
  "reader-token": Identity.token({ subject: "ada", clientId: "agent", scopes: ["board:read"] }),
  "writer-token": Identity.token({ subject: "lin", clientId: "agent", scopes: ["board:read", "board:write"] })
}

// A route of the app's own behind the same resource server: who is calling, or the refusal.
const whoami = HttpRouter.add(
  "GET",
  "/whoami",
  Effect.gen(function*() {
    const bearer = yield* McpAuth.Bearer
    const request = yield* HttpServerRequest.HttpServerRequest
    const caller = yield* bearer.authenticate(request.headers["authorization"])
    return HttpServerResponse.text(caller.subject)
  }).pipe(Effect.catchTag("Refusal", (refusal) => Effect.succeed(McpHttpChecks.respond(refusal))))
)

describe("the MCP endpoint as a route on one's own HttpRouter", () => {
  it.live("serves both revisions beside the app's own routes, on the server the app binds", () =>
    Effect.gen(function*() {
      const options = yield* serverOptions
      const endpoint = yield* serveApp(
        Layer.mergeAll(McpHttp.layerRoute({ ...options, http: { path: "/board/mcp" } }), health)
      )
      assert.match(endpoint.url, /^http:\/\/127\.0\.0\.1:\d+\/board\/mcp$/)
      const legacy = yield* connectLegacy(endpoint.url)
      const added = yield* Effect.promise(() => legacy.callTool({ name: "tasks_add", arguments: { title: "routed" } }))
      assert.notStrictEqual(added.isError, true)
      const modern = yield* connectModern(new ModernTransport(new URL(endpoint.url)), "pin")
      const listed = yield* Effect.promise(() => modern.listTools())
      assert.include(listed.tools.map((tool) => tool.name), "tasks_add")
      assert.strictEqual(modern.getNegotiatedProtocolVersion(), "2026-07-28")
      const ok = yield* Effect.promise(() => fetch(new URL("/health", endpoint.url)).then((r) => r.text()))
      assert.strictEqual(ok, "ok")
      assert.deepStrictEqual((yield* endpoint.sessions).length, 1)
    }))

  it.live("behind McpAuth.middleware: no token is refused 401 naming the metadata McpAuth.layerRoutes serves, a token is served within its scopes, and the app's own route reads the same bearer", () =>
    Effect.gen(function*() {
      const options = yield* serverOptions
      const routes = Layer.mergeAll(
        McpHttp.layerRoute({ ...options, http: { path: "/mcp" } }),
        McpAuth.layerRoutes({ path: "/mcp" }),
        whoami
      ).pipe(
        Layer.provide(McpAuth.middleware({ path: "/mcp" }).layer),
        Layer.provide(
          McpAuth.layer({ scopesSupported: ["board:read", "board:write"] }).pipe(
            Layer.provide(McpTokenVerifier.layerTest({ issuer: "https://auth.test", tokens }))
          )
        )
      )
      const { url } = yield* serveApp(routes)
      const refused = yield* legacyInitialize(url, undefined)
      assert.strictEqual(refused.status, 401)
      const named = /resource_metadata="([^"]+)"/.exec(refused.challenge ?? "")?.[1] ?? ""
      assert.strictEqual(named, `${new URL(url).origin}/.well-known/oauth-protected-resource/mcp`)
      const metadata = yield* Effect.promise(() => fetch(named).then((r) => r.json()))
      assert.deepStrictEqual(metadata, {
        resource: url,
        authorization_servers: ["https://auth.test"],
        scopes_supported: ["board:read", "board:write"],
        bearer_methods_supported: ["header"]
      })
      const listed = yield* legacyRequest(url, "Bearer reader-token", "tools/list")
      assert.include(
        ((resultOf(listed)?.result?.["tools"] ?? []) as ReadonlyArray<{ readonly name: string }>).map((t) => t.name),
        "tasks_open"
      )
      const beyond = yield* modernRequest(url, "Bearer reader-token", "tools/call", {
        name: "tasks_add",
        arguments: { title: "not mine to add" }
      })
      assert.strictEqual(beyond.status, 403)
      assert.include(beyond.challenge ?? "", "insufficient_scope")
      const writer = yield* connectLegacy(url, { authorization: "Bearer writer-token" })
      const added = yield* Effect.promise(() => writer.callTool({ name: "tasks_add", arguments: { title: "mine" } }))
      assert.notStrictEqual(added.isError, true)
      const whoamiAt = new URL("/whoami", url)
      const me = yield* Effect.promise(() =>
        fetch(whoamiAt, { headers: { authorization: "Bearer writer-token" } }).then((r) => r.text())
      )
      assert.strictEqual(me, "lin")
      const stranger = yield* Effect.promise(() => fetch(whoamiAt))
      assert.strictEqual(stranger.status, 401)
    }))

  it.live("with McpConsole.layerRoutes beside it, the console's page is served and a call it holds waits for the operator's decision", () =>
    Effect.gen(function*() {
      const options = yield* serverOptions
      const console = yield* McpConsole.make({ hold: ["tasks_add"], approvalTimeout: "30 seconds" })
      const endpoint = yield* serveApp(
        Layer.mergeAll(McpHttp.layerRoute({ ...options, console: true }), McpConsole.layerRoutes).pipe(
          Layer.provide(Layer.succeed(McpConsole.Console, console))
        )
      )
      const link = new URL(endpoint.console ?? "")
      assert.strictEqual(link.pathname, "/console")
      const page = yield* Effect.promise(() => fetch(new URL(link.pathname, link)))
      assert.strictEqual(page.status, 200)
      assert.include(page.headers.get("content-type") ?? "", "text/html")
      const keyless = yield* Effect.promise(() => fetch(new URL("/console/events", link)))
      assert.strictEqual(keyless.status, 403)
      const client = yield* connectLegacy(endpoint.url)
      const calling = yield* Effect.forkChild(
        Effect.promise(() => client.callTool({ name: "tasks_add", arguments: { title: "held" } }))
      )
      const held = yield* console.state.snapshot.pipe(
        Effect.flatMap((s) => s.held[0] === undefined ? Effect.fail("not yet") : Effect.succeed(s.held[0])),
        Effect.retry(Schedule.spaced("20 millis")),
        Effect.timeout("10 seconds")
      )
      assert.strictEqual(held.tool, "tasks_add")
      assert.isTrue(yield* console.decide(held.id, "allow", "operator"))
      const answered = yield* Fiber.join(calling)
      assert.notStrictEqual(answered.isError, true)
    }))
})
