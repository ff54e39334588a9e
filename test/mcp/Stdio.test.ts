import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../..", import.meta.url))

/** Start the README's stdio command as a real child process and connect the SDK client to it. */
const startExample = Effect.gen(function*() {
  const transport = new StdioClientTransport({
    command: "npm",
    args: ["-s", "start", "--", "--stdio"],
    cwd: root,
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1" } as Record<string, string>
  })
  const stderr: Array<string> = []
  transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString()))
  const client = new Client({ name: "stdio-test", version: "1.0.0" })
  yield* Effect.acquireRelease(
    Effect.promise(() => client.connect(transport)),
    () => Effect.promise(() => client.close())
  )
  return { client, stderr }
})

describe("the example over stdio", () => {
  it.live("the example server started as a child process answers the SDK client", () =>
    Effect.gen(function*() {
      const { client } = yield* startExample
      const { tools } = yield* Effect.promise(() => client.listTools())
      assert.include(tools.map((t) => t.name), "tasks_add")
      const { resources } = yield* Effect.promise(() => client.listResources())
      assert.include(resources.map((r) => r.uri), "surface://collections/tasks")
    }), { timeout: 60_000 })

  it.live(
    "the server exits once its host closes the connection, leaving no process behind",
    () =>
      Effect.gen(function*() {
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: ["--conditions=effect-surface-source", "examples/main.ts", "--stdio"],
          cwd: root,
          stderr: "pipe"
        })
        const client = new Client({ name: "stdio-exit", version: "1.0.0" })
        yield* Effect.promise(() => client.connect(transport))
        const pid = transport.pid
        assert.isNumber(pid)
        yield* Effect.promise(() => client.close())
        const alive = () => {
          try {
            process.kill(pid ?? 0, 0)
            return true
          } catch {
            return false
          }
        }
        // Bounded wait: the child must be gone within a few seconds of stdin closing.
        for (let i = 0; i < 50 && alive(); i++) yield* Effect.sleep("100 millis")
        assert.isFalse(alive())
      }),
    { timeout: 60_000 }
  )

  it.live("a tool that logs does not corrupt stdout: its lines go to stderr", () =>
    Effect.gen(function*() {
      const { client, stderr } = yield* startExample
      // tasks_add logs through Effect's logger, board_focus through console.log.
      const added = (yield* Effect.promise(() =>
        client.callTool({ name: "tasks_add", arguments: { title: "log me" } })
      )) as CallToolResult
      assert.deepStrictEqual(added.structuredContent, { id: "t1" })
      const focused = (yield* Effect.promise(() =>
        client.callTool({ name: "board_focus", arguments: { value: "stdout" } })
      )) as CallToolResult
      assert.isUndefined(focused.isError)
      const { tools } = yield* Effect.promise(() =>
        client.listTools()
      )
      assert.isAbove(tools.length, 0)
      yield* Effect.sleep("100 millis")
      const logged = stderr.join("")
      assert.include(logged, "added task t1")
      assert.include(logged, "focus: stdout")
    }), { timeout: 60_000 })
})
