// The example's documented npm commands, run through npm as a process manager or a host runs them:
// whatever ends npm — a SIGTERM it passes on, or being killed outright — ends the server too, so no
// node process is left behind holding the port or the host's pipes.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))

/** The processes whose environment holds `marker`: npm and whatever it started. */
const processesMarked = (marker: string): ReadonlyArray<number> =>
  Fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).flatMap((pid) => {
    try {
      return Fs.readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(`ORPHAN_MARKER=${marker}`)
        ? [Number(pid)]
        : []
    } catch {
      return []
    }
  })

/**
 * `npm <args>` in the repository, marked, its stdin a FIFO this test holds open apart from npm (as a
 * host holds the pipe it gave), so npm's end does not close it; every process it left is killed, and
 * the FIFO removed, when the scope closes.
 */
const npm = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const marker = randomUUID()
      const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "npm-stdin-"))
      const fifo = Path.join(dir, "stdin")
      execFileSync("mkfifo", [fifo])
      const stdin = Fs.openSync(fifo, "r+")
      const { NODE_OPTIONS: _ignored, ...rest } = process.env
      const child = spawn("npm", args, {
        cwd: root,
        env: { ...rest, ...env, ORPHAN_MARKER: marker },
        stdio: [stdin, "pipe", "pipe"]
      })
      return { child, marker, stdin, dir }
    }),
    ({ dir, marker, stdin }) =>
      Effect.sync(() => {
        for (const pid of processesMarked(marker)) {
          try {
            process.kill(pid, "SIGKILL")
          } catch {
            // already gone
          }
        }
        Fs.closeSync(stdin)
        Fs.rmSync(dir, { recursive: true, force: true })
      })
  )

const printed = (child: ChildProcess, pattern: RegExp) =>
  Effect.callback<string>((resume) => {
    let out = ""
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const found = pattern.exec(out)
      if (found?.[1] !== undefined) resume(Effect.succeed(found[1]))
    })
  })

const accepts = (port: number) =>
  Effect.callback<boolean>((resume) => {
    const socket = Net.connect({ host: "127.0.0.1", port })
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.succeed(true))
    })
    socket.once("error", () => resume(Effect.succeed(false)))
  })

/** Waits (up to 10 s) until `check` holds. */
const eventually = (check: Effect.Effect<boolean>, what: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 100; i++) {
      if (yield* check) return
      yield* Effect.sleep("100 millis")
    }
    return yield* Effect.die(new Error(`still not so after 10 s: ${what}`))
  })

/** The initialize request a host sends first, as one stdio line. */
const initialize = `${
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "host", version: "1.0.0" } }
  })
}\n`

describe("the example's npm commands", () => {
  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    it.live(`npm start ended by ${signal} leaves nothing holding the port`, () =>
      Effect.gen(function*() {
        const { child, marker } = yield* npm(["start"], { PORT: "0" })
        const port = Number(yield* printed(child, /Task board MCP server at http:\/\/127\.0\.0\.1:(\d+)\//))
        assert.isTrue(yield* accepts(port))
        child.kill(signal)
        yield* eventually(Effect.map(accepts(port), (open) => !open), `the port ${port} is released`)
        yield* eventually(Effect.sync(() => processesMarked(marker).length === 0), "no process of the command is left")
      }), { timeout: 60_000 })
  }

  it.live(
    "npm start on a port another process holds says so in one line, and that PORT picks another",
    () =>
      Effect.gen(function*() {
        const taken = Net.createServer()
        yield* Effect.acquireRelease(
          Effect.callback<void>((resume) => {
            taken.listen(0, "127.0.0.1", () => resume(Effect.void))
          }),
          () => Effect.sync(() => taken.close())
        )
        const address = taken.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        const { child } = yield* npm(["-s", "start"], { PORT: String(port) })
        const [code, stderr] = yield* Effect.callback<readonly [number | null, string]>((resume) => {
          let err = ""
          child.stderr?.on("data", (chunk: Buffer) => {
            err += chunk.toString()
          })
          child.once("close", (status) => resume(Effect.succeed([status, err] as const)))
        })
        assert.strictEqual(code, 1)
        assert.strictEqual(
          stderr,
          `port ${port} on 127.0.0.1 is already in use by another process, so the MCP server cannot listen there. ` +
            `PORT picks another: PORT=${port + 1} npm start (PORT=0: any free one).\n`
        )
      }),
    { timeout: 60_000 }
  )

  for (const script of ["stdio", "acp"]) {
    it.live(
      `npm -s run ${script} killed outright by its host ends its server, though its stdin is still open`,
      () =>
        Effect.gen(function*() {
          const { child, marker, stdin } = yield* npm(["-s", "run", script])
          // Up and answering (the ACP agent refuses an MCP initialize, which is answer enough).
          Fs.writeSync(stdin, initialize)
          yield* printed(child, /("jsonrpc")/)
          child.kill("SIGKILL")
          yield* eventually(
            Effect.sync(() => processesMarked(marker).length === 0),
            "no process of the command is left"
          )
        }),
      { timeout: 60_000 }
    )
  }
})
