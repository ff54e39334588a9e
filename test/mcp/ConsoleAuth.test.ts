// The console behind the endpoint's resource server: a page is opened only with a bearer token
// holding the console's own scope, and it shows what each scope set seen calling is listed.
import { assert, describe, it } from "@effect/vitest"
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Fiber, Layer, Schedule } from "effect"
import { Identity } from "effect-surface"
import { McpAuth, McpConsole, McpHttp, McpTokenVerifier } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import { open } from "./browser.ts"

const tokens = {
  "operator-token": Identity.token({ subject: "grace", clientId: "browser", scopes: ["console"] }),
  "reader-token": Identity.token({ subject: "ada", clientId: "agent", scopes: ["board:read"] }),
  "writer-token": Identity.token({ subject: "lin", clientId: "agent", scopes: ["board:read", "board:write"] })
}

const serveBehindAuth = Effect.gen(function*() {
  const console = yield* McpConsole.make({ hold: ["tasks_add"], approvalTimeout: "30 seconds" })
  const served = yield* McpHttp.serve({ ...(yield* serverOptions), http: { port: 0 } }).pipe(
    Effect.provide(
      McpAuth.layer({ scopesSupported: ["board:read", "board:write", "console"] }).pipe(
        Layer.provide(McpTokenVerifier.layerTest({ issuer: "https://auth.test", tokens }))
      )
    ),
    Effect.provideService(McpConsole.Console, console)
  )
  return { served, console, page: served.console ?? "" }
})

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

const connect = (url: string, token: string, name = "scoped-agent") =>
  Effect.gen(function*() {
    const client = new Client({ name, version: "1.0.0" })
    yield* Effect.acquireRelease(
      Effect.promise(() =>
        client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: bearer(token) } }))
      ),
      () => Effect.promise(() => client.close())
    )
    return client
  })

// A 2026-07-28 client (the official v2 SDK, pinned) with its bearer token.
const connectModern = (url: string, token: string, name: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new ModernClient({ name, version: "1.0.0" }, {
        versionNegotiation: { mode: { pin: "2026-07-28" } }
      })
      await client.connect(new ModernTransport(new URL(url), { requestInit: { headers: bearer(token) } }))
      return client
    }),
    (client) => Effect.promise(() => client.close().catch(() => undefined))
  )

const hostileName = "ada's <b>Claude Code</b> (trusted)"

describe("the console behind authorization", () => {
  it.live("a held call is named by its token's subject, and the client's own name is shown as its claim, in both eras", () =>
    Effect.gen(function*() {
      const { console, served } = yield* serveBehindAuth
      const legacy = yield* connect(served.url, "writer-token", hostileName)
      const modern = yield* connectModern(served.url, "writer-token", hostileName)
      for (
        const [era, call] of [
          ["2025-11-25", (): Promise<unknown> => legacy.callTool({ name: "tasks_add", arguments: { title: "named" } })],
          ["2026-07-28", (): Promise<unknown> => modern.callTool({ name: "tasks_add", arguments: { title: "named" } })]
        ] as const
      ) {
        const calling = yield* Effect.forkChild(Effect.promise(() => call()))
        const held = yield* console.state.snapshot.pipe(
          Effect.flatMap((s) => s.held[0] === undefined ? Effect.fail("not yet") : Effect.succeed(s.held[0])),
          Effect.retry(Schedule.spaced("20 millis")),
          Effect.timeout("10 seconds")
        )
        assert.strictEqual(held.subject, "lin")
        assert.strictEqual(held.client, `${hostileName} 1.0.0`)
        assert.isTrue(held.caller.startsWith(`lin — client says "${hostileName} 1.0.0" (${era}`), held.caller)
        yield* console.decide(held.id, "deny", "the test")
        yield* Fiber.join(calling)
      }
      const snapshot = yield* console.state.snapshot
      assert.deepStrictEqual(snapshot.decided.map((d) => [d.subject, d.by]), [["lin", "the test"], ["lin", "the test"]])
      assert.deepStrictEqual(snapshot.calls.map((c) => c.subject), ["lin", "lin"])
      assert.deepStrictEqual(snapshot.clients.map((c) => c.subject), ["lin", "lin"])
    }))

  it.live("a page with no console scope is refused: no token is asked for one, a token without the scope is told which", () =>
    Effect.gen(function*() {
      const { page } = yield* serveBehindAuth
      const anonymous = yield* Effect.promise(() => fetch(page))
      assert.strictEqual(anonymous.status, 401)
      assert.include(anonymous.headers.get("www-authenticate") ?? "", "resource_metadata=")
      const reader = yield* Effect.promise(() => fetch(page, { headers: bearer("reader-token") }))
      assert.strictEqual(reader.status, 403)
      assert.include(reader.headers.get("www-authenticate") ?? "", "insufficient_scope")
      assert.include(reader.headers.get("www-authenticate") ?? "", "console")
      assert.notInclude(yield* Effect.promise(() => reader.text()), "<script")
      const forged = yield* Effect.promise(() => fetch(page, { headers: bearer("forged") }))
      assert.strictEqual(forged.status, 401)
      const plain = new URL(new URL(page).pathname, page).href
      const operator = yield* Effect.promise(() => fetch(plain, { headers: bearer("operator-token") }))
      assert.strictEqual(operator.status, 200)
      // The stream needs the scope too, whatever key it carries.
      const key = { "x-console-key": new URLSearchParams(new URL(page).hash.slice(1)).get("key") ?? "" }
      const stream = (token: string) =>
        Effect.promise(async () => {
          const response = await fetch(`${plain}/events`, { headers: { ...bearer(token), ...key } })
          await response.body?.cancel()
          return response.status
        })
      assert.strictEqual(yield* stream("reader-token"), 403)
      assert.strictEqual(yield* stream("forged"), 401)
      assert.strictEqual(yield* stream("operator-token"), 200)
    }))

  it.live(
    "the operator's page shows what each scope set seen calling is listed, and decisions name the operator",
    () =>
      Effect.gen(function*() {
        const { page: url, served } = yield* serveBehindAuth
        const page = yield* open(url, bearer("operator-token"))
        yield* Effect.promise(() => page.locator("#live.on").waitFor())
        const reader = yield* connect(served.url, "reader-token")
        yield* Effect.promise(() => reader.callTool({ name: "tasks_open", arguments: {} }))
        const readerView = page.locator("[data-view=\"board:read\"]")
        yield* Effect.promise(() => readerView.waitFor({ state: "attached", timeout: 10_000 }))
        const readerText = yield* Effect.promise(() => readerView.textContent())
        assert.include(readerText, "tasks_open")
        assert.notInclude(readerText, "tasks_add")
        // The roster says which scope each tool needs.
        yield* Effect.promise(() => page.locator("#roster", { hasText: "needs board:write" }).waitFor())

        const writer = yield* connect(served.url, "writer-token", hostileName)
        const adding = yield* Effect.forkChild(
          Effect.promise(() =>
            writer.callTool({ name: "tasks_add", arguments: { title: "scoped" } }) as Promise<CallToolResult>
          )
        )
        const writerView = page.locator("[data-view=\"board:read board:write\"]")
        yield* Effect.promise(() => writerView.waitFor({ state: "attached", timeout: 10_000 }))
        assert.include(yield* Effect.promise(() => writerView.textContent()), "tasks_add")
        const held = page.locator("[data-held]", { hasText: "tasks_add" })
        yield* Effect.promise(() => held.waitFor({ timeout: 10_000 }))
        // The verified subject, then the client's own name as its claim, written as text, never as markup.
        assert.include(yield* Effect.promise(() => held.innerText()), `lin — client says "${hostileName} 1.0.0"`)
        assert.strictEqual(yield* Effect.promise(() => held.locator("b").count()), 0)
        yield* Effect.promise(() => held.getByRole("button", { name: "Approve" }).click())
        const added = yield* Fiber.join(adding)
        assert.isNotTrue(added.isError, JSON.stringify(added.content))
        const row = page.locator("[data-call]", { hasText: "tasks_add" })
        yield* Effect.promise(() => row.locator("td.ok").waitFor({ timeout: 10_000 }))
        assert.include(yield* Effect.promise(() => row.innerText()), "approved by grace via browser")
      }),
    60_000
  )
})
