// A host (or a script piping its requests in) closes our stdin once it has written its last request,
// not once it has read the answer: the end of stdin lets the requests received finish and their
// answers be written, in either revision, and ends the session at the latest at the drain timeout,
// interrupting what still runs. Checked in a real child process given every line at once and an
// ended stdin, and in process under the test clock for the bound.
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Exit } from "effect"
import { TestClock } from "effect/testing"
import { Tools } from "effect-surface"
import { McpFace } from "effect-surface/mcp"
import * as ChildProcess from "node:child_process"
import { PassThrough } from "node:stream"
import { fileURLToPath } from "node:url"
import { serverOptions } from "../../examples/board/app.ts"
import * as StdioConnection from "../../src/mcp/StdioConnection.ts"
import { envelope } from "./modern.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))

interface Message {
  readonly id?: unknown
  readonly method?: string
  readonly result?: { readonly content?: ReadonlyArray<{ readonly text?: string }>; readonly isError?: boolean }
  readonly params?: { readonly progressToken?: unknown }
}

interface Ran {
  readonly code: number | null
  readonly messages: ReadonlyArray<Message>
  readonly stderr: string
}

/**
 * Start the drain server, write `lines` and end its stdin at once, and wait (bounded: a server that
 * outlives its stdin fails here) for it to exit on its own.
 */
const run = (
  lines: ReadonlyArray<unknown>,
  env: Record<string, string> = {},
  script = "test/mcp/drain-stdio-server.ts"
) =>
  Effect.acquireUseRelease(
    Effect.sync(() =>
      ChildProcess.spawn(process.execPath, ["--conditions=effect-surface-source", script], {
        cwd: root,
        stdio: ["pipe", "pipe", "pipe"],
        env: { ...process.env, NO_COLOR: "1", ...env }
      })
    ),
    (child) =>
      Effect.gen(function*() {
        const exited = yield* Deferred.make<number | null>()
        child.once("exit", (code) => Deferred.doneUnsafe(exited, Exit.succeed(code)))
        let stdout = ""
        let stderr = ""
        child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
        child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
        child.stdin.end(lines.map((line) => `${JSON.stringify(line)}\n`).join(""))
        const code = yield* Deferred.await(exited).pipe(Effect.timeout("30 seconds"), Effect.option)
        assert.isTrue(code._tag === "Some", `the server outlived its stdin; stderr:\n${stderr}`)
        const messages = stdout.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Message)
        return { code: code._tag === "Some" ? code.value : null, messages, stderr } satisfies Ran
      }),
    (child) =>
      Effect.sync(() => child.exitCode === null && child.signalCode === null ? void child.kill("SIGKILL") : undefined)
  )

const answerTo = (ran: Ran, id: number) =>
  ran.messages.find((message) => message.id === id && message.method === undefined)
const textOf = (message: Message | undefined) => message?.result?.content?.[0]?.text ?? "(no answer)"

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "drain", version: "1.0.0" } }
}
const initialized = { jsonrpc: "2.0", method: "notifications/initialized" }
const call = (id: number, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) }
})

describe("the end of stdin", () => {
  it.live(
    "a 2025 session given its requests and an ended stdin answers every one, progress included, then exits on its own",
    () =>
      Effect.gen(function*() {
        const ran = yield* run([
          initialize,
          initialized,
          call(2, "tasks_add", { title: "piped" }),
          call(3, "slow", {}, { progressToken: "p3" })
        ])
        assert.strictEqual(ran.code, 0)
        assert.isDefined(answerTo(ran, 1)?.result)
        assert.include(textOf(answerTo(ran, 2)), "t1")
        assert.strictEqual(textOf(answerTo(ran, 3)), "slow and done")
        const progress = ran.messages.find((message) => message.method === "notifications/progress")
        assert.strictEqual(progress?.params?.progressToken, "p3")
        // The progress of a call goes out before its answer.
        assert.isBelow(ran.messages.indexOf(progress!), ran.messages.indexOf(answerTo(ran, 3)!))
      }),
    { timeout: 60_000 }
  )

  it.live(
    "2026 requests given with an ended stdin are each answered before the process exits on its own",
    () =>
      Effect.gen(function*() {
        const ran = yield* run([
          call(1, "slow", {}, envelope()),
          call(2, "tasks_add", { title: "piped" }, envelope())
        ])
        assert.strictEqual(ran.code, 0)
        assert.strictEqual(textOf(answerTo(ran, 1)), "slow and done")
        assert.include(textOf(answerTo(ran, 2)), "t1")
      }),
    { timeout: 60_000 }
  )

  it.live(
    "the Promise API's stdio door, given its requests and an ended stdin, answers them before it ends",
    () =>
      Effect.gen(function*() {
        const ran = yield* run(
          [initialize, initialized, call(2, "tasks_add", { title: "piped" })],
          {},
          "test/mcp/promise-stdio-server.ts"
        )
        assert.strictEqual(ran.code, 0)
        assert.include(textOf(answerTo(ran, 2)), "t1")
        assert.include(ran.stderr, "connection disposed")
      }),
    { timeout: 60_000 }
  )

  it.live(
    "a call still running at the drain timeout is interrupted unanswered, the others answered, and the process exits",
    () =>
      Effect.gen(function*() {
        const ran = yield* run([
          initialize,
          initialized,
          call(2, "stall", {}),
          call(3, "tasks_add", { title: "beside a stall" })
        ], { DRAIN_TIMEOUT: "500 millis" })
        assert.strictEqual(ran.code, 0)
        assert.include(textOf(answerTo(ran, 3)), "t1")
        assert.isUndefined(answerTo(ran, 2))
        assert.include(ran.stderr, "stall interrupted")
        assert.include(ran.stderr, "the requests still running are interrupted")
      }),
    { timeout: 60_000 }
  )

  it.effect("the session outlasts the end of its input until the drain timeout, then ends with the stalled call interrupted", () =>
    Effect.gen(function*() {
      const { ended, input, interrupted, answered, started } = yield* inProcess
      input.end(linesOf([initialize, initialized, call(2, "stall", {})]))
      // Real streams and the SDK carry the lines: wait for the call to run (or the session to end).
      yield* Deferred.await(started).pipe(Effect.raceFirst(Deferred.await(ended)))

      // The clock moves in steps, with room between them for the streams and the SDK to move.
      const step = TestClock.withLive(Effect.sleep("5 millis")).pipe(Effect.andThen(TestClock.adjust("1 second")))
      for (let waited = 0; waited < 29; waited++) yield* step
      assert.isFalse(yield* Deferred.isDone(ended), "the session ended before the drain timeout")
      assert.isFalse(yield* Deferred.isDone(interrupted))
      for (let steps = 0; steps < 200 && !(yield* Deferred.isDone(ended)); steps++) yield* step
      assert.isTrue(yield* Deferred.isDone(ended), "the session outlived the drain timeout")
      assert.isTrue(yield* Deferred.isDone(interrupted))
      // Only `initialize` was answered: the stalled call never was.
      assert.deepStrictEqual(answered().map((message) => message.id), [1])
    }))

  it.effect("a call its client cancelled is not waited for: the session ends once the input has", () =>
    Effect.gen(function*() {
      const { ended, input, interrupted, started } = yield* inProcess
      input.write(linesOf([initialize, initialized, call(2, "stall", {})]))
      yield* Deferred.await(started)
      input.end(linesOf([{ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } }]))
      // No clock moves: only the cancellation and the end of input can end the session.
      yield* Deferred.await(ended).pipe(Effect.timeout("10 seconds"), TestClock.withLive, Effect.orDie)
      assert.isTrue(yield* Deferred.isDone(interrupted))
    }))

  it.effect("a 2026 listen stream is not waited for: it ends with its response once the other requests are answered", () =>
    Effect.gen(function*() {
      const { answered, ended, input } = yield* inProcess
      input.end(linesOf([
        {
          jsonrpc: "2.0",
          id: 1,
          method: "subscriptions/listen",
          params: { notifications: { toolsListChanged: true }, _meta: envelope() }
        },
        call(2, "tasks_add", { title: "beside a listener" }, envelope())
      ]))
      yield* Deferred.await(ended).pipe(Effect.timeout("10 seconds"), TestClock.withLive, Effect.orDie)
      assert.deepStrictEqual(idsOf(answered()), [1, 2])
    }))

  it.live("lines written in one go, before the first is answered, are each served in either revision", () =>
    Effect.gen(function*() {
      const legacy = yield* inProcess
      legacy.input.write(linesOf([initialize, initialized, call(2, "tasks_add", { title: "one" })]))
      const modern = yield* inProcess
      modern.input.write(
        linesOf([
          call(1, "tasks_add", { title: "one" }, envelope()),
          call(2, "tasks_add", { title: "two" }, envelope())
        ])
      )
      const answers = (served: typeof legacy, ids: ReadonlyArray<number>) =>
        Effect.gen(function*() {
          for (let waited = 0; waited < 400 && served.answered().length < ids.length; waited++) {
            yield* Effect.sleep("25 millis")
          }
          return idsOf(served.answered())
        })
      assert.deepStrictEqual(yield* answers(legacy, [1, 2]), [1, 2])
      assert.deepStrictEqual(yield* answers(modern, [1, 2]), [1, 2])
    }))
})

// In order of id: requests run side by side, and their answers leave as they finish.
const idsOf = (messages: ReadonlyArray<Message>) => messages.map((message) => Number(message.id)).sort((a, b) => a - b)

const linesOf = (lines: ReadonlyArray<unknown>) => lines.map((line) => `${JSON.stringify(line)}\n`).join("")

/**
 * The board, with a tool that never answers, served over stdio streams in this process (drain
 * timeout 30 seconds): the lines it is given, what it answered, and when its session ended.
 */
const inProcess = Effect.gen(function*() {
  const started = yield* Deferred.make<void>()
  const interrupted = yield* Deferred.make<void>()
  const options = yield* serverOptions
  const stall = Tools.make({
    description: "Never answers.",
    mutates: false,
    handler: () =>
      Deferred.succeed(started, undefined).pipe(
        Effect.andThen(Effect.never),
        Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
      )
  })
  const face = yield* McpFace.make({ ...options, tools: { ...options.tools, stall } })
  const input = new PassThrough()
  const output = new PassThrough()
  let written = ""
  output.on("data", (chunk: Buffer) => (written += chunk.toString()))
  const connection = yield* StdioConnection.connect(face, undefined, Duration.seconds(30), input, output)
  const ended = yield* Deferred.make<void>()
  yield* connection.closed.pipe(Effect.andThen(Deferred.succeed(ended, undefined)), Effect.forkChild)
  const answered = () =>
    written.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Message).filter((message) =>
      message.method === undefined
    )
  return { input, answered, ended, started, interrupted }
})
