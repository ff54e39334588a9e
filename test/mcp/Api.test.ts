import { assert, describe, it } from "@effect/vitest"
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Effect, Exit, Layer, Queue, Ref, Schedule, Schema, Stream } from "effect"
import { Client, LinkError, Surface } from "effect-surface"
import { McpServer, serveSurfaceAsMcp } from "effect-surface/mcp"
import { Board, boardExpose, makeClients, Stopwatch, stopwatchExpose } from "../../examples/board/app.ts"
import { connectTo } from "./harness.ts"

describe("the Promise API", () => {
  it.live("serveSurfaceAsMcp serves, reroster moves the roster, and close disposes the connection it owns", () =>
    Effect.gen(function*() {
      const { clients } = yield* makeClients
      const disposed = yield* Ref.make(0)
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      const served = yield* Effect.promise(() =>
        serveSurfaceAsMcp({
          core: { surface: Board, expose: boardExpose },
          surfaces: { stopwatch: { surface: Stopwatch, expose: stopwatchExpose } },
          client: async () => ({ client: clients, dispose: () => Effect.runSync(Ref.update(disposed, (n) => n + 1)) }),
          instructions: () => "a board",
          transport: serverSide
        })
      )
      const client = new McpClient({ name: "promise-host", version: "1.0.0" })
      yield* Effect.promise(() => client.connect(clientSide))
      assert.strictEqual(client.getInstructions(), "a board")
      const lap = yield* Effect.promise(() => client.callTool({ name: "stopwatch_watch_lap", arguments: {} }))
      assert.deepStrictEqual(lap.structuredContent, { value: 1 })
      yield* Effect.promise(() => served.reroster({}))
      const names = (yield* Effect.promise(() => client.listTools())).tools.map((t) => t.name)
      assert.notInclude(names, "stopwatch_watch_lap")
      const refused = yield* Effect.flip(
        Effect.tryPromise(() => served.reroster({ tasks: { surface: Stopwatch, expose: {} } }))
      )
      assert.include(String(refused.cause), "tasks")
      yield* Effect.promise(() => served.close())
      assert.strictEqual(yield* Ref.get(disposed), 1)
    }))

  it.live("a move after close rejects with ServerClosed naming it, over a transport and over HTTP alike", () =>
    Effect.gen(function*() {
      const { clients } = yield* makeClients
      const options = { core: { surface: Board, expose: boardExpose }, client: () => clients }
      const [, serverSide] = InMemoryTransport.createLinkedPair()
      const overTransport = yield* Effect.promise(() => serveSurfaceAsMcp({ ...options, transport: serverSide }))
      const overHttp = yield* Effect.promise(() =>
        serveSurfaceAsMcp({ ...options, transport: { transport: "http", port: 0, host: "127.0.0.1" } })
      )
      for (const served of [overTransport, overHttp]) {
        yield* Effect.promise(() => served.close())
        const refused = yield* Effect.promise(() =>
          served.reroster({}).then(() => undefined, (e: { readonly _tag?: string; readonly message?: string }) => e)
        )
        assert.strictEqual(refused?._tag, "ServerClosed")
        assert.strictEqual(refused?.message, "the MCP server is closed, so reroster was not run.")
        yield* Effect.promise(() => served.closed)
      }
    }))
})

describe("the Effect API", () => {
  it.live("McpServer.layer provides a face that connects transports and moves its roster", () =>
    Effect.gen(function*() {
      const { clients } = yield* makeClients
      const layer = McpServer.layer({
        core: { surface: Board, expose: boardExpose },
        surfaces: { stopwatch: { surface: Stopwatch, expose: stopwatchExpose } },
        client: Effect.succeed(clients)
      })
      yield* Effect.gen(function*() {
        const server = yield* McpServer
        const c = yield* connectTo(server)
        yield* server.reroster({})
        assert.sameMembers([yield* Queue.take(c.listChanged), yield* Queue.take(c.listChanged)], ["tools", "resources"])
      }).pipe(Effect.provide(layer))
    }))

  it.effect("a bundle the gate would refuse does not boot, and the refusal names both claimants", () =>
    Effect.gen(function*() {
      const { clients } = yield* makeClients
      const exit = yield* Effect.exit(Layer.build(McpServer.layer({
        core: { surface: Board, expose: boardExpose },
        surfaces: { stopwatch: { surface: Stopwatch, expose: stopwatchExpose } },
        tools: {
          stopwatch_watch_lap: {
            description: "a root tool whose name a sibling already mints",
            mutates: false,
            handler: () => Effect.void
          }
        },
        client: Effect.succeed(clients)
      })))
      assert.isTrue(Exit.isFailure(exit))
      const message = String(Exit.isFailure(exit) ? exit.cause : "")
      assert.include(message, "stopwatch_watch_lap")
      assert.include(message, "root tool")
      assert.include(message, `sibling "stopwatch"`)
    }))
})

describe("subscriptions whose source is not live yet", () => {
  it.live("are retried on a bounded schedule while the subscriber waits, then deliver", () =>
    Effect.gen(function*() {
      const Flaky = Surface.make({ cells: { level: Surface.cell(Schema.Int, 0) } })
      const attempts = yield* Ref.make(0)
      const level = yield* Ref.make(0)
      // The source fails twice as a dropped link, then comes up and changes once.
      const subscribe = Stream.unwrap(Effect.gen(function*() {
        const n = yield* Ref.updateAndGet(attempts, (k) => k + 1)
        if (n <= 2) return Stream.fail(new LinkError({ phase: "dial", reason: "not up yet" }))
        return Stream.concat(
          Stream.fromEffect(Ref.get(level)),
          Stream.fromEffect(Effect.as(Effect.sleep("30 millis"), 1))
        )
      }))
      const client: Client.AnyClient = {
        spec: Flaky,
        cells: { level: { read: Ref.get(level), subscribe } },
        collections: {},
        streams: {},
        events: {},
        procedures: {}
      }
      const layer = McpServer.layer({
        core: { surface: Flaky, expose: { cells: { level: true } } },
        client: Effect.succeed({ core: client, clients: {} }),
        resubscribe: Schedule.max([Schedule.spaced("10 millis"), Schedule.recurs(5)]),
        coalesce: "1 millis"
      })
      yield* Effect.gen(function*() {
        const c = yield* connectTo(yield* McpServer)
        yield* Effect.promise(() => c.client.subscribeResource({ uri: "surface://cells/level" }))
        assert.strictEqual(yield* Queue.take(c.updated), "surface://cells/level")
        assert.isAtLeast(yield* Ref.get(attempts), 3)
      }).pipe(Effect.provide(layer))
    }))
})
