// The console's key: a held call is decided only by whoever opened the link the server printed (its
// key traded for a same-site, script-proof cookie), never by another process on this machine, which can
// reach the page's address, read whatever it serves and set any header it likes.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Fiber, Schedule } from "effect"
import { McpConsole, McpHttp } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import { open } from "./browser.ts"

const serveWithConsole = (options: McpConsole.Options = {}) =>
  Effect.gen(function*() {
    const console = yield* McpConsole.make(options)
    const served = yield* McpHttp.serve({ ...(yield* serverOptions), http: { port: 0 } }).pipe(
      Effect.provideService(McpConsole.Console, console)
    )
    const link = new URL(served.console ?? "")
    return { served, console, link, page: new URL(link.pathname, link) }
  })

// An agent's call the console holds, waiting (forked) for a decision.
const heldCall = (url: string, console: McpConsole.Console["Service"]) =>
  Effect.gen(function*() {
    const client = new Client({ name: "agent", version: "1.0.0" })
    yield* Effect.acquireRelease(
      Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(url)))),
      () => Effect.promise(() => client.close())
    )
    const calling = yield* Effect.forkChild(
      Effect.promise(() =>
        client.callTool({ name: "tasks_add", arguments: { title: "approved by myself" } }) as Promise<CallToolResult>
      )
    )
    const held = yield* console.state.snapshot.pipe(
      Effect.flatMap((s) => s.held[0] === undefined ? Effect.fail("not yet") : Effect.succeed(s.held[0])),
      Effect.retry(Schedule.spaced("20 millis")),
      Effect.timeout("10 seconds")
    )
    return { calling, id: held.id }
  })

const get = (url: URL | string, headers: Record<string, string> = {}) =>
  Effect.promise(() => fetch(url, { headers, redirect: "manual" }))

const textOf = (response: Response) => Effect.promise(() => response.text())

const postDecision = (page: URL, id: string, headers: Record<string, string>) =>
  Effect.promise(() =>
    fetch(`${page.href}/decide`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: page.origin, "sec-fetch-site": "same-origin", ...headers },
      body: JSON.stringify({ id, decision: "allow" })
    })
  )

const cookieOf = (response: Response) => (response.headers.get("set-cookie") ?? "").split(";")[0] ?? ""

describe("the console's key", () => {
  it.live("a local process that reads the page and sets its own Origin cannot approve the call it is held on", () =>
    Effect.gen(function*() {
      const { console, page, served } = yield* serveWithConsole({ hold: ["tasks_add"] })
      const { calling, id } = yield* heldCall(served.url, console)
      // Everything such a process can fetch: the page at its address, and whatever token it carries.
      const answer = yield* get(page)
      const html = yield* textOf(answer)
      assert.strictEqual(answer.status, 403)
      assert.include(html, "link")
      assert.notInclude(html, "tasks_add", "no held call's details without the key")
      const token = /const TOKEN = "([^"]+)"/.exec(html)?.[1] ?? "guessed"
      const decided = yield* postDecision(page, id, { "x-console-token": token })
      assert.strictEqual(decided.status, 403)
      assert.strictEqual((yield* get(`${page.href}/events?token=${token}`)).status, 403)
      assert.strictEqual((yield* get(`${page.href}?key=guessed`)).status, 403)
      // Still waiting: nothing it sent let the call run.
      yield* Effect.sleep("100 millis")
      assert.isUndefined(calling.pollUnsafe())
      assert.strictEqual((yield* console.state.snapshot).held.length, 1)
      yield* console.decide(id, "deny", "the test")
      const refused = yield* Fiber.join(calling)
      assert.isTrue(refused.isError)
    }))

  it.live("the printed link trades its key for a same-site, script-proof cookie, and the page and its decisions then need both", () =>
    Effect.gen(function*() {
      const { console, link, page, served } = yield* serveWithConsole({ hold: ["tasks_add"] })
      assert.match(link.search, /^\?key=[\w-]{32,}$/)
      const entered = yield* get(link)
      assert.strictEqual(entered.status, 303)
      assert.strictEqual(entered.headers.get("location"), page.pathname, "the key leaves the address bar")
      const setCookie = entered.headers.get("set-cookie") ?? ""
      assert.include(setCookie, "HttpOnly")
      assert.include(setCookie, "SameSite=Strict")
      assert.notInclude(setCookie, link.searchParams.get("key") ?? "", "the cookie is not the key itself")
      const cookie = cookieOf(entered)
      const served200 = yield* get(page, { cookie })
      assert.strictEqual(served200.status, 200)
      const token = /const TOKEN = "([^"]+)"/.exec(yield* textOf(served200))?.[1] ?? ""
      const { calling, id } = yield* heldCall(served.url, console)
      // The cookie without the page's token, and the token without the cookie, are each refused.
      assert.strictEqual((yield* postDecision(page, id, { cookie })).status, 403)
      assert.strictEqual((yield* postDecision(page, id, { "x-console-token": token })).status, 403)
      assert.strictEqual((yield* postDecision(page, id, { cookie, "x-console-token": token })).status, 200)
      const added = yield* Fiber.join(calling)
      assert.isNotTrue(added.isError, JSON.stringify(added.content))
    }))

  it.live("a key set in the options opens the console of every instance sharing it, and a short one is refused", () =>
    Effect.gen(function*() {
      const key = "k".repeat(16) + "e".repeat(16)
      const a = yield* serveWithConsole({ key })
      const b = yield* serveWithConsole({ key })
      assert.strictEqual(a.link.searchParams.get("key"), key)
      const cookie = cookieOf(yield* get(a.link))
      assert.strictEqual((yield* get(b.page, { cookie })).status, 200)
      const other = yield* serveWithConsole()
      assert.strictEqual((yield* get(other.page, { cookie })).status, 403)
      const short = yield* Effect.exit(McpConsole.make({ key: "too-short" }))
      assert.strictEqual(short._tag, "Failure")
      assert.include(String(short._tag === "Failure" ? short.cause : ""), "at least 32 characters")
    }))

  it.live(
    "the operator's browser opens the printed link and lands on the plain page, live, with the cookie kept from scripts",
    () =>
      Effect.gen(function*() {
        const { link, page: plain } = yield* serveWithConsole()
        const page = yield* open(link.href)
        yield* Effect.promise(() => page.locator("#live.on").waitFor())
        assert.strictEqual(page.url(), plain.href)
        const cookies = yield* Effect.promise(() => page.context().cookies())
        assert.strictEqual(cookies.length, 1)
        assert.isTrue(cookies[0]?.httpOnly)
        assert.strictEqual(cookies[0]?.sameSite, "Strict")
        assert.strictEqual(yield* Effect.promise(() => page.evaluate("document.cookie")), "")
      }),
    60_000
  )
})
