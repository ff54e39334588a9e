// How the Promise API's calls settle, read as a Promise caller reads them: an abort with the signal's
// own reason (as `fetch` does), a call after or cut off by `close` with `ToolsetClosed`, and a rebuild
// closed before it reconciled with `reconciled` rejected for whoever awaits it — never an unhandled
// rejection that ends the process, and never Effect's own words for an interruption.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Queue } from "effect"
import { createMemoryMcpConnectionStore, mcpTools, rebuildMcpToolsFromStorage } from "effect-surface/client"
import type { McpConfig, McpPromise } from "effect-surface/client"
import * as Path from "node:path"
import { serveFace } from "./face.ts"
import { memoryStdio, pause, tempDir } from "./servers.ts"

interface Outcome<A> {
  readonly value?: A
  readonly error?: unknown
}

/** What a Promise settles with, its value or the very thing it rejected with, caught from the start. */
const outcome = <A>(promise: Promise<A>): Promise<Outcome<A>> =>
  promise.then((value) => ({ value }), (error: unknown) => ({ error }))

/** The tag and message of what a call rejected with. */
const tagged = (error: unknown) => error as { readonly _tag?: string; readonly name?: string; readonly message: string }

const settled = <A>(promise: Promise<A>) => Effect.promise(() => outcome(promise))

/** The board face and a Promise toolset over it, closed with the scope. */
const boardToolset = Effect.gen(function*() {
  const face = yield* serveFace
  const toolset = yield* Effect.acquireRelease(
    Effect.promise(() =>
      mcpTools([{ name: "board", type: "streamable-http", url: face.url }], { allowedHosts: ["127.0.0.1"] })
    ),
    (t) => Effect.promise(() => t.close())
  )
  return { face, toolset, wait: toolset.tools["board__watch_wait"]! }
})

/** Unhandled rejections seen while `body` runs and for a moment after. */
const unhandledDuring = <A>(body: () => Promise<A>) =>
  Effect.promise(async () => {
    const seen: Array<unknown> = []
    const listener = (reason: unknown) => seen.push(reason)
    process.on("unhandledRejection", listener)
    try {
      await body()
      await new Promise((resolve) => setTimeout(resolve, 200))
    } finally {
      process.off("unhandledRejection", listener)
    }
    return seen
  })

describe("how the Promise API settles", () => {
  it.live(
    "an aborted call rejects with the signal's reason, an AbortError when none was given, and is cancelled on the server",
    () =>
      Effect.gen(function*() {
        const { face, wait } = yield* boardToolset
        const controller = new AbortController()
        const call = outcome(wait.execute({ id: "plain" }, { signal: controller.signal }))
        assert.strictEqual(yield* Queue.take(face.started), "plain")
        controller.abort()
        const { error } = yield* Effect.promise(() => call)
        assert.strictEqual(error, controller.signal.reason)
        assert.strictEqual(tagged(error).name, "AbortError")
        assert.strictEqual(yield* Queue.take(face.cancelled), "plain")
      }),
    { timeout: 60_000 }
  )

  it.live(
    "an abort with a reason rejects with that reason, and AbortSignal.timeout with its TimeoutError",
    () =>
      Effect.gen(function*() {
        const { face, wait } = yield* boardToolset
        const controller = new AbortController()
        const reason = new Error("the user went away")
        const call = outcome(wait.execute({ id: "reasoned" }, { signal: controller.signal }))
        assert.strictEqual(yield* Queue.take(face.started), "reasoned")
        controller.abort(reason)
        assert.strictEqual((yield* Effect.promise(() => call)).error, reason)
        const timeout = AbortSignal.timeout(300)
        const { error } = yield* settled(wait.execute({ id: "timed" }, { signal: timeout }))
        assert.strictEqual(error, timeout.reason)
        assert.strictEqual(tagged(error).name, "TimeoutError")
      }),
    { timeout: 60_000 }
  )

  it.live(
    "a signal aborted before the call rejects with its reason, and nothing reaches the server",
    () =>
      Effect.gen(function*() {
        const { face, wait } = yield* boardToolset
        const { error } = yield* settled(wait.execute({ id: "never" }, { signal: AbortSignal.abort("not wanted") }))
        assert.strictEqual(error, "not wanted")
        yield* pause(300)
        assert.strictEqual(yield* Queue.size(face.started), 0)
      }),
    { timeout: 60_000 }
  )

  it.live(
    "a call after close, and a call in flight when it closes, reject with ToolsetClosed naming the tool",
    () =>
      Effect.gen(function*() {
        const { face, toolset, wait } = yield* boardToolset
        const inFlight = outcome(wait.execute({ id: "cut-off" }))
        assert.strictEqual(yield* Queue.take(face.started), "cut-off")
        yield* Effect.promise(() => toolset.close())
        const cut = (yield* Effect.promise(() => inFlight)).error
        assert.strictEqual(tagged(cut)._tag, "ToolsetClosed")
        assert.include(tagged(cut).message, "board__watch_wait")
        const after = (yield* settled(wait.execute({ id: "late" }))).error
        assert.strictEqual(tagged(after)._tag, "ToolsetClosed")
        assert.deepStrictEqual(toolset.diagnostics, [], "diagnostics still read after close")
      }),
    { timeout: 60_000 }
  )

  it.live(
    "rebuildMcpToolsFromStorage closed before it reconciles leaves no unhandled rejection; reconciled rejects with ToolsetClosed",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const storage = createMemoryMcpConnectionStore()
        const memory = memoryStdio(Path.join(dir, "memory.jsonl"))
        const first = yield* Effect.promise(() => mcpTools([memory], { storage }))
        yield* Effect.promise(() => first.close())
        // The same server, now a process that never answers: its reconcile waits out the connect deadline.
        const silent: McpConfig.Stdio = { ...memory, args: ["-e", "setInterval(() => {}, 1000)"] }
        let rebuilt: McpPromise.Toolset | undefined
        const unhandled = yield* unhandledDuring(async () => {
          rebuilt = await rebuildMcpToolsFromStorage([silent], { storage }, { stdio: true })
          await rebuilt.close()
        })
        assert.deepStrictEqual(unhandled, [])
        assert.include(Object.keys(rebuilt!.tools), "memory__read_graph")
        assert.strictEqual(tagged((yield* settled(rebuilt!.reconciled)).error)._tag, "ToolsetClosed")
      }),
    { timeout: 60_000 }
  )
})
