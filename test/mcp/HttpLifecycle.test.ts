// How Streamable HTTP sessions end: idle expiry on the clock, DELETE, and a server shutting down —
// and that nothing of a session (subscriptions, handlers, streams) outlives its end.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect, Exit, Fiber, Ref, Schedule, Scope } from "effect"
import { TestClock } from "effect/testing"
import { Tools } from "effect-surface"
import { McpFace, McpHttp } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import { spawnExample } from "./exampleProcess.ts"

const headers = (session?: string) => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-11-25",
  ...(session === undefined ? {} : { "mcp-session-id": session })
})

const send = (url: string, body: unknown, session?: string) =>
  Effect.promise(() => fetch(url, { method: "POST", headers: headers(session), body: JSON.stringify(body) }))

const text = (response: Response) => Effect.promise(() => response.text())

/** Open a session with raw requests: `initialize`, then `notifications/initialized`. */
const rawSession = (url: string) =>
  Effect.gen(function*() {
    const init = yield* send(url, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1.0.0" } }
    })
    const session = init.headers.get("mcp-session-id") ?? ""
    yield* text(init)
    yield* Effect.flatMap(send(url, { jsonrpc: "2.0", method: "notifications/initialized" }, session), text)
    return session
  })

const subscribe = (url: string, session: string, uri: string) =>
  Effect.flatMap(send(url, { jsonrpc: "2.0", id: uri, method: "resources/subscribe", params: { uri } }, session), text)

/** Open the session's GET stream and read it to its end in a fiber. */
const followGet = (url: string, session: string) =>
  Effect.gen(function*() {
    const response = yield* Effect.promise(() =>
      fetch(url, { headers: { accept: "text/event-stream", "mcp-session-id": session } })
    )
    assert.strictEqual(response.status, 200)
    return yield* Effect.promise(() => response.text()).pipe(Effect.forkChild)
  })

/** Wait (bounded) until `read` satisfies `done`, and answer its last value. */
const eventually = <A>(read: Effect.Effect<A>, done: (a: A) => boolean) =>
  Effect.repeat(read, { until: done, schedule: Schedule.spaced("10 millis"), times: 500 })

/** `eventually` under the TestClock, where a spaced schedule would never wake: yield instead of sleeping. */
const eventuallyNow = <A>(read: Effect.Effect<A>, done: (a: A) => boolean) => {
  const step: Effect.Effect<A> = Effect.flatMap(read, (a) => Effect.as(Effect.yieldNow, a))
  return Effect.repeat(step, { until: done, times: 1000 })
}

/** The board's face with its slow-tool handlers counted while they run (its follows it counts itself). */
const countedFace = Effect.gen(function*() {
  const options = yield* serverOptions
  const running = yield* Ref.make(0)
  const slow = Tools.make({
    description: "Run until interrupted.",
    mutates: false,
    handler: () =>
      Effect.acquireUseRelease(
        Ref.update(running, (n) => n + 1),
        () => Effect.as(Effect.never, "never answered"),
        () => Ref.update(running, (n) => n - 1)
      )
  })
  const face = yield* McpFace.make({ ...options, coalesce: "1 millis", tools: { ...options.tools, slow } })
  return { face, watching: face.watching, running }
})

describe("MCP over Streamable HTTP: how sessions end", () => {
  it.effect("an idle session expires on the clock, and each request defers its expiry", () =>
    Effect.gen(function*() {
      const served = yield* Effect.flatMap(serverOptions, (options) =>
        McpHttp.serve({ ...options, http: { port: 0, idleTimeout: "10 minutes" } }))
      const quiet = yield* rawSession(served.url)
      const busy = yield* rawSession(served.url)
      yield* TestClock.adjust("6 minutes")
      yield* Effect.flatMap(send(served.url, { jsonrpc: "2.0", id: 2, method: "tools/list" }, busy), text)
      yield* TestClock.adjust("5 minutes")
      assert.deepStrictEqual(
        yield* eventuallyNow(served.sessions, (ids) =>
          !ids.includes(quiet)),
        [busy]
      )
      yield* TestClock.adjust("2 minutes")
      assert.deepStrictEqual(yield* served.sessions, [busy])
      yield* TestClock.adjust("5 minutes")
      assert.deepStrictEqual(yield* eventuallyNow(served.sessions, (ids) => ids.length === 0), [])
      const gone = yield* send(served.url, { jsonrpc: "2.0", id: 3, method: "tools/list" }, quiet)
      assert.strictEqual(gone.status, 404)
    }))

  it.live("an open GET stream keeps its session in use; a session with nothing open expires after the idle timeout", () =>
    Effect.gen(function*() {
      const served = yield* Effect.flatMap(
        serverOptions,
        (options) => McpHttp.serve({ ...options, http: { port: 0, idleTimeout: "200 millis" } })
      )
      const listening = yield* rawSession(served.url)
      const idle = yield* rawSession(served.url)
      const stream = yield* followGet(served.url, listening)
      assert.deepStrictEqual(yield* eventually(served.sessions, (ids) => !ids.includes(idle)), [listening])
      yield* Effect.sleep("400 millis")
      assert.deepStrictEqual(yield* served.sessions, [listening])
      yield* Fiber.interrupt(stream)
    }))

  it.live("every session's fibers are gone after DELETE: its subscriptions and running handlers are interrupted and its streams end", () =>
    Effect.gen(function*() {
      const counted = yield* countedFace
      const served = yield* McpHttp.serveFace(counted.face, { port: 0 })
      const session = yield* rawSession(served.url)
      yield* subscribe(served.url, session, "surface://cells/focus")
      yield* subscribe(served.url, session, "surface://cells/stopwatch/laps")
      const stream = yield* followGet(served.url, session)
      const call = yield* send(served.url, {
        jsonrpc: "2.0",
        id: 9,
        method: "tools/call",
        params: { name: "slow", arguments: {} }
      }, session).pipe(
        Effect.flatMap(text),
        Effect.forkChild
      )
      assert.strictEqual(yield* eventually(counted.watching, (n) => n === 2), 2)
      assert.strictEqual(yield* eventually(Ref.get(counted.running), (n) => n === 1), 1)

      const deleted = yield* Effect.promise(() => fetch(served.url, { method: "DELETE", headers: headers(session) }))
      assert.strictEqual(deleted.status, 200)
      assert.deepStrictEqual(yield* served.sessions, [])
      assert.strictEqual(yield* eventually(counted.watching, (n) => n === 0), 0)
      assert.strictEqual(yield* eventually(Ref.get(counted.running), (n) => n === 0), 0)
      yield* Fiber.join(stream).pipe(Effect.timeout("5 seconds"))
      yield* Fiber.join(call).pipe(Effect.timeout("5 seconds"))
    }))

  it.live("shutdown lets an in-flight call answer, then closes every session and ends its streams", () =>
    Effect.gen(function*() {
      const counted = yield* countedFace
      const scope = yield* Scope.make()
      const served = yield* McpHttp.serveFace(counted.face, { port: 0, drainTimeout: "5 seconds" }).pipe(
        Scope.provide(scope)
      )
      const sessions = [yield* rawSession(served.url), yield* rawSession(served.url)]
      const streams = []
      for (const session of sessions) {
        yield* subscribe(served.url, session, "surface://cells/focus")
        streams.push(yield* followGet(served.url, session))
      }
      const client = new Client({ name: "sdk", version: "1.0.0" })
      yield* Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(served.url))))
      assert.strictEqual((yield* served.sessions).length, 3)
      // Both sessions hold the one URI: one follow, shared.
      assert.strictEqual(yield* eventually(counted.watching, (n) => n === 1), 1)

      const first = sessions[0] ?? ""
      const inflight = yield* send(served.url, {
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "stopwatch_wait", arguments: { seconds: 0.3 } }
      }, first).pipe(
        Effect.flatMap(text),
        Effect.forkChild
      )
      yield* Effect.sleep("50 millis")
      const closing = yield* Scope.close(scope, Exit.void).pipe(Effect.forkChild)
      assert.include(yield* Fiber.join(inflight).pipe(Effect.timeout("5 seconds")), "waited 0.3s")
      yield* Fiber.join(closing).pipe(Effect.timeout("5 seconds"))
      for (const stream of streams) yield* Fiber.join(stream).pipe(Effect.timeout("5 seconds"))
      assert.deepStrictEqual(yield* served.sessions, [])
      assert.strictEqual(yield* counted.watching, 0)
      const refused = yield* Effect.exit(
        Effect.tryPromise(() => fetch(served.url, { method: "POST", headers: headers(first), body: "{}" }))
      )
      assert.isTrue(Exit.isFailure(refused))
      yield* Effect.promise(() => client.close())
    }))

  it.live("a call its client cancelled is not waited for: shutdown drains only requests that will be answered", () =>
    Effect.gen(function*() {
      const counted = yield* countedFace
      const scope = yield* Scope.make()
      const served = yield* McpHttp.serveFace(counted.face, { port: 0, drainTimeout: "10 seconds" }).pipe(
        Scope.provide(scope)
      )
      const client = new Client({ name: "sdk", version: "1.0.0" })
      yield* Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(served.url))))
      const controller = new AbortController()
      // The SDK client keeps reading the call's POST stream after cancelling; nothing will end it.
      const cancelled = client.callTool({ name: "slow", arguments: {} }, undefined, { signal: controller.signal }).then(
        () => "answered",
        () => "cancelled"
      )
      assert.strictEqual(yield* eventually(Ref.get(counted.running), (n) => n === 1), 1)
      controller.abort()
      assert.strictEqual(yield* Effect.promise(() => cancelled), "cancelled")
      assert.strictEqual(yield* eventually(Ref.get(counted.running), (n) => n === 0), 0)
      yield* Scope.close(scope, Exit.void).pipe(
        Effect.timeoutOrElse({
          duration: "3 seconds",
          orElse: () => Effect.die("shutdown waited for a cancelled call")
        })
      )
      assert.deepStrictEqual(yield* served.sessions, [])
      yield* Effect.promise(() => client.close())
    }))

  it.live(
    "npm start serves the board over HTTP, prints its URL and the host line, and Ctrl-C closes every session and exits 0",
    () =>
      Effect.gen(function*() {
        const { child, output, printed } = yield* spawnExample("examples/main.ts")
        const exited = Effect.callback<number | null>((resume) => {
          if (child.exitCode !== null)
            return resume(Effect.succeed(child.exitCode))
          child.once("exit", (code) => resume(Effect.succeed(code)))
        })
        const url = yield* printed(/claude mcp add --transport http board (\S+)/)
        assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/)

        const client = new Client({ name: "npm-start", version: "1.0.0" })
        yield* Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(url))))
        const { tools } = yield* Effect.promise(() => client.listTools())
        assert.include(tools.map((t) => t.name), "tasks_add")

        child.kill("SIGINT")
        assert.strictEqual(yield* exited.pipe(Effect.timeout("15 seconds")), 0)
        assert.include(yield* output, "closed 1 session(s)")
        yield* Effect.promise(() => client.close())
      }),
    { timeout: 60_000 }
  )
})
