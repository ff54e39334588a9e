// The SDK v2 peer for a 2026-07-28 request over Streamable HTTP, as that SDK documents serving it:
// `createMcpHandler` with a factory that builds one `McpServer` per request, adapted to node:http by
// `toNodeHandler`, behind the localhost `Host` and `Origin` checks (the handler checks neither; ours
// does, so the peer pays for them too). The tool does the workload's work: its arguments and its
// answer checked by zod schemas (built once, outside the factory: the cheapest a user can write it),
// the same implementation, the same framing (JSON text plus `structuredContent`).
import {
  localhostHostValidation,
  localhostOriginValidation,
  type NodeIncomingMessageLike,
  toNodeHandler
} from "@modelcontextprotocol/node"
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server"
import * as http from "node:http"
import * as z from "zod/v4"
import { DESCRIPTION, say, TOOL } from "./workload.ts"

const input = z.object({ text: z.string() })
const output = z.object({ text: z.string() })

export interface SdkV2Http {
  readonly url: string
  readonly close: () => Promise<void>
}

export const serveSdkV2Http = async (): Promise<SdkV2Http> => {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "echo-sdk-v2", version: "0.0.0" })
    server.registerTool(
      TOOL,
      {
        description: DESCRIPTION,
        inputSchema: input,
        outputSchema: output,
        annotations: { readOnlyHint: true, destructiveHint: false }
      },
      (args) => {
        const out = say(args)
        return { content: [{ type: "text", text: JSON.stringify(out) }], structuredContent: out }
      }
    )
    return server
  })
  const node = toNodeHandler(handler)
  const validHost = localhostHostValidation()
  const validOrigin = localhostOriginValidation()
  const server = http.createServer((req, res) => {
    if (!validHost(req, res) || !validOrigin(req, res)) return
    // Node's `method` is optional only until a request arrives.
    void node(req as NodeIncomingMessageLike, res)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      await handler.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
