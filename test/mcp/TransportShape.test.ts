// A server is served on any SDK's transport through this package's own `McpTransport.Transport`: the
// 1.x SDK's and the v2 SDK's transports are each one as they are (checked by the compiler where they
// are assigned below), and a client of either SDK is answered through them.
import { assert, describe, it } from "@effect/vitest"
import { Client as ClientV2, InMemoryTransport as InMemoryV2 } from "@modelcontextprotocol/client"
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport as InMemoryV1 } from "@modelcontextprotocol/sdk/inMemory.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { Effect } from "effect"
import { PassThrough } from "node:stream"
import { McpConnection, McpFace } from "effect-surface/mcp"
import type { McpTransport } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"

const named = (tools: ReadonlyArray<{ readonly name: string }>) => tools.map((tool) => tool.name).sort()

describe("McpTransport.Transport", () => {
  it.effect("a 1.x SDK transport is served as it is and a 1.x client is answered through it", () =>
    Effect.gen(function*() {
      const face = yield* McpFace.make(yield* serverOptions)
      const [clientSide, serverSide] = InMemoryV1.createLinkedPair()
      const transport: McpTransport.Transport = serverSide
      const connection = yield* McpConnection.connect(face, transport)
      const client = new ClientV1({ name: "v1-host", version: "1.0.0" })
      yield* Effect.promise(() => client.connect(clientSide))
      const tools = yield* Effect.promise(() => client.listTools())
      assert.include(named(tools.tools), "tasks_add")
      assert.strictEqual(yield* connection.era, "2025-11-25")
      yield* Effect.promise(() => client.close())
    }).pipe(Effect.scoped))

  it.effect("a v2 SDK transport is served as it is and a v2 client on 2026-07-28 is answered through it", () =>
    Effect.gen(function*() {
      const face = yield* McpFace.make(yield* serverOptions)
      const [clientSide, serverSide] = InMemoryV2.createLinkedPair()
      const transport: McpTransport.Transport = serverSide
      const connection = yield* McpConnection.connect(face, transport)
      const client = new ClientV2({ name: "v2-host", version: "1.0.0" }, {
        versionNegotiation: { mode: { pin: "2026-07-28" } }
      })
      yield* Effect.promise(() => client.connect(clientSide))
      const tools = yield* Effect.promise(() => client.listTools())
      assert.include(named(tools.tools), "tasks_add")
      assert.strictEqual(yield* connection.era, "2026-07-28")
      yield* Effect.promise(() => client.close())
    }).pipe(Effect.scoped))

  it("the 1.x SDK's stdio transport is a transport as it is", () => {
    // The assignment is the check: the compiler refuses it if the shapes part.
    const transport: McpTransport.Transport = new StdioServerTransport(new PassThrough(), new PassThrough())
    assert.isFunction(transport.start)
  })
})
