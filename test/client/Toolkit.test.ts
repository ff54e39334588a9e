// The effect/ai Toolkit over a toolset: each tool advertises the server's JSON Schema unchanged, and
// its handler runs the toolset's own call path — arguments checked, policy asked, the answer read
// through the one result adapter — handing failures back to the model as the tool's result.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect, Stream } from "effect"
import { Tool } from "effect/ai"
import { McpPolicy, McpToolset } from "effect-surface/client"
import { serveFace } from "./face.ts"
import { entry, everythingStdio } from "./servers.ts"

const lastResult = <A>(stream: Stream.Stream<A, unknown>) =>
  Effect.map(Stream.runCollect(Stream.orDie(stream)), (all) => all[all.length - 1])

describe("the effect/ai Toolkit", () => {
  it.live(
    "every tool advertises the server's own input schema, unchanged, as the SDK client lists it",
    () =>
      Effect.gen(function*() {
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [entry("server-everything"), "stdio"],
          stderr: "pipe"
        })
        const client = new Client({ name: "direct", version: "1.0.0" })
        yield* Effect.acquireRelease(
          Effect.promise(() => client.connect(transport)),
          () => Effect.promise(() => client.close())
        )
        // A task-only tool is left out of a 2025 session's map (TasksOnly.test.ts).
        const direct = (yield* Effect.promise(() => client.listTools())).tools.filter((tool) =>
          tool.execution?.taskSupport !== "required"
        )
        const toolset = yield* McpToolset.make([everythingStdio()])
        const kit = yield* toolset.toolkit
        assert.strictEqual(Object.keys(kit.tools).length, direct.length)
        for (const tool of direct) {
          const projected = kit.tools[`everything__${tool.name}`]
          assert.isDefined(projected, tool.name)
          assert.deepStrictEqual(Tool.getJsonSchema(projected!), tool.inputSchema, tool.name)
          assert.strictEqual(projected!.description, tool.description)
        }
      }),
    { timeout: 60_000 }
  )

  it.live(
    "a handler runs the toolset's call: the server's answer comes back as the tool's result",
    () =>
      Effect.gen(function*() {
        const toolset = yield* McpToolset.make([everythingStdio()])
        const kit = yield* toolset.toolkit
        const result = yield* lastResult(yield* kit.handle("everything__echo", { message: "from a model" }))
        assert.isFalse(result?.isFailure)
        assert.deepStrictEqual(result?.result, { content: [{ type: "text", text: "Echo: from a model" }] })
      }),
    { timeout: 60_000 }
  )

  it.live(
    "a denied call is returned to the model as the tool's failure, and the server receives nothing",
    () =>
      Effect.gen(function*() {
        const face = yield* serveFace
        const toolset = yield* McpToolset.make([{ name: "board", type: "streamable-http", url: face.url }], {
          allowedHosts: ["127.0.0.1"],
          policy: {
            decide: (r) => r.tool === "watch_count" ? McpPolicy.deny("counting is not for models") : McpPolicy.allow
          }
        })
        const kit = yield* toolset.toolkit
        const denied = yield* lastResult(yield* kit.handle("board__watch_count", {}))
        assert.isTrue(denied?.isFailure)
        assert.strictEqual((denied?.result as { readonly _tag?: string } | undefined)?._tag, "PolicyDenied")
        assert.include(JSON.stringify(denied?.encodedResult), "counting is not for models")
        assert.strictEqual(yield* face.calls, 0)
        const refused = yield* lastResult(yield* kit.handle("board__tasks_add", { title: 7 }))
        assert.strictEqual((refused?.result as { readonly _tag?: string } | undefined)?._tag, "InvalidArguments")
      }),
    { timeout: 60_000 }
  )
})
