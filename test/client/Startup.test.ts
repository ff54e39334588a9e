// Starting up, on the Effect Clock: a server that never answers holds the toolset up for one connect
// deadline — one dial, not two — while the servers beside it load; it joins through `changes` once
// it answers. A stdio child is ended the way the MCP spec says (stdin closed, SIGTERM, SIGKILL, a
// grace period apart), so one that ignores SIGTERM is still gone within bounded time; one that died
// says how, with its exit code and its last stderr lines.
import { assert, describe, it } from "@effect/vitest"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Deferred, Effect, Fiber, Stream } from "effect"
import { TestClock } from "effect/testing"
import { McpToolset } from "effect-surface/client"
import type { McpConfig } from "effect-surface/client"
import { fileURLToPath } from "node:url"
import * as Child from "../../src/client/internal/child.ts"
import { eventually, pause } from "./servers.ts"

const hungScript = fileURLToPath(new URL("../interop/fixtures/lifecycle-hung.ts", import.meta.url))
const dyingScript = fileURLToPath(new URL("../interop/fixtures/lifecycle-dying.ts", import.meta.url))

/** A transport to an SDK server with one tool, `echo`. */
const answering = () => {
  const [client, server] = InMemoryTransport.createLinkedPair()
  const sdk = new Server({ name: "echo", version: "1.0.0" }, { capabilities: { tools: {} } })
  sdk.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: "echo", inputSchema: { type: "object" } }] }))
  sdk.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: "text", text: "echoed" }] }))
  void sdk.connect(server)
  return client
}

/** A server that never answers until `wakes` says so; counts how often it was opened. */
const silent = (name: string, wakes: () => boolean) => {
  let opens = 0
  const config: McpConfig.Custom = {
    name,
    type: "transport",
    open: () => {
      opens++
      if (wakes()) return answering()
      const [client, server] = InMemoryTransport.createLinkedPair()
      void server.start()
      return client
    }
  }
  return { config, opens: () => opens }
}

const healthy: McpConfig.Custom = { name: "echo", type: "transport", open: answering }

/** Advance the test clock by `ms` in steps, letting real I/O run between them. */
const advance = (ms: number, step = 250) =>
  Effect.gen(function*() {
    for (let done = 0; done < ms; done += step) {
      yield* TestClock.adjust(`${Math.min(step, ms - done)} millis`)
      yield* pause(5)
    }
  })

describe("a server that never answers", () => {
  it.effect(
    "holds the toolset up for one connect deadline, dialled once, while the server beside it loads",
    () =>
      Effect.gen(function*() {
        const mute = silent("mute", () => false)
        const making = yield* Effect.forkChild(
          McpToolset.make([mute.config, healthy], { connectTimeoutMs: 5_000 })
        )
        yield* advance(4_750)
        assert.isUndefined(making.pollUnsafe(), "still waiting inside the deadline")
        yield* advance(500)
        const toolset = yield* Fiber.join(making)
        assert.isTrue((yield* toolset.tools).has("echo__echo"))
        assert.strictEqual(mute.opens(), 1, "one dial, not two")
        const down = (yield* toolset.diagnostics).find((d) => d.kind === "server-unavailable")
        assert.include(down?.message ?? "", "MCP server \"mute\" offers no tools")
        assert.include(down?.message ?? "", "no answer within 5s")
      })
  )

  it.effect("joins through changes once it answers, with a tools-changed diagnostic", () =>
    Effect.gen(function*() {
      let awake = false
      const late = silent("late", () => awake)
      const making = yield* Effect.forkChild(McpToolset.make([late.config, healthy], { connectTimeoutMs: 1_000 }))
      yield* advance(1_250)
      const toolset = yield* Fiber.join(making)
      assert.isFalse((yield* toolset.tools).has("late__echo"))
      awake = true
      const joined = yield* Deferred.make<void>()
      yield* Effect.forkChild(
        toolset.changes.pipe(
          Stream.filter((tools) => tools.has("late__echo")),
          Stream.runHead,
          Effect.andThen(Deferred.succeed(joined, undefined))
        )
      )
      // The background retry is due a second after the failure (then doubling).
      for (let i = 0; i < 20 && !(yield* Deferred.isDone(joined)); i++) yield* advance(500)
      assert.isTrue(yield* Deferred.isDone(joined), "its tools arrived through changes")
      assert.include(
        (yield* toolset.diagnostics).find((d) => d.kind === "tools-changed")?.message ?? "",
        "1 added (late__echo)"
      )
    }))
})

/** A server that answers initialize and tools/list but leaves every request it does not know unanswered. */
const ignoresDiscovery: McpConfig.Custom = {
  name: "quiet",
  type: "transport",
  open: () => {
    const [client, server] = InMemoryTransport.createLinkedPair()
    server.onmessage = (message) => {
      const m = message as {
        readonly id?: number
        readonly method?: string
        readonly params?: { protocolVersion?: string }
      }
      if (m.id === undefined || (m.method !== "initialize" && m.method !== "tools/list")) return
      const result = m.method === "initialize"
        ? {
          protocolVersion: m.params?.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "quiet", version: "0" }
        }
        : { tools: [{ name: "hello", inputSchema: { type: "object" } }] }
      void server.send({ jsonrpc: "2.0", id: m.id, result })
    }
    void server.start()
    return client
  }
}

describe("a server that ignores server/discover", () => {
  it.effect(
    "is given up on as a 2026 server at half the connect deadline and reached by initialize within it",
    () =>
      Effect.gen(function*() {
        const making = yield* Effect.forkChild(McpToolset.make([ignoresDiscovery], { connectTimeoutMs: 4_000 }))
        yield* advance(1_750)
        assert.isUndefined(making.pollUnsafe(), "the probe is still waited on")
        yield* advance(500)
        const toolset = yield* Fiber.join(making)
        assert.isTrue((yield* toolset.tools).has("quiet__hello"))
        assert.isFalse((yield* toolset.diagnostics).some((d) => d.kind === "server-unavailable"))
      })
  )
})

const spec = (script: string): Child.Spec => ({
  command: process.execPath,
  args: [script],
  env: { PATH: process.env["PATH"] ?? "" },
  cwd: undefined,
  framing: { reader: () => new ReadBuffer(), write: serializeMessage }
})

describe("a stdio child", () => {
  it.effect(
    "one that ignores stdin's close and SIGTERM is sent SIGTERM after one grace period and SIGKILL after the next",
    () =>
      Effect.gen(function*() {
        const lines: Array<string> = []
        const reaper = yield* Child.reaper
        const child = yield* Effect.scoped(
          Effect.gen(function*() {
            const child = yield* Child.make(spec(hungScript), reaper, (line) => void lines.push(line))
            yield* Effect.promise(() => child.transport.start())
            yield* eventually(() => lines.length > 0, "the child is running")
            return child
          })
        )
        // The scope closed: stdin is closed, and nothing more until a grace period passes.
        yield* pause(200)
        assert.isFalse(yield* Deferred.isDone(child.ended))
        assert.notInclude(lines.join("\n"), "SIGTERM")
        yield* TestClock.adjust(Child.GRACE)
        yield* eventually(() => lines.some((line) => line.includes("SIGTERM ignored")), "SIGTERM was sent")
        assert.isFalse(yield* Deferred.isDone(child.ended), "it ignored SIGTERM")
        yield* TestClock.adjust(Child.GRACE)
        yield* eventually(() => Deferred.isDoneUnsafe(child.ended), "the child has ended")
        const ended = yield* Deferred.await(child.ended)
        assert.strictEqual(ended.signal, "SIGKILL")
        assert.include(Child.sentence(child.exited()!), "was ended by SIGKILL")
      })
  )

  it.live("one that dies at start says its exit code and its last stderr lines", () =>
    Effect.gen(function*() {
      const reaper = yield* Child.reaper
      const child = yield* Child.make(spec(dyingScript), reaper, () => undefined)
      yield* Effect.promise(() => child.transport.start())
      const ended = yield* Deferred.await(child.ended)
      assert.deepStrictEqual(ended, { code: 3, signal: null })
      assert.strictEqual(
        Child.sentence(child.exited()!),
        "its process exited with code 3; its last stderr lines: lifecycle-dying: loading the configuration / " +
          "lifecycle-dying: DATABASE_URL is not set"
      )
    }))
})
