// The operator's console, in a real browser: headless Chromium opens the page an MCP endpoint serves,
// an official SDK client calls tools over HTTP, and what the page shows (and what its buttons decide)
// is checked from both ends.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Fiber } from "effect"
import { McpConsole, McpHttp } from "effect-surface/mcp"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { serverOptions } from "../../examples/board/app.ts"
import { open } from "./browser.ts"
import * as Modern from "./modern.ts"

const serveWithConsole = (options: McpConsole.Options = {}) =>
  Effect.gen(function*() {
    const console = yield* McpConsole.make(options)
    const board = yield* serverOptions
    const served = yield* McpHttp.serve({ ...board, http: { port: 0 } }).pipe(
      Effect.provideService(McpConsole.Console, console)
    )
    assert.isDefined(served.console)
    return { served, console, page: served.console ?? "" }
  })

const connect = (url: string) =>
  Effect.gen(function*() {
    const client = new Client({ name: "console-test", version: "1.0.0" }, { capabilities: {} })
    yield* Effect.acquireRelease(
      Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(url)))),
      () => Effect.promise(() => client.close())
    )
    return client
  })

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<CallToolResult>)

const textOf = (result: CallToolResult) =>
  result.content.map((block) => block.type === "text" ? block.text : "").join("")

const screenshotPath = process.env["CONSOLE_SCREENSHOT"] ?? Path.join(Os.tmpdir(), "effect-surface-console.png")

describe("the console in a browser", () => {
  it.live("an SDK client's tools/call appears on the open page without a reload", () =>
    Effect.gen(function*() {
      const { page: url, served } = yield* serveWithConsole()
      const page = yield* open(url)
      yield* Effect.promise(() => page.locator("#live.on").waitFor())
      yield* Effect.promise(() => page.evaluate("window.unreloaded = true"))
      const client = yield* connect(served.url)
      const result = yield* call(client, "board_focus", { value: "ship the console" })
      assert.isNotTrue(result.isError)
      const row = page.locator("[data-call]", { hasText: "board_focus" })
      yield* Effect.promise(() => row.locator("td.ok").waitFor({ timeout: 10_000 }))
      const text = yield* Effect.promise(() => row.innerText())
      assert.include(text, "console-test 1.0.0")
      assert.strictEqual(yield* Effect.promise(() => page.evaluate("window.unreloaded")), true)
      // The roster is the one an agent is listed, and the cell the call set shows its new value.
      yield* Effect.promise(() => page.locator("#roster code", { hasText: "tasks_add" }).first().waitFor())
      yield* Effect.promise(() => page.locator("#side", { hasText: "ship the console" }).waitFor())
    }), 60_000)

  it.live(
    "a held call waits for the operator, is approved by a click, and the client's call completes",
    () =>
      Effect.gen(function*() {
        const { page: url, served } = yield* serveWithConsole({ hold: ["tasks_add"], showArguments: true })
        const page = yield* open(url)
        yield* Effect.promise(() => page.locator("#live.on").waitFor())
        const client = yield* connect(served.url)
        yield* call(client, "board_focus", { value: "release 0.2" })
        yield* call(client, "tasks_open")
        const pending = yield* Effect.forkChild(call(client, "tasks_add", { title: "rotate the keys" }))
        const held = page.locator("[data-held]", { hasText: "tasks_add" })
        yield* Effect.promise(() => held.waitFor({ timeout: 10_000 }))
        assert.isUndefined(pending.pollUnsafe())
        // The page as the README shows it: a call waiting, the calls before it, the roster.
        yield* Effect.promise(() => page.screenshot({ path: screenshotPath, fullPage: true }))
        assert.deepStrictEqual([...Fs.readFileSync(screenshotPath).subarray(1, 4)], [0x50, 0x4e, 0x47])
        yield* Effect.promise(() => held.getByRole("button", { name: "Approve" }).click())
        const result = yield* Fiber.join(pending)
        assert.isNotTrue(result.isError, textOf(result))
        assert.include(textOf(result), "t")
        const row = page.locator("[data-call]", { hasText: "tasks_add" })
        yield* Effect.promise(() => row.locator("td.ok").waitFor({ timeout: 10_000 }))
        assert.include(yield* Effect.promise(() => row.innerText()), "approved by operator at 127.0.0.1")
        yield* Effect.promise(() => page.locator("#side", { hasText: "by operator at 127.0.0.1" }).waitFor())
      }),
    60_000
  )

  it.live(
    "a held call denied on the page reaches the client as a refusal saying who denied it",
    () =>
      Effect.gen(function*() {
        const { page: url, served } = yield* serveWithConsole({ hold: ["tasks_complete"] })
        const page = yield* open(url)
        yield* Effect.promise(() => page.locator("#live.on").waitFor())
        const client = yield* connect(served.url)
        const pending = yield* Effect.forkChild(call(client, "tasks_complete", { id: "t1" }))
        const held = page.locator("[data-held]", { hasText: "tasks_complete" })
        yield* Effect.promise(() => held.waitFor({ timeout: 10_000 }))
        yield* Effect.promise(() => held.getByRole("button", { name: "Deny" }).click())
        const result = yield* Fiber.join(pending)
        assert.isTrue(result.isError)
        assert.include(textOf(result), "the operator (operator at 127.0.0.1) denied this call")
        const row = page.locator("[data-call]", { hasText: "tasks_complete" })
        yield* Effect.promise(() => row.locator("td.refused").waitFor({ timeout: 10_000 }))
        assert.include(yield* Effect.promise(() => row.innerText()), "denied by operator at 127.0.0.1")
      }),
    60_000
  )

  it.live(
    "a 2026-07-28 client's held call is shown with its era and client, and approved by a click",
    () =>
      Effect.gen(function*() {
        const { page: url, served } = yield* serveWithConsole({ hold: ["tasks_add"] })
        const page = yield* open(url)
        yield* Effect.promise(() => page.locator("#live.on").waitFor())
        const client = yield* Modern.overHttp(served.url, "pin")
        const pending = yield* Effect.forkChild(
          Effect.promise(() => client.callTool({ name: "tasks_add", arguments: { title: "stateless" } }))
        )
        const held = page.locator("[data-held]", { hasText: "tasks_add" })
        yield* Effect.promise(() => held.waitFor({ timeout: 10_000 }))
        assert.include(yield* Effect.promise(() => held.innerText()), `client says "tests 1.0.0" (2026-07-28)`)
        yield* Effect.promise(() => held.getByRole("button", { name: "Approve" }).click())
        const result = yield* Fiber.join(pending)
        assert.isNotTrue(result.isError)
        const row = page.locator("[data-call]", { hasText: "tasks_add" })
        yield* Effect.promise(() => row.locator("td.ok").waitFor({ timeout: 10_000 }))
      }),
    60_000
  )
})
