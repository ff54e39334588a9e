import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Queue, Ref, Schema } from "effect"
import { Client, Implementation, Surface, Tools } from "effect-surface"
import * as Face from "../../src/mcp/face/Face.ts"
import { Board, makeClients, serverOptions } from "../../examples/board/app.ts"
import { call, connect, connectTo, textOf } from "./harness.ts"

const board = Effect.flatMap(serverOptions, (options) => connect({ ...options, coalesce: "1 millis" }))

const readText = (
  c: { readonly client: { readResource: (p: { uri: string }) => Promise<{ contents: ReadonlyArray<unknown> }> } },
  uri: string
) =>
  Effect.promise(() => c.client.readResource({ uri })).pipe(
    Effect.map((result) => {
      const first: unknown = result.contents[0]
      return typeof first === "object" && first !== null && "text" in first && typeof first.text === "string"
        ? JSON.parse(first.text) : undefined
    })
  )

describe("MCP face over the SDK client", () => {
  it.live("a default-deny bundle advertises tools and resources and lists nothing", () =>
    Effect.gen(function*() {
      const c = yield* connect({
        core: { surface: Board, expose: {} },
        client: Effect.map(makeClients, (x) => x.clients)
      })
      assert.deepStrictEqual((yield* Effect.promise(() => c.client.listTools())).tools, [])
      assert.deepStrictEqual((yield* Effect.promise(() => c.client.listResources())).resources, [])
      const capabilities = c.client.getServerCapabilities()
      assert.deepStrictEqual(capabilities?.tools, { listChanged: true })
      assert.deepStrictEqual(capabilities?.resources, { subscribe: true, listChanged: true })
    }))

  it.live("the example bundle lists its generated, sibling and root tools with their titles and hints", () =>
    Effect.gen(function*() {
      const c = yield* board
      const tools = (yield* Effect.promise(() => c.client.listTools())).tools
      const byName = new Map(tools.map((t) => [t.name, t]))
      assert.deepStrictEqual([...byName.keys()].sort(), [
        "board_focus",
        "board_progress",
        "stopwatch_wait",
        "stopwatch_watch_lap",
        "tasks_add",
        "tasks_complete",
        "tasks_open",
        "tasks_require"
      ])
      assert.strictEqual(byName.get("tasks_add")?.title, "Add a task")
      assert.strictEqual(byName.get("tasks_open")?.annotations?.readOnlyHint, true)
      assert.strictEqual(byName.get("tasks_add")?.annotations?.destructiveHint, false) // it only adds
      for (const tool of tools) {
        assert.isString(tool.description)
        assert.strictEqual(tool.inputSchema.type, "object")
        // A procedure's tool declares its output; a bespoke tool declares none.
        const bespoke = ["board_progress", "tasks_require", "stopwatch_wait"].includes(tool.name)
        assert.strictEqual(tool.outputSchema === undefined, bespoke, tool.name)
      }
    }))

  it.live("every URI shape reads snapshot first, and each subscription observes an update", () =>
    Effect.gen(function*() {
      const c = yield* board
      const { id } = (yield* call(c, "tasks_add", { title: "write tests" })).structuredContent as { id: string }
      assert.strictEqual(yield* readText(c, "surface://cells/focus"), "nothing yet")
      const tasks = yield* readText(c, "surface://collections/tasks")
      assert.deepInclude(tasks[id], { title: "write tests", done: false })
      assert.isString(tasks[id].createdAt) // a Date travels as its ISO string
      assert.deepInclude(yield* readText(c, `surface://collections/tasks/${id}`), { title: "write tests" })
      assert.deepStrictEqual(yield* readText(c, "surface://streams/activity"), [`added ${id}: write tests`])
      assert.isNull(yield* readText(c, "surface://events/completed"))
      assert.strictEqual(yield* readText(c, "surface://cells/stopwatch/laps"), 0)

      const uris = [
        "surface://cells/focus",
        "surface://collections/tasks",
        `surface://collections/tasks/${id}`,
        "surface://streams/activity",
        "surface://events/completed",
        "surface://cells/stopwatch/laps"
      ]
      // Each subscribe is answered once its subscription is live: a change made next is announced.
      for (const uri of uris) yield* Effect.promise(() => c.client.subscribeResource({ uri }))
      yield* call(c, "board_focus", { value: "tests" })
      yield* call(c, "tasks_complete", { value: id })
      yield* call(c, "stopwatch_watch_lap")
      const seen = new Set<string>()
      while (seen.size < uris.length) seen.add(yield* Queue.take(c.updated))
      assert.deepStrictEqual([...seen].sort(), [...uris].sort())
      assert.strictEqual(yield* readText(c, "surface://cells/stopwatch/laps"), 1)
    }))

  it.live("an unknown URI is a -32602 protocol error naming it, and so is a missing item", () =>
    Effect.gen(function*() {
      const c = yield* board
      const unknown = yield* Effect.flip(
        Effect.tryPromise(() => c.client.readResource({ uri: "surface://cells/nope" }))
      )
      assert.include(String(unknown.cause), "surface://cells/nope")
      assert.include(String(unknown.cause), "-32602")
      const missing = yield* Effect.flip(
        Effect.tryPromise(() => c.client.readResource({ uri: "surface://collections/tasks/zz" }))
      )
      assert.include(String(missing.cause), `no item "zz"`)
    }))

  it.live("a sibling's procedure and bespoke tool run on the sibling's own client", () =>
    Effect.gen(function*() {
      const c = yield* board
      assert.deepStrictEqual((yield* call(c, "stopwatch_watch_lap")).structuredContent, { value: 1 })
      assert.deepStrictEqual((yield* call(c, "stopwatch_watch_lap")).structuredContent, { value: 2 })
      // The sibling's bespoke tool reads the lap count through the client it is handed: the sibling's.
      assert.strictEqual(textOf(yield* call(c, "stopwatch_wait", { seconds: 0 })), `{"value":"waited 0s at lap 2"}`)
    }))

  it.live("a root bespoke tool is handed the whole bundle and reads the core through it", () =>
    Effect.gen(function*() {
      const c = yield* board
      const { id } = (yield* call(c, "tasks_add", { title: "ship" })).structuredContent as { id: string }
      yield* call(c, "tasks_add", { title: "rest" })
      yield* call(c, "tasks_complete", { value: id })
      assert.deepInclude((yield* call(c, "board_progress")).structuredContent, { done: 1, total: 2 })
      assert.strictEqual(textOf(yield* call(c, "tasks_require", { id })), `{"value":"${id} is done"}`)
    }))

  it.live("a bad argument is an isError result naming the field", () =>
    Effect.gen(function*() {
      const c = yield* board
      const result = yield* call(c, "tasks_add", { title: 42 })
      assert.isTrue(result.isError)
      assert.include(textOf(result), "title")
      assert.include(textOf(result), "expected a string")
      const missing = yield* call(c, "tasks_add", {})
      assert.isTrue(missing.isError)
      assert.include(textOf(missing), "title")
    }))

  it.live("the example board has prompts: review_task (its id completed from the board) and plan_next, filled from the board", () =>
    Effect.gen(function*() {
      const c = yield* board
      const listed = yield* Effect.promise(() => c.client.listPrompts())
      assert.deepStrictEqual(listed.prompts.map((prompt) => prompt.name), ["review_task", "plan_next"])
      yield* call(c, "tasks_add", { title: "write the docs" })
      const completed = yield* Effect.promise(() =>
        c.client.complete({ ref: { type: "ref/prompt", name: "review_task" }, argument: { name: "id", value: "t" } })
      )
      assert.deepStrictEqual(completed.completion.values, ["t1"])
      const review = yield* Effect.promise(() => c.client.getPrompt({ name: "review_task", arguments: { id: "t1" } }))
      assert.include(JSON.stringify(review.messages), "Review task t1 of the board, \\\"write the docs\\\" (open")
      const plan = yield* Effect.promise(() => c.client.getPrompt({ name: "plan_next" }))
      assert.include(JSON.stringify(plan.messages), "t1 \\\"write the docs\\\"")
    }))

  it.live("a declared tagged error is an isError result: its sentence as text, its declared form as structuredContent", () =>
    Effect.gen(function*() {
      const c = yield* board
      const result = yield* call(c, "tasks_complete", { value: "t404" })
      assert.isTrue(result.isError)
      assert.strictEqual(textOf(result), "effect-surface: there is no task t404 on the board")
      assert.deepStrictEqual(result.structuredContent, { _tag: "TaskNotFound", id: "t404" })
    }))

  it.live("a ToolFailure's detail arrives as structuredContent beside its message", () =>
    Effect.gen(function*() {
      const c = yield* board
      const result = yield* call(c, "tasks_require", { id: "t9" })
      assert.isTrue(result.isError)
      assert.strictEqual(textOf(result), "effect-surface: t9 is not done yet")
      assert.deepStrictEqual(result.structuredContent, { id: "t9", found: false })
    }))

  it.live("an image tool answers with the bytes once and the facts as structured data and as their JSON text", () =>
    Effect.gen(function*() {
      const c = yield* board
      yield* call(c, "tasks_add", { title: "a" })
      const result = yield* call(c, "board_progress")
      const content = result.content as ReadonlyArray<{ type: string; data?: string; mimeType?: string }>
      assert.strictEqual(content.length, 2)
      assert.strictEqual(content[0]?.type, "image")
      assert.deepStrictEqual(result.content[1], { type: "text", text: JSON.stringify(result.structuredContent) })
      assert.strictEqual(content[0]?.mimeType, "image/png")
      assert.strictEqual(Buffer.from(content[0]?.data ?? "", "base64").subarray(1, 4).toString(), "PNG")
      assert.deepStrictEqual(result.structuredContent, { done: 0, total: 1, width: 200, height: 20 })
    }))

  it.live("scalar, array and union inputs are advertised under value and unwrapped before the call", () =>
    Effect.gen(function*() {
      const Shapes = Surface.make({
        procedures: {
          echo: {
            scalar: { input: Schema.Int, output: Schema.Int },
            array: { input: Schema.Array(Schema.String), output: Schema.Int },
            union: { input: Schema.Union([Schema.String, Schema.Struct({ n: Schema.Int })]), output: Schema.String }
          }
        }
      })
      const impl = Implementation.make(Shapes, {
        procedures: {
          echo: {
            scalar: (n) => Effect.succeed(n + 1),
            array: (xs) => Effect.succeed(xs.length),
            union: (u) => Effect.succeed(typeof u === "string" ? `s:${u}` : `n:${u.n}`)
          }
        }
      })
      const c = yield* connect({
        core: {
          surface: Shapes,
          expose: { procedures: { "echo.scalar": true, "echo.array": true, "echo.union": true } }
        },
        client: Effect.succeed({ core: Client.erase(Client.directDispatch(impl)), clients: {} })
      })
      const tools = (yield* Effect.promise(() => c.client.listTools())).tools
      for (const tool of tools) assert.deepStrictEqual(tool.inputSchema.required, ["value"])
      assert.deepStrictEqual((yield* call(c, "echo_scalar", { value: 41 })).structuredContent, { value: 42 })
      assert.deepStrictEqual((yield* call(c, "echo_array", { value: ["a", "b"] })).structuredContent, { value: 2 })
      assert.strictEqual(textOf(yield* call(c, "echo_union", { value: "x" })), `{"value":"s:x"}`)
      assert.strictEqual(textOf(yield* call(c, "echo_union", { value: { n: 3 } })), `{"value":"n:3"}`)
      const bad = yield* call(c, "echo_scalar", { value: "x" })
      assert.isTrue(bad.isError)
      assert.include(textOf(bad), "value")
    }))

  it.live("instructions given as an Effect are read again at each initialize", () =>
    Effect.gen(function*() {
      const reads = yield* Ref.make(0)
      const face = yield* Face.make({
        core: { surface: Board, expose: {} },
        client: Effect.map(makeClients, (x) => x.clients),
        instructions: Effect.map(Ref.updateAndGet(reads, (n) => n + 1), (n) => n === 2 ? "" : `read ${n}`)
      })
      const first = yield* connectTo(face)
      assert.strictEqual(first.client.getInstructions(), "read 1")
      const second = yield* connectTo(face)
      assert.isUndefined(second.client.getInstructions()) // an empty answer is no instructions key
      const third = yield* connectTo(face)
      assert.strictEqual(third.client.getInstructions(), "read 3")
    }))

  it.live("a cancelled request interrupts its tool's fiber", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const c = yield* connect({
        core: { surface: Board, expose: {} },
        client: Effect.map(makeClients, (x) => x.clients),
        tools: {
          slow: Tools.make({
            description: "Never answers",
            mutates: false,
            handler: () =>
              Deferred.succeed(started, undefined).pipe(
                Effect.andThen(Effect.never),
                Effect.asVoid,
                Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
              )
          })
        }
      })
      const controller = new AbortController()
      const pending = yield* Effect.tryPromise(() =>
        c.client.callTool({ name: "slow", arguments: {} }, undefined, { signal: controller.signal })
      ).pipe(Effect.flip, Effect.forkChild)
      yield* Deferred.await(started)
      controller.abort("the host gave up")
      yield* Deferred.await(interrupted).pipe(Effect.timeout("5 seconds"))
      assert.include(String((yield* Fiber.join(pending)).cause), "the host gave up")
    }))
})
