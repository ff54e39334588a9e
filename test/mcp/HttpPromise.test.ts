// The Promise API's HTTP door, driven by the official SDK client over real loopback HTTP.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect, Ref } from "effect"
import * as Net from "node:net"
import * as Util from "node:util"
import { serveSurfaceAsMcp } from "effect-surface/mcp"
import { Board, boardExpose, makeClients, Stopwatch, stopwatchExpose } from "../../examples/board/app.ts"

const connect = (url: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "promise-http-host", version: "1.0.0" })
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

const toolNames = (client: Client) =>
  Effect.promise(() => client.listTools()).pipe(Effect.map((listed) => listed.tools.map((t) => t.name)))

/** Whether anything accepts a TCP connection on the port (a refused connect answers false). */
const listening = (port: number) =>
  Effect.callback<boolean>((resume) => {
    const socket = Net.connect({ host: "127.0.0.1", port })
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.succeed(true))
    })
    socket.once("error", () => resume(Effect.succeed(false)))
  })

describe("the Promise API over Streamable HTTP", () => {
  it.live("serveSurfaceAsMcp resolves once listening with the bound port and URL, serves SDK clients there, moves its roster, and close stops it", () =>
    Effect.gen(function*() {
      const { clients } = yield* makeClients
      const disposed = yield* Ref.make(0)
      const served = yield* Effect.promise(() =>
        serveSurfaceAsMcp({
          core: { surface: Board, expose: boardExpose },
          surfaces: { stopwatch: { surface: Stopwatch, expose: stopwatchExpose } },
          client: async () => ({ client: clients, dispose: () => Effect.runSync(Ref.update(disposed, (n) => n + 1)) }),
          instructions: () => "a board over HTTP",
          transport: { transport: "http", port: 0, host: "127.0.0.1" }
        })
      )
      assert.isAbove(served.port, 0)
      assert.strictEqual(served.host, "127.0.0.1")
      assert.strictEqual(served.url, `http://127.0.0.1:${served.port}/mcp`)

      // Connected at once, with no wait: the promise resolved only once the port was listening.
      const a = yield* connect(served.url)
      const b = yield* connect(served.url)
      assert.strictEqual(a.getInstructions(), "a board over HTTP")
      const lap = yield* Effect.promise(() => a.callTool({ name: "stopwatch_watch_lap", arguments: {} }))
      assert.deepStrictEqual(lap.structuredContent, { value: 1 })
      assert.include(yield* toolNames(b), "stopwatch_watch_lap")

      // A roster move through the handle is seen by every session.
      yield* Effect.promise(() => served.reroster({}))
      assert.notInclude(yield* toolNames(a), "stopwatch_watch_lap")
      assert.notInclude(yield* toolNames(b), "stopwatch_watch_lap")
      const refused = yield* Effect.flip(
        Effect.tryPromise(() => served.reroster({ tasks: { surface: Stopwatch, expose: {} } }))
      )
      assert.include(String(refused.cause), "tasks")

      yield* Effect.promise(() => served.close())
      yield* Effect.promise(() => served.closed)
      assert.strictEqual(yield* Ref.get(disposed), 1)
      assert.isFalse(yield* listening(served.port))
      // A second close is the same close.
      yield* Effect.promise(() => served.close())
    }))

  it.live("a port already taken (PortInUse, a sentence naming the port), or a bundle the resolver refuses, rejects with the reason, and every connection the factory opened is disposed", () =>
    Effect.gen(function*() {
      const { clients } = yield* makeClients
      const opened = yield* Ref.make(0)
      const disposed = yield* Ref.make(0)
      const client = async () => {
        Effect.runSync(Ref.update(opened, (n) => n + 1))
        return { client: clients, dispose: () => Effect.runSync(Ref.update(disposed, (n) => n + 1)) }
      }
      const taken = yield* Effect.acquireRelease(
        Effect.callback<Net.Server>((resume) => {
          const server = Net.createServer()
          server.listen(0, "127.0.0.1", () => {
            resume(Effect.succeed(server))
          })
        }),
        (server) =>
          Effect.callback<void>((resume) => {
            server.close(() => resume(Effect.void))
          })
      )
      const address = taken.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      const busy = yield* Effect.flip(
        Effect.tryPromise(() =>
          serveSurfaceAsMcp({
            core: { surface: Board, expose: boardExpose },
            client,
            transport: { transport: "http", port, host: "127.0.0.1" }
          })
        )
      )
      // The refusal alone, as its sentence: Node's EADDRINUSE says no more and is not carried.
      assert.notInclude(Util.inspect(busy.cause), "EADDRINUSE")
      assert.strictEqual(
        (busy.cause as Error).message,
        `port ${port} on 127.0.0.1 is already in use by another process, so the MCP server cannot listen there: stop that process, or choose another port (port 0 takes any free one)`
      )

      const refused = yield* Effect.flip(Effect.tryPromise(() =>
        serveSurfaceAsMcp({
          core: { surface: Board, expose: boardExpose },
          surfaces: { "not a key": { surface: Stopwatch, expose: stopwatchExpose } },
          client,
          transport: { transport: "http", port: 0, host: "127.0.0.1" }
        })
      ))
      assert.include(String(refused.cause), "not a key")
      assert.strictEqual(yield* Ref.get(disposed), yield* Ref.get(opened))
    }))
})
