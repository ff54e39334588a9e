// MCP tasks from the toolset's side: a 2026 server that answers a long call with a task is polled
// for the call's result under the call's deadline, its questions answered by the toolset's handlers,
// its status messages told as the caller's progress, and a call given up on cancels its task.
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Exit, Fiber, Queue, References, Schema } from "effect"
import { TestClock } from "effect/testing"
import { Ask, Caller, Progress, Tools } from "effect-surface"
import { McpCallResult, McpToolset } from "effect-surface/client"
import { McpHttp } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import type * as Requests from "../../src/client/internal/v2026/requests.ts"
import * as Tasks from "../../src/client/internal/v2026/tasks.ts"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { runBin } from "../bin.ts"
import { recordingProxy } from "./servers.ts"

const say = (text: string) => Tools.content([Tools.text(text)])

/** Our own server over HTTP with task tools, each call a task once it has run 100 ms. */
const taskFace = Effect.gen(function*() {
  const started = yield* Queue.unbounded<string>()
  const cancelled = yield* Queue.unbounded<string>()
  const options = yield* serverOptions
  const served = yield* McpHttp.serve({
    ...options,
    tasks: { after: "100 millis", pollInterval: "50 millis" },
    tools: {
      ...options.tools,
      export_all: Tools.make({
        description: "Export everything, telling how far it got.",
        input: Schema.Struct({ format: Schema.optionalKey(Schema.String) }),
        mutates: false,
        task: "optional",
        handler: () =>
          Effect.gen(function*() {
            yield* Effect.sleep("200 millis")
            yield* Progress.report({ progress: 1, total: 2, message: "exported the tasks" })
            yield* Effect.sleep("300 millis")
            yield* Progress.report({ progress: 2, total: 2, message: "exported the board" })
            yield* Effect.sleep("300 millis")
            return "exported"
          }),
        render: say
      }),
      wipe: Tools.make({
        description: "Wipe the board, once you say so.",
        mutates: true,
        task: "required",
        handler: () =>
          Caller.beginTask.pipe(
            Effect.andThen(Ask.elicit("Wipe the board?", Schema.Struct({ sure: Schema.Boolean }), { key: "sure" })),
            Effect.map((answer) => answer._tag === "Accept" && answer.content.sure ? "wiped" : "kept"),
            Effect.orDie
          ),
        render: say
      }),
      crash: Tools.make({
        description: "Fails once it has gone on as a task.",
        mutates: false,
        task: "required",
        handler: () => Caller.beginTask.pipe(Effect.andThen(Effect.fail(new Error("the export crashed"))))
      }),
      wait_forever: Tools.make({
        description: "Runs until cancelled.",
        input: Schema.Struct({ id: Schema.String }),
        mutates: false,
        task: "required",
        handler: ({ id }) =>
          Caller.beginTask.pipe(
            Effect.andThen(Queue.offer(started, id)),
            Effect.andThen(Effect.never),
            Effect.onInterrupt(() => Queue.offer(cancelled, id))
          )
      })
    },
    http: { port: 0 }
  }).pipe(Effect.provideService(References.MinimumLogLevel, "Warn"))
  return { served, started, cancelled }
})

const toolsetOn = (url: string, options: { readonly timeoutMs?: number } = {}) =>
  McpToolset.make([{ name: "board", type: "streamable-http", url, ...options }], {
    allowedHosts: ["127.0.0.1"],
    elicit: () => ({ action: "accept", content: { sure: true } })
  })

/** Progress that keeps what it is told. */
const recording = () => {
  const told: Array<Progress.Update> = []
  const progress: Progress.Progress["Service"] = {
    token: undefined,
    report: (update) => Effect.sync(() => void told.push(update))
  }
  return { told, progress }
}

describe("MCP tasks, from the toolset", () => {
  it.live("a call answered with a task is polled to its result, each new status message told as the caller's progress", () =>
    Effect.gen(function*() {
      const { served } = yield* taskFace
      const proxy = yield* recordingProxy(new URL(served.url).origin)
      const toolset = yield* toolsetOn(`${proxy.origin}${new URL(served.url).pathname}`)
      const { progress, told } = recording()
      const result = yield* toolset.call("board__export_all", {}).pipe(
        Effect.provideService(Progress.Progress, progress)
      )
      assert.strictEqual(McpCallResult.textOf(result), "exported")
      assert.deepStrictEqual(told.map((update) => update.message), ["exported the tasks", "exported the board"])
      const call = proxy.bodies("tools/call")[0]
      assert.deepStrictEqual(
        JSON.parse(call?.body ?? "{}").params._meta["io.modelcontextprotocol/clientCapabilities"].extensions,
        { "io.modelcontextprotocol/tasks": {} }
      )
      assert.isAbove(proxy.bodies("tasks/get").length, 2, "polled while it ran")
      assert.lengthOf(proxy.bodies("tasks/cancel"), 0)
    }))

  it.live("a task's question is answered by the toolset's handler through tasks/update, and the task goes on", () =>
    Effect.gen(function*() {
      const { served } = yield* taskFace
      const proxy = yield* recordingProxy(new URL(served.url).origin)
      const toolset = yield* toolsetOn(`${proxy.origin}${new URL(served.url).pathname}`)
      assert.strictEqual(McpCallResult.textOf(yield* toolset.call("board__wipe", {})), "wiped")
      const updates = proxy.bodies("tasks/update")
      assert.lengthOf(updates, 1)
      assert.deepStrictEqual(JSON.parse(updates[0]?.body ?? "{}").params.inputResponses, {
        sure: { action: "accept", content: { sure: true } }
      })
    }))

  it.live("a task that ends in the tool's own error fails the call with that error, as a call answered in full would", () =>
    Effect.gen(function*() {
      const { served } = yield* taskFace
      const toolset = yield* toolsetOn(served.url)
      const failed = yield* Effect.flip(toolset.call("board__crash", {}))
      assert.include(failed.message, "the export crashed")
    }))

  it.live("a call whose deadline passes while its task runs fails as a timeout, and the task is cancelled: its handler is interrupted", () =>
    Effect.gen(function*() {
      const { cancelled, served, started } = yield* taskFace
      const toolset = yield* toolsetOn(served.url, { timeoutMs: 1_000 })
      const failed = yield* Effect.flip(toolset.call("board__wait_forever", { id: "late" }))
      assert.strictEqual(failed._tag, "ToolTimeout")
      assert.strictEqual(yield* Queue.take(started), "late")
      assert.strictEqual(yield* Queue.take(cancelled).pipe(Effect.timeout("5 seconds")), "late")
    }))

  it.live("interrupting a call that is waiting on its task cancels the task", () =>
    Effect.gen(function*() {
      const { cancelled, served, started } = yield* taskFace
      const toolset = yield* toolsetOn(served.url)
      const call = yield* Effect.forkChild(toolset.call("board__wait_forever", { id: "dropped" }))
      assert.strictEqual(yield* Queue.take(started), "dropped")
      yield* Effect.sleep("300 millis")
      yield* Fiber.interrupt(call)
      assert.isTrue(Exit.hasInterrupts(yield* Fiber.await(call)))
      assert.strictEqual(yield* Queue.take(cancelled).pipe(Effect.timeout("5 seconds")), "dropped")
    }))
})

describe("MCP tasks, from the command line", () => {
  it.live(
    "a guard's shell call of an upstream task tool waits for its result, showing each status on stderr",
    () =>
      Effect.gen(function*() {
        const { served } = yield* taskFace
        const dir = yield* Effect.acquireRelease(
          Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "guard-tasks-"))),
          (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
        )
        const guardFile = Path.join(dir, "guard.json")
        Fs.writeFileSync(
          guardFile,
          JSON.stringify({
            upstream: { name: "board", type: "streamable-http", url: served.url },
            grants: { export_all: true },
            lock: "guard.lock.json",
            audit: "audit.jsonl"
          })
        )
        const locked = yield* runBin(["guard", "lock", guardFile])
        assert.strictEqual(locked.status, 0, locked.stderr)
        const ran = yield* runBin(["guard", "call", guardFile, "export-all", "--format", "json"])
        assert.strictEqual(ran.status, 0, ran.stderr)
        assert.include(ran.stdout, "exported")
        assert.include(ran.stderr, "… 1 exported the tasks\n… 2 exported the board\n")
      }),
    60_000
  )
})

describe("following a task, under the test clock", () => {
  it.effect("polls as often as the server advises, within bounds, and answers with the completed task's result", () =>
    Effect.gen(function*() {
      const polled: Array<number> = []
      const views = [
        { status: "working", pollIntervalMs: 60_000 },
        { status: "working", pollIntervalMs: 1 },
        { status: "completed", result: { content: [{ type: "text", text: "done" }], resultType: "complete" } }
      ]
      const send: Requests.Send = (method, params) =>
        Effect.gen(function*() {
          assert.strictEqual(method, "tasks/get")
          assert.strictEqual(params["taskId"], "t1")
          polled.push(yield* Clock.currentTimeMillis)
          return { taskId: "t1", ...views.shift() }
        })
      const follower = yield* Effect.forkChild(
        Tasks.follow(send, () => Effect.die("no questions"))({ taskId: "t1", status: "working", pollIntervalMs: 2_000 })
      )
      yield* TestClock.adjust("2 seconds")
      yield* TestClock.adjust("5 seconds")
      yield* TestClock.adjust("50 millis")
      const result = yield* Fiber.join(follower)
      assert.deepStrictEqual(polled, [2_000, 7_000, 7_050])
      assert.deepStrictEqual(result["content"], [{ type: "text", text: "done" }])
    }))

  it.effect("a task that is not one (a malformed answer) is refused, naming what was wrong", () =>
    Effect.gen(function*() {
      const failed = yield* Effect.flip(
        Tasks.follow(() => Effect.die("never sent"), () => Effect.die("no questions"))({ status: "working" })
      )
      assert.include(failed.message, "taskId")
    }))
})
