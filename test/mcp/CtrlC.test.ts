// Ctrl-C with a call in flight, as a person running a server in a terminal presses it: the server says
// at once what it waits for and for how long, a second Ctrl-C stops it now, and a call cut off is
// answered with an error, never silence. Real processes, real SIGINTs, over stdio and HTTP.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect } from "effect"
import * as ChildProcess from "node:child_process"
import { fileURLToPath } from "node:url"
import { envelope } from "./modern.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))

interface Message {
  readonly id?: number
  readonly method?: string
  readonly error?: { readonly code: number; readonly message: string }
}

interface Child {
  readonly process: ChildProcess.ChildProcessWithoutNullStreams
  /** Everything it printed on stdout and stderr so far. */
  readonly printed: () => string
  readonly messages: () => ReadonlyArray<Message>
  /** Resolves with the time (ms) it exited at. */
  readonly exited: Promise<number>
}

const start = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Child => {
  const child = ChildProcess.spawn(process.execPath, ["--conditions=effect-surface-source", ...args], {
    cwd: root,
    env: { ...process.env, NO_COLOR: "1", ...env }
  })
  let out = ""
  let err = ""
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()))
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()))
  return {
    process: child,
    printed: () => out + err,
    messages: () => out.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Message),
    exited: new Promise((done) => child.once("exit", () => done(Date.now())))
  }
}

/** Poll until `holds` (every 50 ms, at most 20 s). */
const until = (holds: () => boolean, what: string) =>
  Effect.promise(async () => {
    for (let i = 0; i < 400 && !holds(); i++) await new Promise((done) => setTimeout(done, 50))
    return holds()
  }).pipe(Effect.tap((held) => Effect.sync(() => assert.isTrue(held, what))))

const killed = (child: Child) => Effect.sync(() => void child.process.kill("SIGKILL"))

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "ctrl-c", version: "1.0.0" } }
}
const stall = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "stall", arguments: {} } }
const write = (child: Child, ...lines: ReadonlyArray<unknown>) =>
  Effect.sync(() => void child.process.stdin.write(lines.map((line) => `${JSON.stringify(line)}\n`).join("")))

const stdioServer = (env: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.sync(() => start(["test/mcp/drain-stdio-server.ts"], env)),
    killed
  )

const waiting = /stopping: waiting up to .* for the request still running to answer; Ctrl-C again stops now/

describe("Ctrl-C over stdio", () => {
  it.live(
    "with a call in flight it says at once what it waits for, then answers the call that it stopped",
    () =>
      Effect.gen(function*() {
        const child = yield* stdioServer({ DRAIN_TIMEOUT: "1500 millis" })
        yield* write(child, initialize, { jsonrpc: "2.0", method: "notifications/initialized" }, stall)
        yield* until(() => child.printed().includes("\"id\":1"), "the server answered initialize")
        yield* Effect.sleep("300 millis")
        const sent = Date.now()
        child.process.kill("SIGINT")
        yield* until(() => waiting.test(child.printed()), "it said what it waits for")
        const exitedAt = yield* Effect.promise(() => child.exited)
        assert.isAtLeast(exitedAt - sent, 1_000, "it waited for the call, as it said")
        const answer = child.messages().find((m) => m.id === 2)
        assert.strictEqual(answer?.error?.message, "the server stopped before this request finished")
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live("a second Ctrl-C stops it now, and the call cut off is answered with an error", () =>
    Effect.gen(function*() {
      const child = yield* stdioServer()
      yield* write(child, initialize, { jsonrpc: "2.0", method: "notifications/initialized" }, stall)
      yield* until(() => child.printed().includes("\"id\":1"), "the server answered initialize")
      yield* Effect.sleep("300 millis")
      child.process.kill("SIGINT")
      yield* until(() => waiting.test(child.printed()), "it said what it waits for")
      const second = Date.now()
      child.process.kill("SIGINT")
      const exitedAt = yield* Effect.promise(() => child.exited)
      assert.isBelow(exitedAt - second, 5_000, "it stopped without waiting out its 10 s")
      const answer = child.messages().find((m) => m.id === 2)
      assert.strictEqual(answer?.error?.message, "the server stopped before this request finished")
    }).pipe(Effect.scoped), { timeout: 60_000 })

  it.live("a 2026-07-28 call cut off by a second Ctrl-C is answered with an error too", () =>
    Effect.gen(function*() {
      const child = yield* stdioServer()
      yield* write(child, { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: envelope() } })
      yield* until(() => child.printed().includes("\"id\":1"), "the server answered tools/list")
      yield* write(child, { ...stall, params: { ...stall.params, _meta: envelope() } })
      yield* Effect.sleep("300 millis")
      child.process.kill("SIGINT")
      yield* until(() => waiting.test(child.printed()), "it said what it waits for")
      child.process.kill("SIGINT")
      yield* Effect.promise(() => child.exited)
      const answer = child.messages().find((m) => m.id === 2)
      assert.strictEqual(answer?.error?.message, "the server stopped before this request finished")
    }).pipe(Effect.scoped), { timeout: 60_000 })
})

describe("Ctrl-C over HTTP", () => {
  it.live(
    "it says at once what it waits for, a second Ctrl-C stops it now, and the call cut off is told so",
    () =>
      Effect.gen(function*() {
        const child = yield* Effect.acquireRelease(
          Effect.sync(() => start(["test/mcp/stop-http-server.ts"])),
          killed
        )
        yield* until(() => /MCP over HTTP at (\S+)/.test(child.printed()), "the server said where it listens")
        const url = /MCP over HTTP at (\S+)/.exec(child.printed())![1]!
        const client = new Client({ name: "ctrl-c", version: "1.0.0" })
        yield* Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(url))))
        const call = client.callTool({ name: "stall", arguments: {} }).then(
          () => "answered",
          (error: Error) => error.message
        )
        yield* Effect.sleep("500 millis")
        child.process.kill("SIGINT")
        yield* until(
          () =>
            /stopping: waiting up to 10s for the request in flight to answer; Ctrl-C again stops now/.test(
              child.printed()
            ),
          "it said what it waits for"
        )
        const second = Date.now()
        child.process.kill("SIGINT")
        const exitedAt = yield* Effect.promise(() => child.exited)
        assert.isBelow(exitedAt - second, 5_000, "it stopped without waiting out its 10 s")
        assert.include(yield* Effect.promise(() => call), "the server stopped before this request finished")
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})

describe("a host that stops reading", () => {
  it.live(
    "a stdio server whose stdout is closed by its host ends quietly, with no crash",
    () =>
      Effect.gen(function*() {
        const child = yield* stdioServer()
        yield* write(child, initialize, { jsonrpc: "2.0", method: "notifications/initialized" })
        yield* until(() => child.printed().includes("\"id\":1"), "the server answered initialize")
        child.process.stdout.destroy()
        yield* write(child, { jsonrpc: "2.0", id: 2, method: "tools/list" }, {
          jsonrpc: "2.0",
          id: 3,
          method: "tools/list"
        })
        const exited = yield* Effect.promise(() =>
          Promise.race([
            child.exited.then(() => true),
            new Promise<boolean>((done) => setTimeout(() => done(false), 20_000))
          ])
        )
        assert.isTrue(exited, "the server ended once its host stopped reading")
        assert.strictEqual(child.process.exitCode, 0, child.printed())
        assert.notInclude(child.printed(), "Unhandled 'error' event")
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
