// A round-robin HTTP proxy on loopback with no affinity: request n goes to backend n mod N,
// whatever session it names. A backend that refuses the connection (a killed instance) is skipped
// for the next, as a load balancer with health checks would; the Host header is passed through,
// so each instance checks the name the client used. Each request is recorded with the backend
// that answered it.
import { Effect } from "effect"
import type { Scope } from "effect"
import * as Http from "node:http"

export interface Served {
  readonly method: string
  readonly session: string | undefined
  readonly backend: number
}

export interface Proxy {
  readonly url: string
  readonly port: number
  /** Every request answered, in order of arrival. */
  readonly served: ReadonlyArray<Served>
}

const hopByHop = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection"])

const headersOf = (headers: Http.IncomingHttpHeaders): Http.OutgoingHttpHeaders =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !hopByHop.has(name)))

const readBody = (request: Http.IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.once("end", () => resolve(Buffer.concat(chunks)))
    request.once("error", reject)
  })

/**
 * Start a proxy in front of `backends` (each `http://127.0.0.1:PORT`), for the scope's life. The
 * list is read at each request, so instances told the proxy's address can be added once started.
 */
export const start = (backends: ReadonlyArray<string>, path = "/mcp"): Effect.Effect<Proxy, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<{ readonly proxy: Proxy; readonly server: Http.Server }>((resume) => {
      const served: Array<Served> = []
      const agent = new Http.Agent({ keepAlive: true, maxSockets: 256 })
      let next = 0
      const forward = (request: Http.IncomingMessage, response: Http.ServerResponse, body: Buffer, tries: number) => {
        const backend = next++ % backends.length
        const target = new URL(backends[backend]!)
        const outgoing = Http.request({
          agent,
          host: target.hostname,
          port: target.port,
          method: request.method,
          path: request.url ?? path,
          headers: { ...headersOf(request.headers), "content-length": String(body.length) }
        }, (answer) => {
          const session = request.headers["mcp-session-id"]
          served.push({
            method: request.method ?? "",
            session: typeof session === "string" ? session : undefined,
            backend
          })
          response.writeHead(answer.statusCode ?? 502, headersOf(answer.headers))
          response.flushHeaders()
          answer.pipe(response)
          answer.once("error", () => response.destroy())
        })
        // Retried only where nothing reached a backend: a connection refused, or a kept-alive one
        // the backend closed just as it was reused (the race Node's documentation says to retry).
        outgoing.once("error", (error: NodeJS.ErrnoException) => {
          const unsent = error.code === "ECONNREFUSED" || (outgoing.reusedSocket && error.code === "ECONNRESET")
          if (unsent && tries < 2 * backends.length && !response.headersSent)
            return forward(request, response, body, tries + 1)
          if (!response.headersSent) response.writeHead(502).end()
          else response.destroy()
        })
        response.once("close", () => outgoing.destroy())
        outgoing.end(body)
      }
      const server = Http.createServer((request, response) => {
        readBody(request).then((body) => forward(request, response, body, 0), () => response.destroy())
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        resume(Effect.succeed({ server, proxy: { url: `http://127.0.0.1:${port}${path}`, port, served } }))
      })
    }),
    ({ server }) =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ proxy }) => proxy))
