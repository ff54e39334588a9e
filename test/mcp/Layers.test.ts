// The MCP face requires the core's services from its context: a test swaps one in, and one Layer
// graph shares them between the face and anything else in the process.
import { assert, describe, it } from "@effect/vitest"
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Deferred, Effect, Fiber, Layer, Queue } from "effect"
import { TestClock } from "effect/testing"
import { Caller, ConnectionPool, Engine, Resolver, Roster, SchemaBridge } from "effect-surface"
import type { Bundle } from "effect-surface"
import { McpServer } from "effect-surface/mcp"
import { Board, boardExpose, makeClients, Stopwatch, stopwatchExpose } from "../../examples/board/app.ts"

const bundle: Bundle.Bundle = {
  core: { surface: Board, expose: boardExpose },
  surfaces: { stopwatch: { surface: Stopwatch, expose: stopwatchExpose } }
}

/** Connect an SDK client to the `McpServer` in context, over an in-memory pair. */
const connectClient = Effect.gen(function*() {
  const server = yield* McpServer
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  yield* server.connect(serverSide)
  const client = new McpClient({ name: "layers", version: "1.0.0" })
  const listChanged = yield* Queue.unbounded<"tools">()
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    Queue.offerUnsafe(listChanged, "tools")
  })
  yield* Effect.acquireRelease(
    Effect.promise(() => client.connect(clientSide)),
    () => Effect.promise(() => client.close())
  )
  return { client, listChanged }
})

describe("the MCP face over the core's services", () => {
  it.effect("a test ConnectionPool layer under the face is the pool every call goes through, and TestClock drives its dial", () =>
    Effect.gen(function*() {
      const { clients } = yield* makeClients
      const dialled = yield* Deferred.make<void>()
      // A pool whose dial takes a minute of the test's clock: no call is answered before it lands.
      const slowPool = ConnectionPool.layer({
        dial: Effect.andThen(Deferred.succeed(dialled, undefined), Effect.as(Effect.sleep("1 minute"), clients)),
        name: "the board (test pool)"
      })
      const core = Engine.layer().pipe(
        Layer.provideMerge(Layer.mergeAll(Roster.layer(bundle), slowPool)),
        Layer.provideMerge(Resolver.layer),
        Layer.provideMerge(SchemaBridge.SchemaBridge.layer)
      )
      yield* Effect.gen(function*() {
        const { client } = yield* connectClient
        const call = yield* Effect.promise(() => client.callTool({ name: "stopwatch_watch_lap", arguments: {} })).pipe(
          Effect.forkChild
        )
        yield* Deferred.await(dialled)
        assert.isUndefined(call.pollUnsafe(), "the call waits on the test pool's dial")
        yield* TestClock.adjust("1 minute")
        const lap = yield* Fiber.join(call)
        assert.deepStrictEqual(lap.structuredContent, { value: 1 })
        assert.strictEqual(yield* (yield* ConnectionPool.ConnectionPool).dials, 1)
      }).pipe(
        Effect.provide(
          McpServer.layer({ serverInfo: { name: "board", version: "1.0.0" } }).pipe(Layer.provideMerge(core))
        )
      )
    }))

  it.effect("one Roster shared by an MCP face and an in-process caller: a reroster by either is seen by both", () =>
    Effect.gen(function*() {
      const { clients } = yield* makeClients
      const core = Engine.layerBundle({ ...bundle, client: Effect.succeed(clients) })
      yield* Effect.gen(function*() {
        const { client, listChanged } = yield* connectClient
        const engine = yield* Engine.Engine
        const before = yield* engine.call("stopwatch_watch_lap", {}).pipe(Effect.provideContext(Caller.none))
        assert.deepStrictEqual(before.structuredContent, { value: 1 })
        // The in-process caller moves the roster; the MCP host hears of it and loses the tool.
        yield* engine.reroster({})
        assert.strictEqual(yield* Queue.take(listChanged), "tools")
        const names = (yield* Effect.promise(() => client.listTools())).tools.map((t) => t.name)
        assert.notInclude(names, "stopwatch_watch_lap")
        const retired = yield* Effect.flip(
          engine.call("stopwatch_watch_lap", {}).pipe(Effect.provideContext(Caller.none))
        )
        assert.strictEqual(retired._tag, "Retired")
        // The face moves it back; the in-process caller reads the same roster.
        yield* (yield* McpServer).reroster({ stopwatch: { surface: Stopwatch, expose: stopwatchExpose } })
        assert.strictEqual(yield* (yield* Roster.Roster).generation, 2)
        const again = yield* engine.call("stopwatch_watch_lap", {}).pipe(Effect.provideContext(Caller.none))
        assert.deepStrictEqual(again.structuredContent, { value: 2 })
      }).pipe(
        Effect.provide(
          McpServer.layer({ serverInfo: { name: "board", version: "1.0.0" } }).pipe(Layer.provideMerge(core))
        )
      )
    }))
})
