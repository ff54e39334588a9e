// MCP 2026-07-28's tasks extension, in the machinery that runs it: a call that goes on as a task,
// polled, answered, cancelled and expired, every timing driven by the TestClock.
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Ref, Result, Schema, Scope } from "effect"
import type { Duration } from "effect"
import { TestClock } from "effect/testing"
import { Ask, Caller, Identity, Progress } from "effect-surface"
import type { McpMessages } from "effect-surface/mcp"
import { McpTasks } from "effect-surface/mcp"
import type * as Json from "../../src/core/Json.ts"
import * as Calls from "../../src/mcp/v2026/internal/calls.ts"
import * as Tasks from "../../src/mcp/v2026/internal/tasks.ts"
import * as RequestState from "../../src/mcp/v2026/RequestState.ts"

const envelope = (tasks: boolean): McpMessages.Envelope => ({
  protocolVersion: "2026-07-28",
  capabilities: { elicitation: true, sampling: false, roots: false, tasks, raw: {} },
  clientInfo: undefined,
  logLevel: undefined,
  progressToken: undefined
})

const round = (tasks = true) => ({ notify: () => {}, envelope: envelope(tasks) })

const text = (said: string): Json.JsonObject => ({ content: [{ type: "text", text: said }] })

/** The calls and tasks of one face, a task beginning after a call has run a second. */
const face = (options: McpTasks.Options = {}) =>
  Effect.gen(function*() {
    const tasks = yield* Tasks.make({ settings: McpTasks.resolve({ after: "1 second", ...options }), instance: "here" })
    const calls = yield* Calls.make({ codec: RequestState.make(), tasking: tasks.tasking })
    return { tasks, calls }
  })

/** Start a call and let the clock run `after` for it: its request's outcome. */
const started = (
  calls: Calls.Calls,
  job: Calls.Job,
  support: "optional" | "required" | undefined,
  options: { readonly tasks?: boolean; readonly after?: Duration.Input } = {}
) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkChild(calls.start(job, "t", {}, round(options.tasks ?? true), support))
    yield* TestClock.adjust(options.after ?? "1 second")
    return yield* Fiber.join(fiber)
  })

const taskIdOf = (outcome: Calls.Outcome): string => {
  if (outcome._tag !== "Task") return assert.fail(`expected a task, got ${JSON.stringify(outcome)}`)
  return String(outcome.task["taskId"])
}

const got = (tasks: Tasks.Table, taskId: string) =>
  Effect.map(tasks.get(taskId), (found) => Result.isSuccess(found) ? found.success : assert.fail(found.failure.message))

const slow = (seconds: number, said = "done") => Effect.as(Effect.sleep(`${seconds} seconds`), text(said))

describe("MCP 2026-07-28 tasks", () => {
  it.effect("a task-capable call still running after a while is answered with a task, which completes with the call's result", () =>
    Effect.gen(function*() {
      const { calls, tasks } = yield* face()
      const outcome = yield* started(calls, slow(10), "optional")
      const taskId = taskIdOf(outcome)
      if (outcome._tag !== "Task") return
      assert.strictEqual(outcome.task["resultType"], "task")
      assert.strictEqual(outcome.task["status"], "working")
      assert.strictEqual(outcome.task["ttlMs"], 3_600_000)
      assert.strictEqual(outcome.task["pollIntervalMs"], 500)
      for (const absent of ["result", "error", "inputRequests", "requestState"])
        assert.notProperty(outcome.task, absent)
      assert.strictEqual((yield* got(tasks, taskId))["status"], "working")
      yield* TestClock.adjust("9 seconds")
      const done = yield* got(tasks, taskId)
      assert.strictEqual(done["status"], "completed")
      assert.deepStrictEqual(done["result"], { ...text("done"), resultType: "complete" })
    }))

  it.effect("a call that answers within the while answers directly; a tool that requires a task answers with one, born completed", () =>
    Effect.gen(function*() {
      const { calls, tasks } = yield* face()
      const quick = Effect.as(Effect.sleep("100 millis"), text("quick"))
      assert.deepStrictEqual(yield* started(calls, quick, "optional"), { _tag: "Complete", result: text("quick") })
      const taskId = taskIdOf(yield* started(calls, quick, "required"))
      assert.strictEqual((yield* got(tasks, taskId))["status"], "completed")
    }))

  it.effect("a client that does not follow tasks, or a tool that never runs as one, waits for the whole call", () =>
    Effect.gen(function*() {
      const { calls } = yield* face()
      assert.strictEqual(
        (yield* started(calls, slow(10), "optional", { tasks: false, after: "10 seconds" }))._tag,
        "Complete"
      )
      assert.strictEqual((yield* started(calls, slow(10), undefined, { after: "10 seconds" }))._tag, "Complete")
    }))

  it.effect("a task outlives the request that started it: the request's fiber ending leaves the task running", () =>
    Effect.gen(function*() {
      const { calls, tasks } = yield* face()
      const scope = yield* Scope.make()
      const request = yield* Effect.forkIn(calls.start(slow(10), "t", {}, round(), "optional"), scope)
      yield* TestClock.adjust("1 second")
      const taskId = taskIdOf(yield* Fiber.join(request))
      yield* Scope.close(scope, Exit.void)
      yield* TestClock.adjust("9 seconds")
      assert.strictEqual((yield* got(tasks, taskId))["status"], "completed")
    }))

  it.effect("cancel ends the task's fiber through its finalizers and the task stays cancelled; cancelling an ended task changes nothing", () =>
    Effect.gen(function*() {
      const { calls, tasks } = yield* face()
      const finalized = yield* Deferred.make<void>()
      const job = slow(3600).pipe(Effect.onInterrupt(() => Deferred.succeed(finalized, undefined)))
      const taskId = taskIdOf(yield* started(calls, job, "optional"))
      assert.deepStrictEqual(yield* tasks.apply(taskId, { _tag: "Cancel" }), { _tag: "Ack" })
      yield* Deferred.await(finalized)
      const cancelled = yield* got(tasks, taskId)
      assert.strictEqual(cancelled["status"], "cancelled")
      assert.deepStrictEqual(yield* tasks.apply(taskId, { _tag: "Cancel" }), { _tag: "Ack" })
      assert.deepStrictEqual(yield* got(tasks, taskId), cancelled)
      const unknown = yield* tasks.apply("no-such-task", { _tag: "Cancel" })
      assert.strictEqual(unknown._tag === "Refused" ? unknown.error.code : 0, -32602)
    }))

  it.effect("a task's questions are its inputRequests; each update takes away the ones it answers before it is acknowledged", () =>
    Effect.gen(function*() {
      const { calls, tasks } = yield* face()
      const job = Caller.beginTask.pipe(
        Effect.andThen(Effect.all([
          Ask.elicit("Name?", Schema.Struct({ name: Schema.String }), { key: "name" }),
          Ask.elicit("Sure?", Schema.Struct({ sure: Schema.Boolean }), { key: "sure" })
        ], { concurrency: 2 })),
        Effect.map(([name, sure]) =>
          text(`${name._tag === "Accept" ? name.content.name : "?"} ${sure._tag === "Accept" && sure.content.sure}`)
        ),
        Effect.orDie
      )
      const taskId = taskIdOf(yield* calls.start(job, "t", {}, round(), "required"))
      yield* Effect.yieldNow
      const asking = yield* got(tasks, taskId)
      assert.strictEqual(asking["status"], "input_required")
      assert.deepStrictEqual(Object.keys(asking["inputRequests"] as object).sort(), ["name", "sure"])
      const malformed = yield* tasks.apply(taskId, { _tag: "Update", responses: { name: "Ada" } })
      assert.strictEqual(malformed._tag === "Refused" ? malformed.error.code : 0, -32602)
      const answered = yield* tasks.apply(taskId, {
        _tag: "Update",
        responses: { name: { action: "accept", content: { name: "Ada" } }, elsewhere: { ignored: true } }
      })
      assert.deepStrictEqual(answered, { _tag: "Ack" })
      const half = yield* got(tasks, taskId)
      assert.strictEqual(half["status"], "input_required")
      assert.deepStrictEqual(Object.keys(half["inputRequests"] as object), ["sure"])
      yield* tasks.apply(taskId, { _tag: "Update", responses: { sure: { action: "accept", content: { sure: true } } } })
      yield* Effect.yieldNow
      const done = yield* got(tasks, taskId)
      assert.strictEqual(done["status"], "completed")
      assert.deepStrictEqual(done["result"], { ...text("Ada true"), resultType: "complete" })
    }))

  it.effect("a handler that asks before it begins its task asks on the request; the retry with the answer is answered with the task", () =>
    Effect.gen(function*() {
      const { calls, tasks } = yield* face()
      const job = Ask.elicit("Name?", Schema.Struct({ name: Schema.String }), { key: "who" }).pipe(
        Effect.tap(() => Caller.beginTask),
        Effect.map((answer) => text(answer._tag === "Accept" ? answer.content.name : "?")),
        Effect.orDie
      )
      const first = yield* calls.start(job, "t", {}, round(), "required")
      if (first._tag !== "InputRequired") return assert.fail(first._tag)
      const payload = yield* calls.codec.verify(first.requestState, "t")
      const second = yield* calls.resume(payload, { who: { action: "accept", content: { name: "Ada" } } }, round())
      const taskId = taskIdOf(second)
      yield* Effect.yieldNow
      assert.deepStrictEqual((yield* got(tasks, taskId))["result"], { ...text("Ada"), resultType: "complete" })
    }))

  it.effect("a handler's side that begins the task while the call is parked: the retry is answered with the task, and the answers it brought reach the handler", () =>
    Effect.gen(function*() {
      const { calls, tasks } = yield* face()
      const job = Effect.all([
        Ask.elicit("Name?", Schema.Struct({ name: Schema.String }), { key: "who" }),
        Effect.andThen(Effect.sleep("5 seconds"), Caller.beginTask)
      ], { concurrency: 2 }).pipe(
        Effect.map(([answer]) => text(answer._tag === "Accept" ? answer.content.name : "?")),
        Effect.orDie
      )
      const first = yield* calls.start(job, "t", {}, round(), "optional")
      if (first._tag !== "InputRequired") return assert.fail(first._tag)
      yield* TestClock.adjust("5 seconds")
      const payload = yield* calls.codec.verify(first.requestState, "t")
      const second = yield* calls.resume(payload, { who: { action: "accept", content: { name: "Ada" } } }, round())
      const taskId = taskIdOf(second)
      yield* Effect.yieldNow
      const done = yield* got(tasks, taskId)
      assert.strictEqual(done["status"], "completed")
      assert.deepStrictEqual(done["result"], { ...text("Ada"), resultType: "complete" })
    }))

  it.effect("a second question under a key already waiting is refused, naming the key; the first still takes its answer", () =>
    Effect.gen(function*() {
      const { calls, tasks } = yield* face()
      const ask = (message: string) => Ask.elicit(message, Schema.Struct({ name: Schema.String }), { key: "who" })
      const job = Caller.beginTask.pipe(
        Effect.andThen(Effect.all([ask("Name?"), Effect.flip(Effect.andThen(Effect.yieldNow, ask("Again?")))], {
          concurrency: 2
        })),
        Effect.map(([answer, refused]) =>
          text(`${answer._tag === "Accept" ? answer.content.name : "?"}: ${refused.message}`)
        ),
        Effect.orDie
      )
      const taskId = taskIdOf(yield* calls.start(job, "t", {}, round(), "required"))
      yield* Effect.yieldNow
      const asking = yield* got(tasks, taskId)
      assert.deepStrictEqual(asking["inputRequests"], {
        who: { method: "elicitation/create", params: (asking["inputRequests"] as any).who.params }
      })
      assert.strictEqual((asking["inputRequests"] as any).who.params.message, "Name?")
      yield* tasks.apply(taskId, { _tag: "Update", responses: { who: { action: "accept", content: { name: "Ada" } } } })
      yield* Effect.yieldNow
      const done = yield* got(tasks, taskId)
      const said = ((done["result"] as any).content as Array<{ text: string }>)[0]!.text
      assert.match(said, /^Ada: /)
      assert.include(said, `a question keyed "who" is already waiting`)
    }))

  it.effect("settings a face cannot keep are refused where it is built, each naming the setting", () =>
    Effect.sync(() => {
      for (
        const [options, named] of [
          [{ ttl: -1 }, "tasks.ttl"],
          [{ ttl: "Infinity" }, "tasks.ttl"],
          [{ after: "soon" as Duration.Input }, "tasks.after"],
          [{ pollInterval: 0 }, "tasks.pollInterval"],
          [{ maxResultBytes: 0 }, "tasks.maxResultBytes"],
          [{ maxResultBytes: 1.5 }, "tasks.maxResultBytes"]
        ] as const
      ) {
        assert.throws(() => McpTasks.resolve(options), RangeError, named)
      }
      assert.deepStrictEqual(McpTasks.resolve({ after: 0, ttl: "1 minute" }).ttlMs, 60_000)
    }))

  it.effect("a follower of a task run elsewhere hears only newer moves, however the store's reads interleave", () =>
    Effect.gen(function*() {
      const stored = (version: number, status: string): Tasks.Stored => ({
        owner: "there",
        caller: Tasks.holderOf(Identity.local),
        version,
        view: { taskId: "far", status, createdAt: new Date(0).toISOString(), ttlMs: 60_000 }
      })
      // The first move's read is slower than the second's: it finishes last.
      const reads = [
        Effect.succeed(stored(1, "working")),
        Effect.as(Effect.sleep("2 seconds"), stored(2, "input_required")),
        Effect.as(Effect.sleep("1 second"), stored(3, "completed"))
      ]
      let moved: () => void = () => {}
      const store: Tasks.Store = {
        save: () => Effect.void,
        load: () => reads.shift() ?? Effect.succeed(stored(3, "completed")),
        forward: () => Effect.succeed({ _tag: "Ack" }),
        alive: () => Effect.succeed(true),
        follow: (_, hear) => Effect.sync(() => void (moved = hear))
      }
      const tasks = yield* Tasks.make({ settings: McpTasks.resolve(), instance: "here", store })
      const heard: Array<unknown> = []
      const tell = yield* tasks.watch("far", (task) => heard.push(task["status"]))
      assert.isDefined(tell)
      moved()
      moved()
      yield* TestClock.adjust("3 seconds")
      assert.deepStrictEqual(heard, ["completed"])
    }).pipe(Effect.scoped))

  it.effect("progress while the task runs is its status message", () =>
    Effect.gen(function*() {
      const { calls, tasks } = yield* face()
      const job = slow(2).pipe(
        Effect.andThen(Progress.report({ progress: 1, total: 2, message: "half way" })),
        Effect.andThen(slow(2))
      )
      const taskId = taskIdOf(yield* started(calls, job, "optional"))
      assert.notProperty(yield* got(tasks, taskId), "statusMessage")
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* got(tasks, taskId))["statusMessage"], "half way")
    }))

  it.effect("a task that fails with a JSON-RPC error is failed with that error; a tool's own error is completed with isError", () =>
    Effect.gen(function*() {
      const { calls, tasks } = yield* face()
      const roots = Effect.andThen(Effect.sleep("2 seconds"), Effect.orDie(Effect.as(Ask.roots(), text("roots"))))
      const failedId = taskIdOf(yield* started(calls, roots, "optional"))
      const toolError = Effect.as(Effect.sleep("2 seconds"), { ...text("no"), isError: true })
      const erredId = taskIdOf(yield* started(calls, toolError, "optional"))
      yield* TestClock.adjust("2 seconds")
      const failed = yield* got(tasks, failedId)
      assert.strictEqual(failed["status"], "failed")
      assert.strictEqual((failed["error"] as { code: number }).code, -32021)
      assert.notProperty(failed, "result")
      const erred = yield* got(tasks, erredId)
      assert.strictEqual(erred["status"], "completed")
      assert.strictEqual((erred["result"] as { isError: boolean }).isError, true)
    }))

  it.effect("a result larger than the server keeps fails the task, saying how large it was", () =>
    Effect.gen(function*() {
      const { calls, tasks } = yield* face({ maxResultBytes: 100 })
      const taskId = taskIdOf(yield* started(calls, slow(2, "x".repeat(200)), "optional"))
      yield* TestClock.adjust("1 second")
      const failed = yield* got(tasks, taskId)
      assert.strictEqual(failed["status"], "failed")
      assert.match(
        String(failed["statusMessage"]),
        /the task's result is \d+ bytes, over the 100 bytes this server keeps/
      )
    }))

  it.effect("a task is kept for its time to live: then it is gone, and one still running is stopped through its finalizers, its followers told it failed", () =>
    Effect.gen(function*() {
      const { calls, tasks } = yield* face({ ttl: "1 minute" })
      const doneId = taskIdOf(yield* started(calls, slow(2), "optional"))
      const finalized = yield* Ref.make(false)
      const forever = slow(3600).pipe(Effect.onInterrupt(() => Ref.set(finalized, true)))
      const runningId = taskIdOf(yield* started(calls, forever, "optional"))
      const heard: Array<Json.JsonObject> = []
      assert.isDefined(yield* tasks.watch(runningId, (task) => heard.push(task)))
      yield* TestClock.adjust("58 seconds")
      assert.strictEqual((yield* got(tasks, doneId))["status"], "completed")
      yield* TestClock.adjust("2 seconds")
      for (const taskId of [doneId, runningId]) {
        const gone = yield* tasks.get(taskId)
        assert.strictEqual(Result.isFailure(gone) ? gone.failure.code : 0, -32602)
      }
      assert.isTrue(yield* Ref.get(finalized))
      assert.strictEqual(heard.at(-1)?.["status"], "failed")
      assert.include(String(heard.at(-1)?.["statusMessage"]), "time to live")
      assert.strictEqual(yield* tasks.size, 0)
    }).pipe(Effect.scoped))

  it.effect("followers of a task hear each move, ending with its result", () =>
    Effect.gen(function*() {
      const { calls, tasks } = yield* face()
      const job = slow(2).pipe(Effect.andThen(Progress.report({ progress: 1 })), Effect.andThen(slow(2, "end")))
      const taskId = taskIdOf(yield* started(calls, job, "optional"))
      const heard: Array<Json.JsonObject> = []
      assert.isDefined(yield* tasks.watch(taskId, (task) => heard.push(task)))
      assert.isUndefined(yield* tasks.watch("no-such-task", () => {}))
      yield* TestClock.adjust("3 seconds")
      assert.deepStrictEqual(heard.map((task) => [task["status"], task["statusMessage"]]), [
        ["working", "1 done"],
        ["completed", "1 done"]
      ])
      assert.deepStrictEqual(heard.at(-1)?.["result"], { ...text("end"), resultType: "complete" })
    }).pipe(Effect.scoped))

  it.effect("when the face's scope closes, a task still running is stopped and reported failed, saying why", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const { calls, tasks } = yield* Scope.provide(face(), scope)
      const taskId = taskIdOf(yield* started(calls, slow(3600), "optional"))
      const heard: Array<Json.JsonObject> = []
      // A follower of its own, as a client elsewhere would be.
      yield* tasks.watch(taskId, (task) => heard.push(task))
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(heard.at(-1)?.["status"], "failed")
      assert.include(String(heard.at(-1)?.["statusMessage"]), "shutting down")
    }).pipe(Effect.scoped))
})
