// MCP tasks served by two instances of the conformance server (child processes) sharing a real
// Redis: a task started through one is read, answered and cancelled through the other, and one whose
// instance is killed outright is reported failed there. Every request is sent where the test says.
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import * as TaskStore from "../../src/mcp/v2026/internal/taskStore.ts"
import * as Instances from "./cluster/instances.ts"
import { raw } from "./modern.ts"
import * as RedisServer from "./redisServer.ts"

const follows = { elicitation: {}, extensions: { "io.modelcontextprotocol/tasks": {} } }

const pair = Effect.gen(function*() {
  const redis = yield* RedisServer.start
  const start = Instances.start({
    script: "examples/conformance-server/main.ts",
    redisUrl: redis.url,
    ready: /listening (\S+)/
  })
  return { a: yield* start, b: yield* start }
})

let id = 0

const request = (url: string, method: string, params: Record<string, unknown>) =>
  Effect.map(raw(url, ++id, method, params, follows), ({ answer }) => answer)

const call = (url: string, name: string, args: Record<string, unknown>) =>
  Effect.map(request(url, "tools/call", { name, arguments: args }), (answer) => {
    if (answer.result?.["resultType"] !== "task") return assert.fail(`expected a task, got ${JSON.stringify(answer)}`)
    return String(answer.result["taskId"])
  })

const get = (url: string, taskId: string) =>
  Effect.map(request(url, "tasks/get", { taskId }), (answer) => answer.result ?? assert.fail(JSON.stringify(answer)))

/** Poll `tasks/get` at `url` until the task's status is `status`, for up to `seconds`. */
const until = (url: string, taskId: string, status: string, seconds = 10) =>
  Effect.gen(function*() {
    for (let waited = 0; waited < seconds * 10; waited++) {
      const task = yield* get(url, taskId)
      if (task["status"] === status) return task
      yield* Effect.sleep("100 millis")
    }
    return assert.fail(`task ${taskId} did not reach ${status} at ${url} within ${seconds}s`)
  })

describe("MCP tasks on two instances sharing Redis", () => {
  it.live(
    "a task started through one instance is read through the other, and its result fetched there",
    () =>
      Effect.gen(function*() {
        const { a, b } = yield* pair
        const taskId = yield* call(a.url, "slow_compute", { seconds: 1, label: "shared" })
        assert.strictEqual((yield* get(b.url, taskId))["taskId"], taskId)
        const done = yield* until(b.url, taskId, "completed")
        assert.deepStrictEqual((done["result"] as { content: unknown }).content, [
          { type: "text", text: `Computation "shared" completed after 1 seconds. Result: 42.` }
        ])
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "a task's question is answered through the other instance, and a cancel sent there ends a task running here",
    () =>
      Effect.gen(function*() {
        const { a, b } = yield* pair
        const asking = yield* call(a.url, "confirm_delete", { filename: "x.txt" })
        const waiting = yield* until(b.url, asking, "input_required")
        assert.deepStrictEqual(Object.keys(waiting["inputRequests"] as object), ["confirm"])
        const ack = yield* request(b.url, "tasks/update", {
          taskId: asking,
          inputResponses: { confirm: { action: "accept", content: { confirm: true } } }
        })
        assert.deepStrictEqual(ack.result?.["resultType"], "complete")
        const deleted = yield* until(b.url, asking, "completed")
        assert.deepStrictEqual((deleted["result"] as { content: unknown }).content, [
          { type: "text", text: "deleted 'x.txt'" }
        ])
        const running = yield* call(a.url, "slow_compute", { seconds: 60, label: "cancelled" })
        const cancel = yield* request(b.url, "tasks/cancel", { taskId: running })
        assert.deepStrictEqual(cancel.result?.["resultType"], "complete")
        assert.strictEqual((yield* get(a.url, running))["status"], "cancelled")
        assert.strictEqual((yield* get(b.url, running))["status"], "cancelled")
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "a task whose instance is killed mid-task is reported failed by the other, with a sentence saying so",
    () =>
      Effect.gen(function*() {
        const { a, b } = yield* pair
        const taskId = yield* call(a.url, "slow_compute", { seconds: 60, label: "orphan" })
        assert.strictEqual((yield* get(b.url, taskId))["status"], "working")
        yield* a.kill
        // Its heartbeat key lapses three beats (2 s each) after the last one.
        const failed = yield* until(b.url, taskId, "failed", 20)
        assert.match(String(failed["statusMessage"]), /instance \S+, which ran it, stopped before it finished/)
        assert.strictEqual((failed["error"] as { code: number }).code, -32603)
        assert.strictEqual((yield* get(b.url, taskId))["status"], "failed")
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.effect(
    "an op forwarded to an instance that never replies fails after the timeout, naming it, and leaves nothing waiting; so does one interrupted",
    () =>
      Effect.gen(function*() {
        const store = yield* TaskStore.make({
          prefix: "t:",
          heartbeat: Duration.seconds(1),
          timeout: Duration.seconds(2)
        }, "here")
        const unanswered = yield* Effect.forkChild(Effect.flip(store.forward("gone", "task", { _tag: "Cancel" })))
        const abandoned = yield* Effect.forkChild(store.forward("gone", "other", { _tag: "Cancel" }))
        yield* Effect.sleep("100 millis").pipe(TestClock.withLive)
        assert.strictEqual(yield* store.waiting, 2)
        yield* Fiber.interrupt(abandoned)
        yield* TestClock.adjust("2 seconds")
        assert.include((yield* Fiber.join(unanswered)).message, "instance gone did not answer within 2s")
        assert.strictEqual(yield* store.waiting, 0)
      }).pipe(Effect.scoped, Effect.provide(RedisServer.layer)),
    { timeout: 30_000 }
  )
})
