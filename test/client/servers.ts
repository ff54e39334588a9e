// The real MCP servers the client toolset is tested against, and the loopback plumbing around them:
// free ports, server-everything over Streamable HTTP and SSE as child processes, a recording proxy
// that sees every request a server receives, and a count of this process's children.
import { Effect } from "effect"
import type { Scope } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import { createRequire } from "node:module"
import * as Net from "node:net"
import type { AddressInfo } from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import type { McpConfig } from "effect-surface/client"

const require = createRequire(import.meta.url)

/** The entry script of one of the reference servers installed as dev dependencies. */
export const entry = (name: "server-everything" | "server-filesystem" | "server-memory"): string =>
  require.resolve(`@modelcontextprotocol/${name}/dist/index.js`)

export const everythingStdio = (name = "everything"): McpConfig.Stdio => ({
  name,
  type: "stdio",
  command: process.execPath,
  args: [entry("server-everything"), "stdio"]
})

export const memoryStdio = (file: string, name = "memory"): McpConfig.Stdio => ({
  name,
  type: "stdio",
  command: process.execPath,
  args: [entry("server-memory")],
  env: { MEMORY_FILE_PATH: file }
})

export const filesystemStdio = (dirs: ReadonlyArray<string>, name = "files"): McpConfig.Stdio => ({
  name,
  type: "stdio",
  command: process.execPath,
  args: [entry("server-filesystem"), ...dirs]
})

/** A fresh directory under the system temp dir, removed when the scope closes. */
export const tempDir: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => Fs.realpathSync(Fs.mkdtempSync(Path.join(Os.tmpdir(), "toolset-")))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

export const freePort: Effect.Effect<number> = Effect.callback<number>((resume) => {
  const server = Net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = Net.connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

const exited = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())
  )

/** server-everything over HTTP (`streamableHttp` or `sse`) on a free loopback port, killed when the scope closes. */
export const everythingHttp = (mode: "streamableHttp" | "sse") =>
  Effect.gen(function*() {
    const port = yield* freePort
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(process.execPath, [entry("server-everything"), mode], {
          env: { ...process.env, PORT: String(port) },
          stdio: "ignore"
        })
      ),
      (child) => Effect.promise(() => (child.kill("SIGKILL"), exited(child)))
    )
    // Bounded: up to ~15 s for the child to listen.
    for (let i = 0; i < 300 && !(yield* Effect.promise(() => accepts(port))); i++) yield* pause(50)
    const path = mode === "sse" ? "/sse" : "/mcp"
    return { port, child, url: `http://127.0.0.1:${port}${path}` }
  })

export interface Recorded {
  readonly method: string
  readonly url: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

/**
 * A loopback HTTP proxy in front of `target` (an origin): every request it forwards is recorded
 * with its headers and body, and `open` counts the responses still streaming (SSE). A request
 * `hold` picks is recorded and left unanswered; one `cut` picks is recorded and its connection
 * closed unanswered, as a server closing a kept-alive socket the request arrived on.
 */
export const recordingProxy = (
  target: string,
  options?: {
    readonly hold?: (request: Recorded) => boolean
    readonly cut?: (request: Recorded) => boolean
  }
) =>
  Effect.gen(function*() {
    const requests: Array<Recorded> = []
    let open = 0
    const upstream = new URL(target)
    const server = Http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const body = Buffer.concat(chunks)
        const recorded = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: body.toString() }
        requests.push(recorded)
        // A held request is never forwarded nor answered: the server seems to hang.
        if (options?.hold?.(recorded) === true) return
        if (options?.cut?.(recorded) === true) return void req.socket.destroy()
        const forwarded = Http.request({
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host }
        }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          open++
          let counted = true
          const done = () => {
            if (counted) open--
            counted = false
          }
          answer.pipe(res)
          answer.once("end", done)
          res.once("close", () => {
            done()
            answer.destroy()
          })
        })
        forwarded.once("error", () => res.destroy())
        forwarded.end(body)
      })
    })
    const port = yield* Effect.acquireRelease(
      Effect.callback<number>((resume) => {
        server.listen(0, "127.0.0.1", () => {
          const address = server.address()
          resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
        })
      }),
      () =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    return {
      origin: `http://127.0.0.1:${port}`,
      port,
      requests,
      open: () => open,
      bodies: (method: string) => requests.filter((r) => r.body.includes(`"method":"${method}"`))
    }
  })

/** A listening socket that only counts the connections made to it. */
export const countingSocket = Effect.gen(function*() {
  let connections = 0
  const server = Net.createServer((socket) => {
    connections++
    socket.destroy()
  })
  const port = yield* Effect.acquireRelease(
    Effect.callback<number>((resume) => {
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
      })
    }),
    () => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))
  )
  return { port, connections: () => connections }
})

/** The pids of this process's live children whose command line mentions `marker`. */
export const childrenMentioning = (marker: string): ReadonlyArray<number> =>
  Fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name)).flatMap((name) => {
    try {
      const stat = Fs.readFileSync(`/proc/${name}/stat`, "utf8")
      // Fields after the parenthesised command: state, ppid, …
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      if (Number(ppid) !== process.pid || state === "Z") return []
      const cmdline = Fs.readFileSync(`/proc/${name}/cmdline`, "utf8")
      return cmdline.includes(marker) ? [Number(name)] : []
    } catch {
      return [] // gone meanwhile
    }
  })

/** Real time passing, under TestClock too (for waiting on real I/O). */
export const pause = (ms: number): Effect.Effect<void> =>
  Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

/** Wait (bounded, ~10 s of real time) until `check` holds. */
export const eventually = (check: () => boolean, what: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 200 && !check(); i++) yield* pause(50)
    if (!check()) return yield* Effect.die(new Error(`timed out waiting until ${what}`))
  })

/** A loopback HTTP server that answers every request with a redirect to `to(path)`, counting them. */
export const redirector = (to: (path: string) => string, status = 307) =>
  Effect.gen(function*() {
    let served = 0
    const server = Http.createServer((req, res) => {
      served++
      req.resume()
      res.writeHead(status, { location: to(req.url ?? "/") })
      res.end()
    })
    const port = yield* Effect.acquireRelease(
      Effect.callback<number>((resume) => {
        server.listen(0, "127.0.0.1", () => {
          const address = server.address()
          resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
        })
      }),
      () =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    return { port, origin: `http://127.0.0.1:${port}`, served: () => served }
  })

/**
 * A plain Node HTTP server on a free loopback port for the scope's life, each request given to
 * `handler` (a throw or rejection answers 500): its origin, `http://127.0.0.1:<port>`.
 */
export const listen = (
  handler: (req: Http.IncomingMessage, res: Http.ServerResponse) => unknown
): Effect.Effect<string, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<Http.Server>((resume) => {
      const server = Http.createServer((req, res) => {
        Promise.resolve()
          .then(() => handler(req, res))
          .catch(() => res.headersSent || res.writeHead(500).end())
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`))
