// The raw SDK's Streamable HTTP peer, as its documentation builds one: node:http, a session table,
// and per session a `StreamableHTTPServerTransport` (SSE answers, the default) with its own SDK
// `Server` — never one shared across sessions. Used in a child process (throughput, memory) and
// in process (fan-out, which needs each session's server to send from).
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js"
import { randomUUID } from "node:crypto"
import * as http from "node:http"
import { makeRawServer } from "./workload.ts"

const readBody = (req: http.IncomingMessage): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      try {
        resolve(chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString("utf8")))
      } catch (error) {
        reject(error)
      }
    })
    req.on("error", reject)
  })

const jsonError = (res: http.ServerResponse, status: number, message: string) => {
  res.writeHead(status, { "content-type": "application/json" }).end(
    JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null })
  )
}

export interface RawHttp {
  readonly url: string
  /** The SDK server of every open session. */
  readonly servers: ReadonlySet<Server>
  readonly close: () => Promise<void>
}

export const serveRawHttp = async (
  options?: { readonly resources?: boolean; readonly tuned?: boolean }
): Promise<RawHttp> => {
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const servers = new Set<Server>()
  const node = http.createServer((req, res) => {
    void (async () => {
      const id = req.headers["mcp-session-id"]
      const sessionId = Array.isArray(id) ? id[0] : id
      if (req.method === "POST") {
        const body = await readBody(req)
        const existing = sessionId === undefined ? undefined : sessions.get(sessionId)
        if (existing !== undefined) return existing.handleRequest(req, res, body)
        if (sessionId !== undefined) return jsonError(res, 404, "Session not found")
        if (!isInitializeRequest(body)) return jsonError(res, 400, "Bad Request: no session")
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (opened) => {
            sessions.set(opened, transport)
          }
        })
        const server = makeRawServer(options)
        servers.add(server)
        transport.onclose = () => {
          servers.delete(server)
          if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
        }
        await server.connect(transport)
        return transport.handleRequest(req, res, body)
      }
      const existing = sessionId === undefined ? undefined : sessions.get(sessionId)
      if (existing === undefined) return jsonError(res, sessionId === undefined ? 400 : 404, "Session not found")
      return existing.handleRequest(req, res)
    })().catch((error: unknown) => {
      if (!res.headersSent) jsonError(res, 500, String(error))
    })
  })
  await new Promise<void>((resolve) => node.listen(0, "127.0.0.1", resolve))
  const address = node.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    servers,
    close: async () => {
      await Promise.all([...servers].map((server) => server.close().catch(() => undefined)))
      node.closeAllConnections()
      await new Promise<void>((resolve) => node.close(() => resolve()))
    }
  }
}
