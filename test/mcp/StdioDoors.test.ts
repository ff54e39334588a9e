// Both doors over stdio take one path: nothing but protocol on stdout (a handler's console.log goes
// to stderr), and the end of stdin ends the session and disposes what it held. Checked on the
// Promise API in a real child process, byte for byte, since an in-process test cannot see stdout.
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit } from "effect"
import * as ChildProcess from "node:child_process"
import { fileURLToPath } from "node:url"
import { serveSurfaceAsMcp } from "effect-surface/mcp"

const root = fileURLToPath(new URL("../..", import.meta.url))

interface Child {
  readonly send: (message: unknown) => void
  /** The first stdout message answering request `id`. */
  readonly answer: (id: number) => Effect.Effect<unknown>
  readonly lines: ReadonlyArray<string>
  readonly stderr: () => string
  readonly exited: Deferred.Deferred<number | null>
  readonly stdin: NodeJS.WritableStream
}

/** Start the Promise API's stdio server as a child process, killed at the end of the test if still alive. */
const start = Effect.acquireRelease(
  Effect.gen(function*() {
    const child = ChildProcess.spawn(process.execPath, [
      "--conditions=effect-surface-source",
      "test/mcp/promise-stdio-server.ts"
    ], {
      cwd: root,
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" }
    })
    const exited = yield* Deferred.make<number | null>()
    child.once("exit", (code) => Deferred.doneUnsafe(exited, Exit.succeed(code)))
    const lines: Array<string> = []
    const waiting = new Map<number, Deferred.Deferred<unknown>>()
    let buffer = ""
    child.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString()
      let at = buffer.indexOf("\n")
      while (at >= 0) {
        const line = buffer.slice(0, at)
        buffer = buffer.slice(at + 1)
        lines.push(line)
        try {
          const message = JSON.parse(line) as { readonly id?: unknown }
          const deferred = typeof message.id === "number" ? waiting.get(message.id) : undefined
          if (deferred !== undefined) Deferred.doneUnsafe(deferred, Exit.succeed(message))
        } catch {
          // Not JSON: kept in `lines`, where the test finds it.
        }
        at = buffer.indexOf("\n")
      }
    })
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const answer = (id: number) =>
      Effect.suspend(() => {
        const deferred = Deferred.makeUnsafe<unknown>()
        waiting.set(id, deferred)
        return Deferred.await(deferred)
      })
    const result: Child = {
      send: (message) => child.stdin.write(`${JSON.stringify(message)}\n`),
      answer,
      lines,
      stderr: () => stderr,
      exited,
      stdin: child.stdin
    }
    return { child, result }
  }),
  ({ child }) =>
    Effect.sync(() => child.exitCode === null && child.signalCode === null ? void child.kill("SIGKILL") : undefined)
)

describe("serving over stdio", () => {
  it.live(
    "the Promise API keeps stdout for protocol alone and ends, disposing its connection, when its host closes stdin",
    () =>
      Effect.gen(function*() {
        const { result: child } = yield* start
        const initialized = child.answer(1)
        child.send({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "stdio-doors", version: "1.0.0" }
          }
        })
        yield* initialized.pipe(Effect.timeout("20 seconds"))
        child.send({ jsonrpc: "2.0", method: "notifications/initialized" })
        const called = child.answer(2)
        child.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "shout", arguments: {} } })
        const answer = (yield* called.pipe(Effect.timeout("10 seconds"))) as {
          readonly result?: { readonly isError?: boolean }
        }
        assert.notStrictEqual(answer.result?.isError, true)

        // The host closes our stdin: the process must end on its own, well before anyone kills it.
        child.stdin.end()
        const code = yield* Deferred.await(child.exited).pipe(Effect.timeout("5 seconds"), Effect.option)
        assert.isTrue(code._tag === "Some", `the server outlived its stdin; stderr:\n${child.stderr()}`)

        for (const line of child.lines) {
          const parsed = yield* Effect.option(Effect.try(() => JSON.parse(line) as { readonly jsonrpc?: unknown }))
          assert.isTrue(parsed._tag === "Some" && parsed.value.jsonrpc === "2.0", `not protocol on stdout: ${line}`)
        }
        assert.include(child.stderr(), "shouted from a handler")
        assert.include(child.stderr(), "connection disposed")
      }),
    { timeout: 60_000 }
  )

  it.live("a bundle the Promise API refuses over stdio rejects, and leaves the console as it found it", () =>
    Effect.gen(function*() {
      const saved = { log: console.log, info: console.info, debug: console.debug }
      // Neither a core nor a sibling: refused while booting, after the console was redirected.
      const refused = yield* Effect.flip(
        Effect.tryPromise(() => serveSurfaceAsMcp({ client: () => ({ clients: {} }) }))
      )
      assert.include(String(refused.cause), "neither a core nor a sibling")
      assert.strictEqual(console.log, saved.log)
      assert.strictEqual(console.info, saved.info)
      assert.strictEqual(console.debug, saved.debug)
    }))
})
