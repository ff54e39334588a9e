import { assert, describe, it } from "@effect/vitest"
import { Effect, Queue, Schema } from "effect"
import { Client } from "effect-surface"
import * as Face from "../../src/mcp/face/Face.ts"
import * as Completion from "../../src/mcp/face/Completion.ts"
import * as Prompts from "../../src/mcp/face/Prompts.ts"
import { Board, boardExpose, makeClients } from "../../examples/board/app.ts"
import { call, host } from "./hostHarness.ts"

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="

const colours = Array.from({ length: 150 }, (_, i) => `colour-${String(i).padStart(3, "0")}`)

const prompts: Prompts.Table = {
  test_simple_prompt: Prompts.make({
    description: "A prompt without arguments",
    handler: () => Effect.succeed([Prompts.user("This is a simple prompt for testing.")])
  }),
  test_prompt_with_arguments: Prompts.make({
    title: "With arguments",
    description: "A prompt with one required and one optional argument",
    arguments: Schema.Struct({
      arg1: Schema.String.annotate({ description: "First test argument" }),
      arg2: Schema.optionalKey(Schema.String.annotate({ description: "Second test argument" }))
    }),
    complete: { arg1: Completion.fromValues(colours) },
    handler: ({ arg1, arg2 }) =>
      Effect.succeed([Prompts.user(`Prompt with arguments: arg1='${arg1}', arg2='${arg2 ?? "none"}'`)])
  }),
  test_prompt_with_embedded_resource: Prompts.make({
    description: "Embeds the resource it is given",
    arguments: Schema.Struct({ resourceUri: Schema.String }),
    handler: ({ resourceUri }) =>
      Effect.succeed([
        Prompts.user({
          type: "resource",
          resource: { uri: resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." }
        }),
        Prompts.user("Please process the embedded resource above.")
      ])
  }),
  test_prompt_with_image: Prompts.make({
    description: "Shows an image",
    handler: () =>
      Effect.succeed([
        Prompts.user({ type: "image", data: PNG, mimeType: "image/png" }),
        Prompts.user("Please analyze the image above.")
      ])
  }),
  review_missing: Prompts.make({
    description: "Fails as the caller's mistake: the task it is asked about does not exist",
    arguments: Schema.Struct({ id: Schema.String }),
    handler: ({ id }) => Effect.fail(new Error(`there is no task ${id} on the board`))
  }),
  broken: Prompts.make({
    description: "Breaks on the server's side",
    handler: () => Effect.die(new Error("the disk is on fire"))
  }),
  open_tasks: Prompts.make({
    description: "Asks about the open tasks, read from the board's own client",
    handler: (_, clients) =>
      Effect.gen(function*() {
        const board = yield* Client.narrow(Board, clients.core)
        const tasks = yield* board.collections.tasks.read
        return [Prompts.user(`There are ${tasks.size} tasks.`)]
      })
  })
}

const setup = Effect.gen(function*() {
  const { clients } = yield* makeClients
  const face = yield* Face.make({
    core: { surface: Board, expose: boardExpose },
    client: Effect.succeed(clients),
    prompts
  })
  return { face, h: yield* host(face) }
})

const rpcFailure = <A>(promise: () => Promise<A>) =>
  Effect.map(Effect.flip(Effect.tryPromise(promise)), (e) => String(e.cause))

describe("prompts", () => {
  it.live("prompts/list advertises each prompt with its arguments, required read off the schema", () =>
    Effect.gen(function*() {
      const { h } = yield* setup
      assert.deepStrictEqual(h.client.getServerCapabilities()?.prompts, { listChanged: true })
      const listed = (yield* Effect.promise(() => h.client.listPrompts())).prompts
      assert.deepStrictEqual(listed.map((p) => p.name), Object.keys(prompts))
      const withArgs = listed.find((p) => p.name === "test_prompt_with_arguments")
      assert.strictEqual(withArgs?.title, "With arguments")
      assert.deepStrictEqual(withArgs?.arguments, [
        { name: "arg1", description: "First test argument", required: true },
        { name: "arg2", description: "Second test argument", required: false }
      ])
      for (const prompt of listed) assert.isString(prompt.description)
    }))

  it.live("prompts/get substitutes arguments and carries embedded resources and images as given", () =>
    Effect.gen(function*() {
      const { h } = yield* setup
      const simple = yield* Effect.promise(() => h.client.getPrompt({ name: "test_simple_prompt" }))
      assert.deepStrictEqual(simple.messages, [{
        role: "user",
        content: { type: "text", text: "This is a simple prompt for testing." }
      }])
      const args = yield* Effect.promise(() =>
        h.client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "hello", arg2: "world" } })
      )
      assert.include(JSON.stringify(args.messages), "arg1='hello', arg2='world'")
      const optional = yield* Effect.promise(() =>
        h.client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "x" } })
      )
      assert.include(JSON.stringify(optional.messages), "arg2='none'")
      const embedded = yield* Effect.promise(() =>
        h.client.getPrompt({
          name: "test_prompt_with_embedded_resource",
          arguments: { resourceUri: "test://example-resource" }
        })
      )
      assert.deepStrictEqual(embedded.messages[0]?.content, {
        type: "resource",
        resource: {
          uri: "test://example-resource",
          mimeType: "text/plain",
          text: "Embedded resource content for testing."
        }
      })
      const image = yield* Effect.promise(() => h.client.getPrompt({ name: "test_prompt_with_image" }))
      assert.deepStrictEqual(image.messages[0]?.content, { type: "image", data: PNG, mimeType: "image/png" })
    }))

  it.live("a prompt's handler reads the bundle's live clients", () =>
    Effect.gen(function*() {
      const { h } = yield* setup
      yield* call(h, "tasks_add", { title: "a" })
      const result = yield* Effect.promise(() => h.client.getPrompt({ name: "open_tasks" }))
      assert.deepStrictEqual(result.messages[0]?.content, { type: "text", text: "There are 1 tasks." })
    }))

  it.live("a missing required argument is refused as invalid params naming it, and so is an unknown prompt", () =>
    Effect.gen(function*() {
      const { h } = yield* setup
      const missing = yield* rpcFailure(() =>
        h.client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg2: "y" } })
      )
      assert.include(missing, "-32602")
      assert.include(missing, "arg1")
      assert.include(missing, "test_prompt_with_arguments")
      const unknown = yield* rpcFailure(() => h.client.getPrompt({ name: "no_such_prompt" }))
      assert.include(unknown, "-32602")
      assert.include(unknown, `unknown prompt "no_such_prompt"`)
    }))

  it.live("a prompt's own failure is the caller's mistake (-32602) and a defect the server's (-32603)", () =>
    Effect.gen(function*() {
      const { h } = yield* setup
      const declared = yield* rpcFailure(() => h.client.getPrompt({ name: "review_missing", arguments: { id: "t9" } }))
      assert.include(declared, "-32602")
      assert.include(declared, `prompt "review_missing" failed: there is no task t9 on the board`)
      const defect = yield* rpcFailure(() => h.client.getPrompt({ name: "broken" }))
      assert.include(defect, "-32603")
      assert.notInclude(defect, "-32602")
    }))

  it.live("a prompt added at run time is listed and prompts/list_changed is sent", () =>
    Effect.gen(function*() {
      const { face, h } = yield* setup
      yield* face.setPrompts({
        ...prompts,
        test_dynamic_prompt: Prompts.make({
          description: "Appears after start",
          handler: () => Effect.succeed([Prompts.user("dynamic")])
        })
      })
      assert.strictEqual(yield* Queue.take(h.listChanged), "prompts")
      const listed = (yield* Effect.promise(() => h.client.listPrompts())).prompts.map((p) => p.name)
      assert.include(listed, "test_dynamic_prompt")
      const got = yield* Effect.promise(() => h.client.getPrompt({ name: "test_dynamic_prompt" }))
      assert.deepStrictEqual(got.messages[0]?.content, { type: "text", text: "dynamic" })
    }))
})

describe("completion", () => {
  it.live("a prompt argument completes by its completer's prefix matches, bounded to 100 with total and hasMore", () =>
    Effect.gen(function*() {
      const { h } = yield* setup
      assert.deepStrictEqual(h.client.getServerCapabilities()?.completions, {})
      const ref = { type: "ref/prompt", name: "test_prompt_with_arguments" } as const
      const all = (yield* Effect.promise(() =>
        h.client.complete({ ref, argument: { name: "arg1", value: "colour-" } })
      )).completion
      assert.strictEqual(all.values.length, 100)
      assert.strictEqual(all.total, 150)
      assert.isTrue(all.hasMore)
      const few = (yield* Effect.promise(() =>
        h.client.complete({ ref, argument: { name: "arg1", value: "colour-14" } })
      )).completion
      assert.deepStrictEqual(few, {
        values: colours.filter((c) => c.startsWith("colour-14")),
        total: 10,
        hasMore: false
      })
      const none = (yield* Effect.promise(() =>
        h.client.complete({ ref, argument: { name: "arg2", value: "" } })
      )).completion
      assert.deepStrictEqual(none.values, [])
      const unknown = yield* rpcFailure(() =>
        h.client.complete({ ref: { type: "ref/prompt", name: "nope" }, argument: { name: "x", value: "" } })
      )
      assert.include(unknown, "-32602")
    }))

  it.live("a collection's item template completes from the keys the collection holds now", () =>
    Effect.gen(function*() {
      const { h } = yield* setup
      const ref = { type: "ref/resource", uri: "surface://collections/tasks/{id}" } as const
      const before = (yield* Effect.promise(() =>
        h.client.complete({ ref, argument: { name: "id", value: "t" } })
      )).completion
      assert.deepStrictEqual(before, { values: [], total: 0, hasMore: false })
      for (const title of ["a", "b", "c"]) yield* call(h, "tasks_add", { title })
      const after = (yield* Effect.promise(() =>
        h.client.complete({ ref, argument: { name: "id", value: "t" } })
      )).completion
      assert.deepStrictEqual(after, { values: ["t1", "t2", "t3"], total: 3, hasMore: false })
      const narrowed =
        (yield* Effect.promise(() => h.client.complete({ ref, argument: { name: "id", value: "t2" } }))).completion
      assert.deepStrictEqual(narrowed.values, ["t2"])
    }))
})
