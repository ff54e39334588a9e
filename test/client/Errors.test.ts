// Behaviour 7, errors: a protocol error and an `isError` result both fail, through the one result
// adapter every transport shares — the same tagged error with the server's own text on stdio, on
// Streamable HTTP, on SSE and from this project's face; arguments that do not fit the tool's schema
// are refused before a request is spent.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mcpTools, McpToolset } from "effect-surface/client"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { serveFace } from "./face.ts"
import { everythingHttp, filesystemStdio, recordingProxy, tempDir } from "./servers.ts"

const faulty = (mode: "rpc-error" | "malformed") => ({
  name: "faulty",
  type: "stdio" as const,
  command: process.execPath,
  args: [fileURLToPath(new URL("./fixtures/faulty-server.ts", import.meta.url)), mode]
})

describe("one result adapter for every transport", () => {
  it.live(
    "an isError result fails with McpToolError carrying the server's text, on stdio, Streamable HTTP, SSE and our own face alike",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const http = yield* everythingHttp("streamableHttp")
        const sse = yield* everythingHttp("sse")
        const face = yield* serveFace
        const toolset = yield* McpToolset.make([
          filesystemStdio([dir]),
          { name: "viaHttp", type: "streamable-http", url: http.url },
          { name: "viaSse", type: "sse", url: sse.url },
          { name: "board", type: "streamable-http", url: face.url }
        ], { allowedHosts: ["127.0.0.1"] })
        const outside = "/etc/hostname"
        const failures = yield* Effect.forEach(
          [
            ["files__read_text_file", { path: outside }],
            ["viaHttp__gzip-file-as-resource", { data: "ftp://example.com/file" }],
            ["viaSse__gzip-file-as-resource", { data: "ftp://example.com/file" }],
            ["board__tasks_require", { id: "t404" }]
          ] as const,
          ([name, args]) => Effect.flip(toolset.call(name, args))
        )
        for (const failure of failures) {
          assert.strictEqual(failure._tag, "McpToolError")
          if (failure._tag !== "McpToolError") continue
          assert.strictEqual(failure.message, `MCP tool error: ${failure.text}`)
          assert.isNotEmpty(failure.content)
        }
        const texts = failures.map((f) => f._tag === "McpToolError" ? f.text : "")
        assert.include(texts[0], `Access denied - path outside allowed directories: ${outside}`)
        assert.include(texts[1], "Unsupported URL protocol")
        assert.strictEqual(texts[1], texts[2])
        assert.include(texts[3], "t404 is not done yet")
      }),
    { timeout: 60_000 }
  )

  it.live(
    "a JSON-RPC error fails with McpProtocolError carrying its code and the server's message",
    () =>
      Effect.gen(function*() {
        const toolset = yield* McpToolset.make([faulty("rpc-error")])
        const failure = yield* Effect.flip(toolset.call("faulty__answer", {}))
        assert.strictEqual(failure._tag, "McpProtocolError")
        if (failure._tag === "McpProtocolError") {
          assert.strictEqual(failure.code, -32602)
          assert.strictEqual(failure.reason, "the arguments were refused upstream")
          assert.include(failure.message, "MCP server \"faulty\"")
        }
      }),
    { timeout: 60_000 }
  )

  it.live("an answer that is not a tool result fails with McpProtocolError saying so", () =>
    Effect.gen(function*() {
      const toolset = yield* McpToolset.make([faulty("malformed")])
      const failure = yield* Effect.flip(toolset.call("faulty__answer", {}))
      assert.strictEqual(failure._tag, "McpProtocolError")
      assert.include(failure.message, "the answer is not a tool result")
    }), { timeout: 60_000 })

  it.live(
    "arguments that do not fit the tool's input schema are refused naming the field, and no request is spent",
    () =>
      Effect.gen(function*() {
        const upstream = yield* everythingHttp("streamableHttp")
        const proxy = yield* recordingProxy(`http://127.0.0.1:${upstream.port}`)
        const toolset = yield* McpToolset.make(
          [{ name: "docs", type: "streamable-http", url: `${proxy.origin}/mcp` }],
          {
            allowedHosts: ["127.0.0.1"]
          }
        )
        const failure = yield* Effect.flip(toolset.call("docs__get-sum", { a: "two", b: 3 }))
        assert.strictEqual(failure._tag, "InvalidArguments")
        assert.include(failure.message, "value at \"a\": expected a number, got \"two\"")
        assert.lengthOf(proxy.bodies("tools/call"), 0)
      }),
    { timeout: 60_000 }
  )

  it.live(
    "through the Promise API an isError result rejects with an Error whose message is 'MCP tool error: ' and the server's text",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const toolset = yield* Effect.acquireRelease(Effect.promise(() => mcpTools([filesystemStdio([dir])])), (t) =>
          Effect.promise(() => t.close()))
        const rejection = yield* Effect.promise(() =>
          toolset.tools["files__read_text_file"]!.execute({ path: Path.join("/", "etc", "hostname") }).then(() =>
            undefined, (e: unknown) =>
            e)
        )
        assert.instanceOf(rejection, Error)
        assert.match((rejection as Error).message, /^MCP tool error: Access denied - path outside allowed directories/)
      }),
    { timeout: 60_000 }
  )
})
