// A port another process holds, in a user's own app: the library's refusal is one sentence with the
// way out, whether an Effect program run by `runMain` logs it or a Promise caller's unhandled
// rejection prints it; an Effect caller can catch it by class and read the port.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { McpHttp } from "effect-surface/mcp"
import * as ChildProcess from "node:child_process"
import * as Net from "node:net"
import { fileURLToPath } from "node:url"
import { serverOptions } from "../../examples/board/app.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))

/** A port held by another server for the scope's life. */
const heldPort = Effect.acquireRelease(
  Effect.callback<Net.Server>((resume) => {
    const server = Net.createServer()
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
  }),
  (server) => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))
).pipe(Effect.map((server) => (server.address() as Net.AddressInfo).port))

/** Run an example with PORT set; its exit code and all it printed (Effect's logger writes to stdout). */
const run = (example: string, port: number) =>
  Effect.callback<{ readonly code: number | null; readonly printed: string }>((resume) => {
    const child = ChildProcess.spawn(process.execPath, ["--conditions=effect-surface-source", example], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1", PORT: String(port) }
    })
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.once("exit", (code) => resume(Effect.succeed({ code, printed: stderr })))
    return Effect.sync(() => void child.kill("SIGKILL"))
  })

const sentence = (port: number) =>
  `port ${port} on 127.0.0.1 is already in use by another process, so the MCP server cannot listen there: stop that process, or choose another port (port 0 takes any free one)`

describe("a port already in use", () => {
  it.live("an Effect program run by runMain prints the refusal as one line and exits 1", () =>
    Effect.gen(function*() {
      const port = yield* heldPort
      const { code, printed: stderr } = yield* run("examples/serve/http.ts", port)
      assert.strictEqual(code, 1)
      const lines = stderr.split("\n").filter((line) => line.trim() !== "")
      assert.lengthOf(lines, 1, stderr)
      assert.include(lines[0], `PortInUse: ${sentence(port)}`)
    }).pipe(Effect.scoped), { timeout: 60_000 })

  it.live(
    "a Promise caller's unhandled rejection is the sentence alone, with no stack and no cause",
    () =>
      Effect.gen(function*() {
        const port = yield* heldPort
        const { code, printed: stderr } = yield* run("examples/serve/http-promise.ts", port)
        assert.strictEqual(code, 1)
        assert.include(stderr, `[PortInUse: ${sentence(port)}]`)
        assert.notMatch(stderr, /^\s+at /m, "no stack frames")
        assert.notInclude(stderr, "EADDRINUSE")
        assert.notInclude(stderr, "_tag")
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live("an Effect caller catches it by class, with the host and port it asked for", () =>
    Effect.gen(function*() {
      const port = yield* heldPort
      const options = yield* serverOptions
      const error = yield* Effect.flip(McpHttp.serve({ ...options, http: { port } }))
      assert.instanceOf(error, McpHttp.PortInUse)
      if (!(error instanceof McpHttp.PortInUse)) return
      assert.strictEqual(error.port, port)
      assert.strictEqual(error.host, "127.0.0.1")
      assert.strictEqual(error.message, sentence(port))
      assert.strictEqual(error._tag, "ServeError")
    }).pipe(Effect.scoped), { timeout: 60_000 })
})
