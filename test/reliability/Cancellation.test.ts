// Cancellation storms: waves of tool calls, each cancelled by the SDK client (an AbortSignal aborted
// once the handler has started), leave nothing running.
//
// What is measured, after every wave and at the end:
// - handler fibers: the `hold` tool's handler counts itself in `running` inside `acquireUseRelease`
//   (up when it starts, down when it ends however it ends — here, by interruption), so `running`
//   back at 0 means every cancelled handler fiber was interrupted and finished;
// - the SDK server's own table of requests in flight (`_requestHandlerAbortControllers`, private to
//   the SDK's Protocol; an entry is dropped only once the handler's promise settles) back at 0;
// - subscriptions: `face.watching` stays at the subscriptions the session made before the storm,
//   and is 0 once the session has ended;
// - over HTTP, the server's shutdown is not held up by requests it still thinks are awaited.
import { assert, describe, it } from "@effect/vitest"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { Effect, Exit, Fiber, Ref, Result, Scope } from "effect"
import { Tools } from "effect-surface"
import { McpFace, McpHttp } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import { connectTo } from "../mcp/harness.ts"
import { callTool, connectHttp, postHeaders } from "./http.ts"
import { eventually, quiet } from "./resources.ts"
import { sized } from "./sizes.ts"

const total = sized(200, 1_000)
const wave = sized(50, 100)

/** The board's face plus `hold`, a tool that runs until interrupted, counted while it runs. */
const holdingFace = Effect.gen(function*() {
  const options = yield* serverOptions
  const running = yield* Ref.make(0)
  const started = yield* Ref.make(0)
  const hold = Tools.make({
    description: "Run until cancelled.",
    mutates: false,
    handler: () =>
      Effect.acquireUseRelease(
        Ref.update(running, (n) => n + 1).pipe(Effect.andThen(Ref.update(started, (n) => n + 1))),
        () => Effect.as(Effect.never, "never answered"),
        () => Ref.update(running, (n) => n - 1)
      )
  })
  const face = yield* McpFace.make({ ...options, coalesce: "1 millis", tools: { ...options.tools, hold } })
  return { face, running, started }
})

/** Requests the SDK server still holds as in flight (a private table of the SDK's Protocol). */
const inFlightOf = (server: Server): number =>
  (server as unknown as { readonly _requestHandlerAbortControllers: Map<unknown, unknown> })
    ._requestHandlerAbortControllers.size

/** Responses the SDK client still awaits (likewise private). */
const awaitedBy = (client: Client): number =>
  (client as unknown as { readonly _responseHandlers: Map<unknown, unknown> })._responseHandlers.size

/**
 * Run the storm on one client: waves of `hold` calls, each wave aborted once all of it has started.
 * Answers, per wave, what was still running afterwards.
 */
const storm = (
  client: Client,
  running: Ref.Ref<number>,
  checkAfterWave: Effect.Effect<void>
) =>
  Effect.gen(function*() {
    let answered = 0
    let rejected = 0
    for (let done = 0; done < total; done += wave) {
      const size = Math.min(wave, total - done)
      const controllers = Array.from({ length: size }, () => new AbortController())
      const calls = yield* Effect.forEach(controllers, (controller) =>
        Effect.forkChild(callTool(client, "hold", {}, { signal: controller.signal, timeout: 60_000 })))
      // Every handler of the wave has started: the cancellations land mid-flight.
      assert.strictEqual(
        yield* eventually(Ref.get(running), (n) =>
          n === size, 500),
        size,
        "the wave never fully started"
      )
      // Aborted in a spread: some at once, the rest over a few milliseconds.
      for (const [i, controller] of controllers.entries()) {
        if (i % 5 === 4)
          yield* Effect.sleep("1 millis")
        controller.abort()
      }
      for (const call of calls) {
        const outcome = yield* Fiber.join(call)
        if (Result.isSuccess(outcome)) answered++
        else rejected++
      }
      assert.strictEqual(
        yield* eventually(Ref.get(running), (n) => n === 0, 500),
        0,
        `handlers still running after wave ${done / wave}`
      )
      yield* checkAfterWave
    }
    return { answered, rejected }
  })

describe("cancellation storms", () => {
  it.live(
    `${total} calls cancelled mid-flight over an in-memory session leave no handler fiber, no SDK request and no extra subscription behind`,
    () =>
      Effect.gen(function*() {
        const { face, running, started } = yield* holdingFace
        const scope = yield* Scope.make()
        const c = yield* connectTo(face).pipe(Scope.provide(scope))
        yield* Effect.promise(() => c.client.subscribeResource({ uri: "surface://cells/focus" }))
        yield* Effect.promise(() => c.client.subscribeResource({ uri: "surface://cells/stopwatch/laps" }))
        assert.strictEqual(yield* face.watching, 2)

        const { answered, rejected } = yield* storm(
          c.client,
          running,
          Effect.gen(function*() {
            assert.strictEqual(
              yield* eventually(Effect.sync(() => inFlightOf(c.session.server)), (n) => n === 0, 300),
              0,
              "the SDK server still holds requests"
            )
            assert.strictEqual(awaitedBy(c.client), 0)
            assert.strictEqual(yield* face.watching, 2)
          })
        )
        assert.strictEqual(yield* Ref.get(started), total)
        assert.strictEqual(answered, 0, "a cancelled call was answered")
        assert.strictEqual(rejected, total)

        // The session serves on, and once it ends nothing of it is followed any more.
        const after = yield* callTool(c.client, "tasks_add", { title: "after the storm" })
        assert.isTrue(Result.isSuccess(after) && after.success.isError === undefined)
        yield* Scope.close(scope, Exit.void)
        assert.strictEqual(yield* eventually(face.watching, (n) => n === 0), 0)
        assert.strictEqual(yield* Ref.get(running), 0)
      }).pipe(Effect.provide(quiet)),
    { timeout: sized(30_000, 120_000) }
  )

  it.live(
    `${total} calls cancelled mid-flight over Streamable HTTP leave no handler fiber or subscription behind, and the server then shuts down without waiting on them`,
    () =>
      Effect.gen(function*() {
        const { face, running, started } = yield* holdingFace
        const serving = yield* Scope.make()
        const served = yield* McpHttp.serveFace(face, { port: 0, drainTimeout: "1 hour" }).pipe(
          Scope.provide(serving)
        )
        const clientScope = yield* Scope.make()
        const c = yield* connectHttp(served.url, "storm").pipe(Scope.provide(clientScope))
        yield* Effect.promise(() => c.client.subscribeResource({ uri: "surface://cells/focus" }))
        assert.strictEqual(yield* face.watching, 1)

        const { answered, rejected } = yield* storm(
          c.client,
          running,
          Effect.gen(function*() {
            assert.strictEqual(awaitedBy(c.client), 0)
            assert.strictEqual(yield* face.watching, 1)
          })
        )
        assert.strictEqual(yield* Ref.get(started), total)
        assert.strictEqual(answered, 0, "a cancelled call was answered")
        assert.strictEqual(rejected, total)
        const after = yield* callTool(c.client, "tasks_add", { title: "after the storm" })
        assert.isTrue(Result.isSuccess(after) && after.success.isError === undefined)
        assert.deepStrictEqual(yield* served.sessions, [c.sessionId])

        // Shutdown waits (up to drainTimeout, an hour here) for requests it believes are still
        // awaited: none are, so it is over well within the test's own timeout.
        yield* Scope.close(serving, Exit.void)
        assert.strictEqual(yield* eventually(face.watching, (n) => n === 0), 0)
        assert.strictEqual(yield* Ref.get(running), 0)
        yield* Scope.close(clientScope, Exit.void)
      }).pipe(Effect.provide(quiet)),
    { timeout: sized(30_000, 180_000) }
  )

  // DEFECT (see the report): over Streamable HTTP a request and its cancellation travel as two POSTs
  // and may be processed in either order (with the SDK client, 200 calls aborted ~50 ms after sending
  // left 189 handlers running). The SDK ignores a cancellation naming a request it has not seen yet
  // (the spec allows that), so the request then runs to its end: for a long tool, a handler fiber
  // (and any connection lease it holds) kept until the session ends, though the host gave up on it
  // and the server was told. Http.ts already reads every cancellation (for its drain accounting); it
  // could remember the ids it saw cancelled. The order is made deterministic here.
  it.live(
    "a call whose cancellation reached the server before the call itself is not left running, and does not hold up shutdown",
    () =>
      Effect.gen(function*() {
        const { face, running, started } = yield* holdingFace
        const serving = yield* Scope.make()
        const served = yield* McpHttp.serveFace(face, { port: 0, drainTimeout: "1 hour" }).pipe(
          Scope.provide(serving)
        )
        const post = (body: unknown, session?: string, signal?: AbortSignal) =>
          Effect.promise(() =>
            fetch(served.url, {
              method: "POST",
              headers: postHeaders(session),
              body: JSON.stringify(body),
              ...(signal === undefined ? {} : { signal })
            })
          )
        const init = yield* post({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1.0.0" } }
        })
        const session = init.headers.get("mcp-session-id") ?? ""
        yield* Effect.promise(() => init.text())
        yield* Effect.flatMap(
          post({ jsonrpc: "2.0", method: "notifications/initialized" }, session),
          (r) => Effect.promise(() => r.text())
        )

        const cancelled = yield* post({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: "early", reason: "the user pressed Esc" }
        }, session)
        assert.strictEqual(cancelled.status, 202)
        const reading = new AbortController()
        const call = yield* post(
          { jsonrpc: "2.0", id: "early", method: "tools/call", params: { name: "hold", arguments: {} } },
          session,
          reading.signal
        )
        assert.strictEqual(call.status, 200)
        yield* Effect.sleep("300 millis")
        reading.abort()

        const stillRunning = yield* eventually(Ref.get(running), (n) => n === 0, 100)
        // With an hour to drain, a shutdown that waited on the cancelled call would outlast the test.
        yield* Scope.close(serving, Exit.void)
        assert.strictEqual(
          stillRunning,
          0,
          `the cancelled call was started ${yield* Ref.get(started)} time(s) and was still running a second later`
        )
      }).pipe(Effect.provide(quiet)),
    { timeout: 30_000 }
  )
})
