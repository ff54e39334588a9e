// The toolset over every kind of server it speaks to: the three reference servers over stdio,
// server-everything over Streamable HTTP and over SSE, and this project's own MCP face — each
// projected into one map, each answering through it, through the Effect API and its layer.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect, Layer } from "effect"
import { McpCallResult, McpToolset } from "effect-surface/client"
import * as Path from "node:path"
import { serveFace } from "./face.ts"
import { entry, everythingHttp, everythingStdio, filesystemStdio, memoryStdio, tempDir } from "./servers.ts"

describe("one map over many servers", () => {
  it.live(
    "the three reference servers over stdio project into one map as server__tool, and each answers through it",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const toolset = yield* McpToolset.make([
          everythingStdio(),
          memoryStdio(Path.join(dir, "memory.jsonl")),
          filesystemStdio([dir])
        ])
        const tools = yield* toolset.tools
        for (
          const name of [
            "everything__echo",
            "everything__get-sum",
            "memory__read_graph",
            "memory__create_entities",
            "files__list_allowed_directories"
          ]
        ) {
          assert.isTrue(tools.has(name), name)
        }
        const echo = tools.get("everything__echo")
        assert.strictEqual(echo?.server, "everything")
        assert.strictEqual(echo?.tool, "echo")
        assert.strictEqual(echo?.description, "Echoes back the input string")
        assert.strictEqual(McpCallResult.textOf(yield* toolset.call("everything__echo", { message: "hi" })), "Echo: hi")
        assert.include(McpCallResult.textOf(yield* toolset.call("files__list_allowed_directories", {})), dir)
        yield* toolset.call("memory__create_entities", {
          entities: [{ name: "ada", entityType: "person", observations: ["wrote the first program"] }]
        })
        assert.include(McpCallResult.textOf(yield* toolset.call("memory__read_graph", {})), "ada")
        // Only server-everything's task-only tool, which a 2025 session cannot call, is left out.
        assert.deepStrictEqual((yield* toolset.diagnostics).map((d) => d.kind), ["tool-needs-tasks"])
      }),
    { timeout: 60_000 }
  )

  it.live("a tool's description and input schema are the server's own, byte for byte", () =>
    Effect.gen(function*() {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [entry("server-everything"), "stdio"],
        stderr: "pipe"
      })
      const client = new Client({ name: "direct", version: "1.0.0" })
      yield* Effect.acquireRelease(Effect.promise(() => client.connect(transport)), () =>
        Effect.promise(() => client.close()))
      const direct = (yield* Effect.promise(() =>
        client.listTools()
      )).tools
      const toolset = yield* McpToolset.make([everythingStdio()])
      const tools = yield* toolset.tools
      // A task-only tool is left out of a 2025 session's map (TasksOnly.test.ts).
      for (const tool of direct.filter((tool) => tool.execution?.taskSupport !== "required")) {
        const projected = tools.get(`everything__${tool.name}`)
        assert.deepStrictEqual(projected?.inputSchema, tool.inputSchema, tool.name)
        assert.strictEqual(projected?.description, tool.description ?? "", tool.name)
      }
    }), { timeout: 60_000 })

  it.live(
    "server-everything over Streamable HTTP and over SSE answers through the same map",
    () =>
      Effect.gen(function*() {
        const http = yield* everythingHttp("streamableHttp")
        const sse = yield* everythingHttp("sse")
        const toolset = yield* McpToolset.make([
          { name: "viaHttp", type: "streamable-http", url: http.url },
          { name: "viaSse", type: "sse", url: sse.url }
        ], { allowedHosts: ["127.0.0.1"] })
        assert.strictEqual(
          McpCallResult.textOf(yield* toolset.call("viaHttp__echo", { message: "over http" })),
          "Echo: over http"
        )
        assert.strictEqual(
          McpCallResult.textOf(yield* toolset.call("viaSse__echo", { message: "over sse" })),
          "Echo: over sse"
        )
        const sum = yield* toolset.call("viaSse__get-sum", { a: 2, b: 3 })
        assert.include(McpCallResult.textOf(sum), "5")
      }),
    { timeout: 60_000 }
  )

  it.live(
    "this project's own MCP face is a server like any other: its tools project and answer",
    () =>
      Effect.gen(function*() {
        const face = yield* serveFace
        const toolset = yield* McpToolset.make([{ name: "board", type: "streamable-http", url: face.url }], {
          allowedHosts: ["127.0.0.1"]
        })
        const tools = yield* toolset.tools
        assert.isTrue(tools.has("board__tasks_add"))
        const added = yield* toolset.call("board__tasks_add", { title: "write the toolset" })
        assert.deepStrictEqual(added.structuredContent, { id: "t1" })
        assert.strictEqual(yield* face.calls, 0)
        yield* toolset.call("board__watch_count", {})
        assert.strictEqual(yield* face.calls, 1)
      }),
    { timeout: 60_000 }
  )

  it.live("the layer provides the toolset as a service, connected while the layer lives", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const tools = McpToolset.layer([memoryStdio(Path.join(dir, "memory.jsonl"))])
      const names = yield* Effect.gen(function*() {
        const toolset = yield* McpToolset.McpToolset
        yield* toolset.call("memory__read_graph", {})
        return [...(yield* toolset.tools).keys()]
      }).pipe(Effect.provide(Layer.fresh(tools)))
      assert.include(names, "memory__read_graph")
    }), { timeout: 60_000 })
})
