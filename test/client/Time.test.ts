// Behaviour 8, time and cancellation: every request has a deadline (the call's, else the server's,
// else the toolset's, else 60 s), the handshake has its own; a deadline passing or the caller
// interrupting (a fiber interrupt, the Promise API's AbortSignal) sends `notifications/cancelled`
// to the server — seen arriving at the server's door, and interrupting our own face's handler — and
// settles at once, without waiting for an answer.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Queue } from "effect"
import { TestClock } from "effect/testing"
import { mcpTools, McpToolset } from "effect-surface/client"
import { fileURLToPath } from "node:url"
import { serveFace } from "./face.ts"
import { eventually, everythingHttp, pause, recordingProxy } from "./servers.ts"

// server-everything's long operation: it sleeps the whole duration whatever it is told meanwhile.
const LONG = "docs__trigger-long-running-operation"
const longArgs = { duration: 600, steps: 1 }

const behindProxy = Effect.gen(function*() {
  const upstream = yield* everythingHttp("streamableHttp")
  const proxy = yield* recordingProxy(`http://127.0.0.1:${upstream.port}`)
  return { proxy, url: `${proxy.origin}/mcp` }
})

const idOf = (body: string): unknown => (JSON.parse(body) as { readonly id?: unknown }).id
const cancelledIds = (proxy: { readonly bodies: (method: string) => ReadonlyArray<{ readonly body: string }> }) =>
  proxy.bodies("notifications/cancelled").map((r) =>
    (JSON.parse(r.body) as { readonly params: { readonly requestId: unknown } }).params.requestId
  )

/** Advance the test clock a second at a time (real I/O in between) until `fiber` is done. */
const driveUntilDone = <A, E>(fiber: Fiber.Fiber<A, E>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 120 && fiber.pollUnsafe() === undefined; i++) {
      yield* TestClock.adjust("1 second")
      yield* pause(20)
    }
    return yield* Fiber.await(fiber)
  })

describe("deadlines", () => {
  it.effect(
    "a call with no answer fails with ToolTimeout at the default 60 s, and the server is sent notifications/cancelled for it",
    () =>
      Effect.gen(function*() {
        const { proxy, url } = yield* behindProxy
        const toolset = yield* McpToolset.make([{ name: "docs", type: "streamable-http", url }], {
          allowedHosts: ["127.0.0.1"]
        })
        const fiber = yield* Effect.forkChild(Effect.flip(toolset.call(LONG, longArgs)))
        yield* eventually(() => proxy.bodies("tools/call").length === 1, "the call reached the server")
        yield* TestClock.adjust("59 seconds")
        assert.isUndefined(fiber.pollUnsafe())
        yield* TestClock.adjust("1 second")
        const failure = yield* Fiber.join(fiber)
        assert.strictEqual(failure._tag, "ToolTimeout")
        assert.include(failure.message, "no answer within 60000 ms")
        const [call] = proxy.bodies("tools/call")
        yield* eventually(
          () => cancelledIds(proxy).includes(idOf(call!.body)),
          "the server was told the call was cancelled"
        )
      }),
    { timeout: 60_000 }
  )

  it.effect(
    "a call's own deadline wins over its server's, and a server's over the toolset's",
    () =>
      Effect.gen(function*() {
        const { proxy, url } = yield* behindProxy
        const toolset = yield* McpToolset.make([{ name: "docs", type: "streamable-http", url, timeoutMs: 5_000 }], {
          allowedHosts: ["127.0.0.1"],
          timeoutMs: 20_000
        })
        const own = yield* Effect.forkChild(Effect.flip(toolset.call(LONG, longArgs, { timeoutMs: 1_000 })))
        const server = yield* Effect.forkChild(Effect.flip(toolset.call(LONG, longArgs)))
        yield* eventually(() => proxy.bodies("tools/call").length === 2, "both calls reached the server")
        yield* TestClock.adjust("1 second")
        const first = yield* Fiber.join(own)
        assert.strictEqual(first._tag === "ToolTimeout" ? first.timeoutMs : 0, 1_000)
        assert.isUndefined(server.pollUnsafe())
        yield* TestClock.adjust("4 seconds")
        const second = yield* Fiber.join(server)
        assert.strictEqual(second._tag === "ToolTimeout" ? second.timeoutMs : 0, 5_000)
      }),
    { timeout: 60_000 }
  )

  it.effect(
    "the handshake has its own deadline: a server that never answers initialize is given connectTimeoutMs, not timeoutMs",
    () =>
      Effect.gen(function*() {
        const hang = {
          name: "mute",
          type: "stdio" as const,
          command: process.execPath,
          args: [fileURLToPath(new URL("./fixtures/faulty-server.ts", import.meta.url)), "hang"]
        }
        const making = yield* Effect.forkChild(McpToolset.make([hang], { timeoutMs: 1_000, connectTimeoutMs: 10_000 }))
        yield* pause(200)
        yield* TestClock.adjust("2 seconds")
        assert.isUndefined(making.pollUnsafe(), "a request deadline does not bound the handshake")
        const exit = yield* driveUntilDone(making)
        assert.isTrue(Exit.isSuccess(exit))
        if (Exit.isSuccess(exit)) {
          const [diagnostic] = yield* exit.value.diagnostics
          assert.strictEqual(diagnostic?.kind, "server-unavailable")
          assert.include(diagnostic?.message ?? "", "no answer within 10s")
        }
      }),
    { timeout: 60_000 }
  )
})

describe("cancellation", () => {
  it.live(
    "interrupting a call settles it at once and sends notifications/cancelled, though the server is still working",
    () =>
      Effect.gen(function*() {
        const { proxy, url } = yield* behindProxy
        const toolset = yield* McpToolset.make([{ name: "docs", type: "streamable-http", url }], {
          allowedHosts: ["127.0.0.1"]
        })
        const fiber = yield* Effect.forkChild(toolset.call(LONG, longArgs))
        yield* eventually(() => proxy.bodies("tools/call").length === 1, "the call reached the server")
        // Settles without an answer: the server's operation runs for ten more minutes.
        yield* Fiber.interrupt(fiber)
        const [call] = proxy.bodies("tools/call")
        yield* eventually(
          () => cancelledIds(proxy).includes(idOf(call!.body)),
          "the server was told the call was cancelled"
        )
      }),
    { timeout: 60_000 }
  )

  it.live(
    "the Promise API's AbortSignal cancels the call on the server and rejects at once",
    () =>
      Effect.gen(function*() {
        const { proxy, url } = yield* behindProxy
        const toolset = yield* Effect.acquireRelease(
          Effect.promise(() =>
            mcpTools([{ name: "docs", type: "streamable-http", url }], { allowedHosts: ["127.0.0.1"] })
          ),
          (t) => Effect.promise(() => t.close())
        )
        const abort = new AbortController()
        const pending = toolset.tools[LONG]!.execute(longArgs, { signal: abort.signal }).then(
          () => "answered",
          () => "rejected"
        )
        yield* eventually(() => proxy.bodies("tools/call").length === 1, "the call reached the server")
        abort.abort()
        assert.strictEqual(yield* Effect.promise(() => pending), "rejected")
        const [call] = proxy.bodies("tools/call")
        yield* eventually(
          () => cancelledIds(proxy).includes(idOf(call!.body)),
          "the server was told the call was cancelled"
        )
      }),
    { timeout: 60_000 }
  )

  it.live(
    "on this project's face, the cancelled call's handler is interrupted on the server",
    () =>
      Effect.gen(function*() {
        const face = yield* serveFace
        const toolset = yield* McpToolset.make([{ name: "board", type: "streamable-http", url: face.url }], {
          allowedHosts: ["127.0.0.1"]
        })
        const fiber = yield* Effect.forkChild(toolset.call("board__watch_wait", { id: "job-7" }))
        assert.strictEqual(yield* Queue.take(face.started), "job-7")
        yield* Fiber.interrupt(fiber)
        assert.strictEqual(yield* Queue.take(face.cancelled), "job-7")
      }),
    { timeout: 60_000 }
  )
})
