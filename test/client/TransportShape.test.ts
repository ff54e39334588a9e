// A client toolset reaches a server over any SDK's client transport through this package's own
// `McpTransport.Transport`: `McpTransports.OpenTransport` returns one, and the 1.x SDK's and the v2
// SDK's client transports are each one as they are (checked by the compiler where they are assigned
// below). A toolset calls the board through a transport of each SDK.
import { assert, describe, it } from "@effect/vitest"
import {
  InMemoryTransport as InMemoryV2,
  SSEClientTransport as SseV2,
  StreamableHTTPClientTransport as StreamableHttpV2
} from "@modelcontextprotocol/client"
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio"
import { SSEClientTransport as SseV1 } from "@modelcontextprotocol/sdk/client/sse.js"
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport as StreamableHttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { InMemoryTransport as InMemoryV1 } from "@modelcontextprotocol/sdk/inMemory.js"
import { Effect } from "effect"
import { McpCallResult, McpToolset, type McpTransports } from "effect-surface/client"
import { McpConnection, McpFace, McpHttp, type McpTransport } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"

const url = new URL("http://127.0.0.1:1/mcp")

describe("the client's transports, named by McpTransport.Transport", () => {
  it("every client transport of either SDK is one as it is, and is what an OpenTransport returns", () => {
    // The assignments are the check: the compiler refuses any whose shape parts from ours.
    const transports: ReadonlyArray<McpTransport.Transport> = [
      new StdioV1({ command: "true" }),
      new StreamableHttpV1(url),
      new SseV1(url),
      InMemoryV1.createLinkedPair()[0],
      new StdioV2({ command: "true" }),
      new StreamableHttpV2(url),
      new SseV2(url),
      InMemoryV2.createLinkedPair()[0]
    ]
    const opens: ReadonlyArray<McpTransports.OpenTransport> = transports.map((transport) => () => transport)
    const child: McpTransports.StdioTransport = new StdioV1({ command: "true", stderr: "pipe" })
    assert.lengthOf(opens, 8)
    assert.isNotNull(child.stderr)
  })

  it.live("a toolset calls the board over a v2 SDK's Streamable HTTP transport its entry opens", () =>
    Effect.gen(function*() {
      const served = yield* McpHttp.serve({ ...(yield* serverOptions), http: { port: 0 } })
      const toolset = yield* McpToolset.make([{
        name: "board",
        type: "transport",
        open: () => new StreamableHttpV2(new URL(served.url))
      }])
      const added = yield* toolset.call("board__tasks_add", { title: "over a v2 transport" })
      assert.match(McpCallResult.textOf(added), /"id":"t\d+"/)
    }))

  it.live("a toolset calls the board over a 1.x SDK's in-memory transport its entry opens", () =>
    Effect.gen(function*() {
      const face = yield* McpFace.make(yield* serverOptions)
      const [clientSide, serverSide] = InMemoryV1.createLinkedPair()
      yield* McpConnection.connect(face, serverSide)
      const toolset = yield* McpToolset.make([{ name: "board", type: "transport", open: () => clientSide }])
      const added = yield* toolset.call("board__tasks_add", { title: "over a 1.x transport" })
      assert.match(McpCallResult.textOf(added), /"id":"t\d+"/)
    }))
})
