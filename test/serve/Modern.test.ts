// The small faces speak MCP 2026-07-28 as the MCP face does, driven by the official v2 client:
// serveTools over Streamable HTTP and over stdio (a real child process), and the guard in front of
// the real server-everything.
import { assert, describe, it } from "@effect/vitest"
import { InMemoryTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Effect, Layer } from "effect"
import { McpHttp, McpServer } from "effect-surface/mcp"
import { serveTools } from "effect-surface/serve"
import { Guard, GuardFile, GuardServe } from "effect-surface/guard"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { serverOptions } from "../../examples/board/app.ts"
import { connect, contentOf, overHttp } from "../mcp/modern.ts"
import { fixture } from "./guardFixture.ts"
import { echo } from "./shop.ts"

const root = fileURLToPath(new URL("../../", import.meta.url))

describe("the small faces in the 2026 era", () => {
  it.live(
    "serveTools over Streamable HTTP answers a 2026 client and a 2025 client alike",
    () =>
      Effect.gen(function*() {
        const served = yield* Effect.acquireRelease(
          Effect.promise(() => serveTools([echo], { transport: { transport: "http", port: 0, host: "127.0.0.1" } })),
          (handle) => Effect.promise(() => handle.close())
        )
        const modern = yield* overHttp(served.url, "auto")
        const legacy = yield* overHttp(served.url, "legacy")
        assert.strictEqual(modern.getProtocolEra(), "modern")
        const said = { name: "echo", arguments: { text: "hello" } }
        assert.deepStrictEqual(
          contentOf(yield* Effect.promise(() => modern.callTool(said))),
          contentOf(yield* Effect.promise(() => legacy.callTool(said)))
        )
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )

  it.live("serveTools over stdio answers a 2026 client", () =>
    Effect.gen(function*() {
      const client = yield* connect(
        new StdioClientTransport({
          command: process.execPath,
          args: ["--conditions=effect-surface-source", "test/serve/stdio-tools.ts"],
          cwd: root,
          stderr: "ignore"
        }),
        "pin"
      )
      const { tools } = yield* Effect.promise(() => client.listTools())
      assert.include(tools.map((tool) => tool.name), "echo")
      const said = yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { text: "over stdio" } }))
      assert.include(JSON.stringify(contentOf(said)), "over stdio")
    }).pipe(Effect.scoped), { timeout: 60_000 })

  it.live("the guard serves its granted tools to a 2026 client, and refuses the rest", () =>
    Effect.gen(function*() {
      const f = yield* fixture()
      yield* Effect.flatMap(GuardFile.read(f.guardFile), (file) => Guard.lock(file))
      const context = yield* Layer.build(GuardServe.layer().pipe(Layer.provideMerge(Guard.layerFile(f.guardFile))))
      const server = yield* Effect.provideContext(Effect.service(McpServer), context)
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      yield* server.connect(serverSide)
      const client = yield* connect(clientSide, "pin")
      const { tools } = yield* Effect.promise(() => client.listTools())
      assert.deepStrictEqual(tools.map((tool) => tool.name).sort(), ["echo", "get-structured-content", "get-sum"])
      const echoed = yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { message: "guarded" } }))
      assert.include(JSON.stringify(contentOf(echoed)), "guarded")
      const over = yield* Effect.promise(() => client.callTool({ name: "get-sum", arguments: { a: 11, b: 1 } }))
      assert.isTrue(over.isError === true)
    }).pipe(Effect.scoped), { timeout: 60_000 })
})

describe("a guard in front of an HTTP upstream on this machine", () => {
  it.live(
    "reaches the upstream the guard file names, though no allowedHosts names its loopback host",
    () =>
      Effect.gen(function*() {
        const upstream = yield* McpHttp.serve({ ...(yield* serverOptions), http: { port: 0 } })
        const dir = yield* Effect.acquireRelease(
          Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "guard-http-"))),
          (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
        )
        const guardFile = Path.join(dir, "guard.json")
        Fs.writeFileSync(
          guardFile,
          JSON.stringify({
            upstream: { name: "board", type: "streamable-http", url: upstream.url },
            grants: { tasks_add: true },
            lock: "guard.lock.json",
            audit: "audit.jsonl"
          })
        )
        yield* Effect.flatMap(GuardFile.read(guardFile), (file) => Guard.lock(file))
        const context = yield* Layer.build(Guard.layerFile(guardFile))
        const guard = yield* Effect.provideContext(Effect.service(Guard.Guard), context)
        assert.deepStrictEqual(guard.tools.map((tool) => tool.name), ["tasks_add"])
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
