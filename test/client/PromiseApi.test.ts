// The Promise API, `mcpTools`: a ManagedRuntime over the Effect toolset — the same map, the same call
// path (policy and approval included), `close` ending every connection.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mcpTools } from "effect-surface/client"
import * as Path from "node:path"
import { serveFace } from "./face.ts"
import { childrenMentioning, entry, eventually, memoryStdio, tempDir } from "./servers.ts"

describe("mcpTools", () => {
  it.live(
    "resolves to tools, close, reconciled and diagnostics; execute resolves to the result",
    () =>
      Effect.gen(function*() {
        const face = yield* serveFace
        const toolset = yield* Effect.promise(() =>
          mcpTools([{ name: "board", type: "streamable-http", url: face.url }], { allowedHosts: ["127.0.0.1"] })
        )
        yield* Effect.promise(() => toolset.reconciled)
        const add = toolset.tools["board__tasks_add"]
        assert.strictEqual(add?.name, "board__tasks_add")
        assert.strictEqual(add?.description, "Add a task to the board and return its id.")
        assert.deepStrictEqual(add?.inputSchema["required"], ["title"])
        const result = yield* Effect.promise(() => add!.execute({ title: "ship it" }))
        assert.deepStrictEqual(result, {
          content: [{ type: "text", text: "{\"id\":\"t1\"}" }],
          structuredContent: { id: "t1" }
        })
        assert.deepStrictEqual(toolset.diagnostics, [])
        yield* Effect.promise(() => toolset.close())
        yield* Effect.promise(() => toolset.close())
        const after = yield* Effect.promise(() =>
          add!.execute({ title: "late" }).then(() => "answered", (e: Error) => e.message)
        )
        assert.notStrictEqual(after, "answered")
      }),
    { timeout: 60_000 }
  )

  it.live(
    "runs the same call path: the policy's ask goes to approve, and a no reaches the caller as PolicyDenied",
    () =>
      Effect.gen(function*() {
        const face = yield* serveFace
        let yes = true
        const toolset = yield* Effect.acquireRelease(
          Effect.promise(() =>
            mcpTools([{ name: "board", type: "streamable-http", url: face.url }], {
              allowedHosts: ["127.0.0.1"],
              policy: { decide: async (r) => r.tool === "watch_count" ? { _tag: "Ask" } : { _tag: "Allow" } },
              approve: async () => yes
            })
          ),
          (t) => Effect.promise(() => t.close())
        )
        yield* Effect.promise(() => toolset.tools["board__watch_count"]!.execute({}))
        assert.strictEqual(yield* face.calls, 1)
        yes = false
        const refusal = yield* Effect.promise(() =>
          toolset.tools["board__watch_count"]!.execute({}).then(
            () => undefined,
            (e: { _tag: string; message: string }) => e
          )
        )
        assert.strictEqual(refusal?._tag, "PolicyDenied")
        assert.include(refusal?.message ?? "", "the person declined")
        assert.strictEqual(yield* face.calls, 1)
      }),
    { timeout: 60_000 }
  )

  it.live("close ends every child process", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const marker = entry("server-memory")
      const toolset = yield* Effect.promise(() =>
        mcpTools([memoryStdio(Path.join(dir, "a.jsonl"), "a"), memoryStdio(Path.join(dir, "b.jsonl"), "b")])
      )
      assert.lengthOf(childrenMentioning(marker), 2)
      yield* Effect.promise(() => toolset.close())
      yield* eventually(() => childrenMentioning(marker).length === 0, "both children exited")
    }), { timeout: 60_000 })

  it.live(
    "a configuration that cannot work rejects with the WiringError's sentence, and nothing is started",
    () =>
      Effect.gen(function*() {
        const marker = entry("server-memory")
        const rejection = yield* Effect.promise(() =>
          mcpTools([memoryStdio("/tmp/unused.jsonl")], { auth: async () => ({ token: "t" }) }).then(
            () => undefined,
            (e: { _tag: string; message: string }) => e
          )
        )
        assert.strictEqual(rejection?._tag, "WiringError")
        assert.include(rejection?.message ?? "", "auth needs a session")
        assert.lengthOf(childrenMentioning(marker), 0)
      }),
    { timeout: 60_000 }
  )
})
