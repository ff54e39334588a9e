// The example board's views in a host built on ext-apps' AppBridge, in headless Chromium: `npm start`
// serves the board; a host page (an official SDK client over HTTP declaring the extension) reads the
// view tasks_add links to, renders it in a sandboxed iframe, and the test works its form as a person
// would. In both revisions: the task is added on the board and the view's table shows it without a
// reload, a wrong entry is refused in the form with the schema's sentence, a declared error is shown as
// its sentence, and a call the console holds waits there for an operator's approval. A task an agent
// adds from its own client shows in the view too; since MCP Apps gives a view no subscription, the
// view reads through the host, and the test counts those reads: none while the view is off screen,
// fewer and fewer while nothing changes.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import type { Scope } from "effect"
import * as esbuild from "esbuild"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import type { FrameLocator, Page } from "playwright-core"
import { browser, open } from "./browser.ts"
import { spawnExample } from "./exampleProcess.ts"

// Where the host with its view is photographed (docs/views.png is made with VIEWS_SCREENSHOT=docs/views.png).
const screenshotPath = process.env["VIEWS_SCREENSHOT"] ?? Path.join(Os.tmpdir(), "effect-surface-views.png")
const HOST = "http://host.test"

// The host page's script, bundled once for the browser (AppBridge, the SDK client and their deps).
const hostScript = esbuild.build({
  entryPoints: [fileURLToPath(new URL("./viewHost/host.ts", import.meta.url))],
  bundle: true,
  write: false,
  format: "esm",
  platform: "browser",
  logLevel: "error"
}).then((built) => built.outputFiles[0]?.text ?? "")

// `npm start` on a free port: its MCP and console URLs, the process ended with the scope.
const board: Effect.Effect<{ readonly mcp: string; readonly console: string }, never, Scope.Scope> = Effect.gen(
  function*() {
    const { printed } = yield* spawnExample("examples/main.ts")
    return {
      mcp: yield* printed(/Task board MCP server at (\S+)/),
      console: yield* printed(/Operator console at (\S+)/)
    }
  }
)

// A `resources/read` the host page carried to the board, and when.
interface Read {
  readonly uri: string
  readonly at: number
}

// The host page at its own origin, its `/mcp` carried to the board: the page's client speaks HTTP to
// the board as a host's would. The board's GET stream is declined (the view re-reads by itself). Each
// resource read the page sends is noted in `reads`.
const hostPage = (mcp: string, mode: "2025" | "2026", reads: Array<Read> = []) =>
  Effect.gen(function*() {
    const script = yield* Effect.promise(() => hostScript)
    const context = yield* browser()
    const page = yield* Effect.promise(() => context.newPage())
    // A view re-reading as the scope closes: its requests in flight are let go, not reported.
    yield* Effect.addFinalizer(() => Effect.promise(() => page.unrouteAll({ behavior: "ignoreErrors" })))
    return yield* Effect.promise(async (): Promise<Page> => {
      await page.route(`${HOST}/**`, async (route) => {
        const request = route.request()
        const path = new URL(request.url()).pathname
        if (path === "/host.js") return route.fulfill({ contentType: "text/javascript", body: script })
        if (path !== "/mcp") {
          return route.fulfill({
            contentType: "text/html",
            body: `<!doctype html><title>view host</title><body><script type="module" src="/host.js"></script>`
          })
        }
        if (request.method() === "GET") return route.fulfill({ status: 405 })
        const sent = request.postDataJSON() as
          | { readonly method?: string; readonly params?: { readonly uri?: string } }
          | null
        if (sent?.method === "resources/read") reads.push({ uri: String(sent.params?.uri), at: Date.now() })
        const { origin: _origin, host: _host, ...headers } = request.headers()
        const answer = await route.fetch({ url: mcp, headers })
        return route.fulfill({ response: answer })
      })
      await page.goto(`${HOST}/?mode=${mode}`)
      await page.locator("body[data-state=ready]").waitFor({ timeout: 20_000 })
      return page
    })
  })

const submit = (view: FrameLocator) =>
  Effect.promise(async () => {
    await view.locator("form").evaluate((form) => form.removeAttribute("data-state"))
    await view.locator("button[type=submit]").click()
    await view.locator("form[data-state=done]").waitFor({ timeout: 20_000 })
  })

const text = (view: FrameLocator, selector: string) => Effect.promise(() => view.locator(selector).innerText())

// The sentence the board refuses `tasks_add` without a title with, as an agent's SDK client reads it
// (less the prefix marking the framework's own text).
const refusalOf = (mcp: string) =>
  Effect.promise(async () => {
    const client = new Client({ name: "refusal", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp)))
    try {
      const result = await client.callTool({ name: "tasks_add", arguments: {} }) as CallToolResult
      assert.isTrue(result.isError)
      const [block] = result.content
      return block?.type === "text" ? block.text.replace(/^effect-surface: /, "") : JSON.stringify(result)
    } finally {
      await client.close()
    }
  })

// An agent's call to the board from its own SDK client, apart from the host and its view.
const agentCalls = (mcp: string, name: string, args: Record<string, unknown>) =>
  Effect.promise(async () => {
    const client = new Client({ name: "agent", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp)))
    try {
      const result = await client.callTool({ name, arguments: args }) as CallToolResult
      assert.isNotTrue(result.isError, JSON.stringify(result))
    } finally {
      await client.close()
    }
  })

// Where the host page puts its view: in sight, or far below the fold.
const scroll = (page: Page, away: boolean) =>
  Effect.promise(() =>
    page.evaluate((away) => {
      const body = (globalThis as unknown as { document: { body: { style: { paddingTop: string } } } }).document.body
      body.style.paddingTop = away ? "5000px" : ""
    }, away)
  )

describe("the board's views in a browser host", () => {
  for (const mode of ["2025", "2026"] as const) {
    it.live(
      `on ${
        mode === "2025" ? "2025-11-25" : "2026-07-28"
      } a task an agent adds from its own client shows in the view's table without a reload, read while the view is seen and ever less often while nothing changes`,
      () =>
        Effect.gen(function*() {
          const { mcp } = yield* board
          const reads: Array<Read> = []
          const page = yield* hostPage(mcp, mode, reads)
          const view = page.frameLocator("iframe")
          yield* Effect.promise(() => view.locator("#live[data-state=shown]").waitFor({ timeout: 20_000 }))
          const frame = page.frames()[1]!
          yield* Effect.promise(() => frame.evaluate(() => ((globalThis as unknown as { mark: number }).mark = 1)))
          // One read of the focus cell per round of the view's reads.
          const rounds = (since: number) =>
            reads.filter((read) => read.uri === "surface://cells/focus" && read.at > since)

          // Off screen the view reads nothing, so the agent's task is not in it yet.
          yield* scroll(page, true)
          yield* Effect.sleep("1 second")
          const away = Date.now()
          yield* agentCalls(mcp, "tasks_add", { title: "added by an agent" })
          yield* Effect.sleep("2500 millis")
          assert.deepStrictEqual(rounds(away), [])
          const row = view.locator(`[data-uri="surface://collections/tasks"] tr`, { hasText: "added by an agent" })
          assert.strictEqual(yield* Effect.promise(() => row.count()), 0)

          // Back in sight it reads at once: the task shows, in the same window.
          yield* scroll(page, false)
          yield* Effect.promise(() => row.waitFor({ timeout: 10_000 }))
          yield* Effect.promise(() =>
            view.locator(`[data-uri="surface://streams/activity"] li`, { hasText: "added by an agent" }).waitFor()
          )
          assert.strictEqual(
            yield* Effect.promise(() => frame.evaluate(() => (globalThis as unknown as { mark?: number }).mark)),
            1
          )

          // While nothing changes it waits twice as long after each read that found nothing new: over
          // seven seconds, a few rounds where reading every second would be seven.
          const quiet = Date.now()
          yield* Effect.sleep("7 seconds")
          const seen = rounds(quiet).length
          assert.isAtLeast(seen, 1)
          assert.isAtMost(seen, 4)

          // And a second change made elsewhere still shows while the view waits long between reads.
          yield* agentCalls(mcp, "board_focus", { value: "what the agent focused on" })
          yield* Effect.promise(() =>
            view.locator(`[data-uri="surface://cells/focus"] output`, { hasText: "what the agent focused on" })
              .waitFor({ timeout: 15_000 })
          )
        }),
      120_000
    )

    it.live(
      `on ${
        mode === "2025" ? "2025-11-25" : "2026-07-28"
      } the tasks_add form adds a task the view's table shows without a reload, and refuses a missing title with the schema's sentence`,
      () =>
        Effect.gen(function*() {
          const { mcp } = yield* board
          const page = yield* hostPage(mcp, mode)
          const view = page.frameLocator("iframe")
          yield* Effect.promise(() => view.locator("#live[data-state=shown]").waitFor({ timeout: 20_000 }))
          // A mark in the view's window: still there after the table moves, so nothing reloaded it.
          const frame = page.frames()[1]!
          yield* Effect.promise(() => frame.evaluate(() => ((globalThis as unknown as { mark: number }).mark = 1)))
          yield* Effect.promise(() => view.locator("input[name=title]").fill("write the view docs"))
          yield* submit(view)
          assert.strictEqual(yield* text(view, "[role=alert]"), "")
          const row = view.locator(`[data-uri="surface://collections/tasks"] tr`, { hasText: "write the view docs" })
          yield* Effect.promise(() => row.waitFor({ timeout: 10_000 }))
          yield* Effect.promise(() =>
            view.locator(`[data-uri="surface://streams/activity"] li`, { hasText: "write the view docs" }).waitFor()
          )
          assert.strictEqual(
            yield* Effect.promise(() => frame.evaluate(() => (globalThis as unknown as { mark?: number }).mark)),
            1
          )
          yield* Effect.promise(() => page.screenshot({ path: screenshotPath, fullPage: true }))
          assert.deepStrictEqual([...Fs.readFileSync(screenshotPath).subarray(1, 4)], [0x50, 0x4e, 0x47])
          // The board itself holds the task, as any agent reads it.
          const client = new Client({ name: "reader", version: "1.0.0" })
          yield* Effect.acquireRelease(
            Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(mcp)))),
            () => Effect.promise(() => client.close())
          )
          const tasks = yield* Effect.promise(() => client.readResource({ uri: "surface://collections/tasks" }))
          assert.include(JSON.stringify(tasks.contents), "write the view docs")

          yield* Effect.promise(() => view.locator("input[name=title]").fill(""))
          yield* submit(view)
          const sentence = yield* refusalOf(mcp)
          assert.include(sentence, `"title"`)
          assert.strictEqual(yield* text(view, "[role=alert]"), sentence)
        }),
      120_000
    )

    it.live(
      `on ${
        mode === "2025" ? "2025-11-25" : "2026-07-28"
      } the tasks_complete form shows a declared error as its sentence, and a held completion waits for the console's approval`,
      () =>
        Effect.gen(function*() {
          const { console, mcp } = yield* board
          const page = yield* hostPage(mcp, mode)
          yield* Effect.promise(() => page.goto(`${HOST}/?mode=${mode}&tool=tasks_complete`))
          yield* Effect.promise(() => page.locator("body[data-state=ready]").waitFor({ timeout: 20_000 }))
          const view = page.frameLocator("iframe")
          const operator = yield* open(console)
          yield* Effect.promise(() => operator.locator("#live.on").waitFor())
          // t404 is no task: the hold is approved, and the declared refusal reaches the form as its sentence.
          yield* Effect.promise(() => view.locator("input[name=value]").fill("t404"))
          yield* Effect.promise(() => view.locator("button[type=submit]").click())
          const held = operator.locator("[data-held]", { hasText: "tasks_complete" })
          yield* Effect.promise(() => held.waitFor({ timeout: 20_000 }))
          assert.strictEqual(yield* Effect.promise(() => view.locator("form").getAttribute("data-state")), "calling")
          yield* Effect.promise(() => held.getByRole("button", { name: "Approve" }).click())
          yield* Effect.promise(() => view.locator("form[data-state=done]").waitFor({ timeout: 20_000 }))
          assert.strictEqual(yield* text(view, "[role=alert]"), "there is no task t404 on the board")
        }),
      120_000
    )
  }
})
