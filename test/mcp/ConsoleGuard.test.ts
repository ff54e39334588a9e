// What the console refuses and what it keeps to itself, over raw HTTP: no stream without its key, no
// action without the key and the token its stream issued, no decision from another origin, no page under
// a foreign name, no argument value unless the operator opted in; and a held call nobody answers is
// refused when its wait ends.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect, Fiber, Layer, Schedule } from "effect"
import { TestClock } from "effect/testing"
import { Approval } from "effect-surface"
import { McpConsole } from "effect-surface/mcp"
import * as NodeHttp from "node:http"
import { serveWithConsole } from "./consoleServed.ts"

interface Answer {
  readonly status: number
  readonly text: string
}

/** One request with exactly the headers given (Host included); a stream is read until `until` shows. */
const request = (
  url: URL,
  options: {
    readonly method?: string
    readonly headers?: Record<string, string>
    readonly body?: string
    readonly until?: string
  }
) =>
  Effect.callback<Answer>((resume) => {
    const req = NodeHttp.request(url, { method: options.method ?? "GET", headers: options.headers ?? {} }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => {
        text += chunk
        if (options.until !== undefined && text.includes(options.until)) {
          resume(Effect.succeed({ status: res.statusCode ?? 0, text }))
          req.destroy()
        }
      })
      res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0, text })))
    })
    req.on("error", () => resume(Effect.succeed({ status: 0, text: "" })))
    req.end(options.body)
    return Effect.sync(() => req.destroy())
  })

const at = (page: URL, path: string) => new URL(`${page.pathname}${path}`, page)

const decide = (page: URL, headers: Record<string, string>) =>
  request(at(page, "/decide"), {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ id: "nothing-waits", decision: "allow" })
  })

const callTool = (url: string, name: string, args: Record<string, unknown>) =>
  Effect.gen(function*() {
    const client = new Client({ name: "guard-test", version: "1.0.0" }, { capabilities: {} })
    yield* Effect.acquireRelease(
      Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(url)))),
      () => Effect.promise(() => client.close())
    )
    return yield* Effect.promise(() => client.callTool({ name, arguments: args }))
  })

// The stream as the page reads it: the page's token first, then the state whole.
const opened = (page: URL, key: string, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const stream = yield* request(at(page, "/events"), {
      headers: { "x-console-key": key, ...headers },
      until: "event: snapshot"
    })
    const token = /"token":"([^"]+)"/.exec(stream.text)?.[1] ?? ""
    return { ...stream, token }
  })

const snapshotText = (page: URL, key: string) =>
  Effect.gen(function*() {
    const html = yield* request(page, {})
    const stream = yield* opened(page, key)
    assert.strictEqual(stream.status, 200)
    assert.include(stream.text, "event: snapshot")
    return { html: html.text, stream: stream.text }
  })

describe("the console's doors", () => {
  it.live("answers no stream without its key, no action without the key and its stream's token, and no decision from another origin", () =>
    Effect.gen(function*() {
      const { key, page } = yield* serveWithConsole()
      const origin = page.origin
      const stream = yield* opened(page, key)
      assert.strictEqual(stream.status, 200)
      const token = stream.token
      const keyed = { "x-console-key": key }
      // Admitted with its token from its own origin: the decision is read (nothing waits under that id).
      assert.strictEqual((yield* decide(page, { ...keyed, "x-console-token": token, origin })).status, 404)
      const withoutToken = yield* decide(page, { ...keyed, origin })
      assert.strictEqual(withoutToken.status, 403)
      assert.include(withoutToken.text, "token")
      assert.strictEqual((yield* decide(page, { ...keyed, "x-console-token": "forged", origin })).status, 403)
      assert.strictEqual((yield* decide(page, { "x-console-token": token, origin })).status, 403)
      assert.strictEqual(
        (yield* decide(page, { ...keyed, "x-console-token": token, origin: "https://evil.example" })).status,
        403
      )
      assert.strictEqual((yield* decide(page, { ...keyed, "x-console-token": token })).status, 403)
      assert.strictEqual(
        (yield* decide(page, { ...keyed, "x-console-token": token, origin, "sec-fetch-site": "cross-site" })).status,
        403
      )
      assert.strictEqual((yield* opened(page, "")).status, 403)
      assert.strictEqual((yield* opened(page, `${key}x`)).status, 403)
      assert.strictEqual((yield* opened(page, key, { "sec-fetch-site": "same-site" })).status, 403)
    }))

  it.live("serves no page under a name other than the loopback's, so a rebound name reads nothing", () =>
    Effect.gen(function*() {
      const { key, page } = yield* serveWithConsole()
      const refused = yield* opened(page, key, { host: `evil.example:${page.port}` })
      assert.strictEqual(refused.status, 403)
      assert.notInclude(refused.text, "token")
      assert.strictEqual((yield* request(page, { headers: { host: `evil.example:${page.port}` } })).status, 403)
      assert.strictEqual((yield* opened(page, key, { host: `localhost:${page.port}` })).status, 200)
    }))

  it.live("the page forbids framing and loads nothing from elsewhere", () =>
    Effect.gen(function*() {
      const { page } = yield* serveWithConsole()
      const answer = yield* Effect.promise(() => fetch(page))
      assert.strictEqual(answer.headers.get("x-frame-options"), "DENY")
      assert.include(answer.headers.get("content-security-policy") ?? "", "frame-ancestors 'none'")
      assert.include(answer.headers.get("content-security-policy") ?? "", "default-src 'none'")
    }))

  it.live("leaks no argument value, on the page or its stream, unless the operator opted in", () =>
    Effect.gen(function*() {
      const secret = "sk-live-4f9a0c7e"
      const hidden = yield* serveWithConsole({ hold: [] })
      yield* callTool(hidden.served.url, "tasks_add", { title: secret })
      const seen = yield* snapshotText(hidden.page, hidden.key)
      assert.include(seen.stream, "tasks_add")
      assert.notInclude(seen.stream, secret)
      assert.notInclude(seen.html, secret)
      const shown = yield* serveWithConsole({ showArguments: true })
      yield* callTool(shown.served.url, "tasks_add", { title: secret })
      assert.include((yield* snapshotText(shown.page, shown.key)).stream, secret)
    }))
})

describe("the console's approvals", () => {
  it.effect("a held call nobody answers is refused when its wait ends, with a sentence saying so", () =>
    Effect.gen(function*() {
      const console = yield* McpConsole.make({ approvalTimeout: "1 minute" })
      const asking = yield* Effect.forkChild(
        console.ask({ toolName: "tasks_clear", server: "board", tool: "tasks_clear", args: {} })
      )
      yield* TestClock.adjust("59 seconds")
      assert.strictEqual((yield* console.state.snapshot).held.length, 1)
      yield* TestClock.adjust("1 second")
      const answer = yield* Fiber.join(asking)
      assert.deepStrictEqual(answer.decision, {
        _tag: "Deny",
        reason: "calling tasks_clear needs the operator's approval, and nobody gave it within 1m"
      })
      const snapshot = yield* console.state.snapshot
      assert.strictEqual(snapshot.held.length, 0)
      assert.strictEqual(snapshot.decided[0]?.by, "nobody (timed out)")
    }))

  it.effect("the page is the Approval service any policy's ask waits on, and the decision is recorded with who made it", () =>
    Effect.gen(function*() {
      const console = yield* McpConsole.make()
      const approvals = McpConsole.layerApproval.pipe(Layer.provide(Layer.succeed(McpConsole.Console, console)))
      const asking = yield* Effect.forkChild(
        Approval.ask({ toolName: "files__write", server: "files", tool: "write", args: { path: "a" } }).pipe(
          Effect.provide(approvals)
        )
      )
      yield* Effect.yieldNow
      const [held] = (yield* console.state.snapshot).held
      assert.isDefined(held)
      assert.isFalse("args" in (held ?? {}), "no argument value without opting in")
      assert.isTrue(yield* console.decide(held?.id ?? "", "allow", "operator at ::1"))
      assert.deepStrictEqual(yield* Fiber.join(asking), Approval.allow)
      assert.isFalse(yield* console.decide(held?.id ?? "", "deny", "operator at ::1"), "decided once")
      assert.deepStrictEqual((yield* console.state.snapshot).decided.map((d) => [d.tool, d.decision, d.by]), [[
        "files__write",
        "allow",
        "operator at ::1"
      ]])
    }))

  it.live("a held call its client cancels leaves the page's waiting list and is shown cancelled", () =>
    Effect.gen(function*() {
      const { console, served } = yield* serveWithConsole({ hold: ["tasks_add"] })
      const client = new Client({ name: "guard-test", version: "1.0.0" }, { capabilities: {} })
      yield* Effect.acquireRelease(
        Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(served.url)))),
        () => Effect.promise(() => client.close())
      )
      const abort = new AbortController()
      const calling = Effect.promise(() =>
        client.callTool({ name: "tasks_add", arguments: { title: "never" } }, undefined, { signal: abort.signal })
          .catch((error: unknown) => error)
      )
      const fiber = yield* Effect.forkChild(calling)
      const waiting = console.state.snapshot.pipe(
        Effect.flatMap((s) => s.held.length === 1 ? Effect.void : Effect.fail("not yet")),
        Effect.retry(Schedule.spaced("20 millis")),
        Effect.timeout("10 seconds")
      )
      yield* waiting
      abort.abort()
      yield* Fiber.join(fiber)
      const settled = yield* console.state.snapshot.pipe(
        Effect.flatMap((s) => s.calls[0]?.outcome === "cancelled" ? Effect.succeed(s) : Effect.fail("not yet")),
        Effect.retry(Schedule.spaced("20 millis")),
        Effect.timeout("10 seconds")
      )
      assert.deepStrictEqual(settled.held, [])
      assert.deepStrictEqual(settled.decided.map((d) => [d.tool, d.decision, d.by]), [[
        "tasks_add",
        "deny",
        "the caller, who cancelled"
      ]])
    }))

  it.live("the roster shown is the one listed: a sibling taken away shows as retired names, and what the expose map hides is named", () =>
    Effect.gen(function*() {
      const { console, served } = yield* serveWithConsole()
      const listed = (
        predicate: (
          names: ReadonlyArray<string>,
          retired: ReadonlyArray<string>,
          cells: Readonly<Record<string, string>>
        ) => boolean
      ) =>
        console.state.snapshot.pipe(
          Effect.flatMap((s) => {
            const names = (s.roster?.tools ?? []).map((tool) => String(tool["name"]))
            const retired = (s.roster?.tombstones ?? []).map((t) => t.name)
            return predicate(names, retired, s.cells) ? Effect.succeed(s) : Effect.fail("not yet")
          }),
          Effect.retry(Schedule.spaced("20 millis")),
          Effect.timeout("10 seconds")
        )
      const before = yield* listed((names) => names.includes("stopwatch_watch_lap"))
      // Only what the expose map leaves out: a member it lets through under a scope is not hidden.
      assert.deepStrictEqual(before.roster?.hidden, ["procedures.board.clear"])
      yield* served.face.reroster({})
      const after = yield* listed((names, retired, cells) =>
        !names.includes("stopwatch_watch_lap") && retired.includes("stopwatch_watch_lap") &&
        !Object.hasOwn(cells, "surface://cells/stopwatch/laps")
      )
      assert.notInclude((after.roster?.resources ?? []).map((r) => String(r["uri"])), "surface://cells/stopwatch/laps")
    }))
})
