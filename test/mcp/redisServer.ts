// A real Redis for a test: `redis-server` started on a free loopback port with persistence off,
// in a directory of its own, and stopped (the directory removed) when the scope closes.
import { NodeRedis } from "@effect/platform-node"
import { Deferred, Effect, Exit, Layer } from "effect"
import type { Scope } from "effect"
import type * as Redis from "effect/persistence/Redis"
import { McpHttpRedis } from "effect-surface/mcp"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"

export interface RedisServer {
  readonly port: number
  readonly url: string
  /** Stop it now (a test of what an unreachable Redis does); the scope's end then has nothing left to stop. */
  readonly stop: Effect.Effect<void>
}

const freePort = Effect.callback<number>((resume) => {
  const probe = Net.createServer()
  probe.listen(0, "127.0.0.1", () => {
    const address = probe.address()
    probe.close(() => resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0)))
  })
})

const missing =
  "redis-server is not installed: `apt-get update && apt-get install -y redis-server` (.ci/run installs it)"

const stopChild = (child: ChildProcess.ChildProcess) =>
  Effect.callback<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
    child.kill("SIGTERM")
  })

/** Start a Redis for the scope's life. */
export const start: Effect.Effect<RedisServer, never, Scope.Scope> = Effect.gen(function*() {
  const port = yield* freePort
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "effect-surface-redis-"))),
    (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  )
  const ready = yield* Deferred.make<void, string>()
  const child = yield* Effect.acquireRelease(
    Effect.sync(() => {
      const child = ChildProcess.spawn(
        "redis-server",
        ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no", "--dir", dir],
        { stdio: ["ignore", "pipe", "pipe"] }
      )
      let output = ""
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString()
        if (output.includes("Ready to accept connections")) Deferred.doneUnsafe(ready, Exit.void)
      })
      child.once("error", () => Deferred.doneUnsafe(ready, Exit.fail(missing)))
      child.once(
        "exit",
        (code) => Deferred.doneUnsafe(ready, Exit.fail(`redis-server exited (${code}) before it was ready:\n${output}`))
      )
      return child
    }),
    (child) => stopChild(child)
  )
  yield* Deferred.await(ready).pipe(Effect.timeout("10 seconds"), Effect.orDie)
  return { port, url: `redis://127.0.0.1:${port}`, stop: stopChild(child) }
})

/** The `Redis` service on a Redis of the test's own. */
export const layer: Layer.Layer<NodeRedis.NodeRedis | Redis.Redis> = Layer.unwrap(
  Effect.map(start, (server) => NodeRedis.layer({ url: server.url }))
).pipe(Layer.orDie)

/**
 * One MCP instance's sessions shared in the Redis at `url` under `prefix`, built in `scope`: the
 * instance's own, so that stopping it drops its connection (not `serve`'s, which answers once listening).
 */
export const sharedSessions = (url: string, prefix: string, scope: Scope.Scope) =>
  Layer.buildWithScope(
    McpHttpRedis.layer({ prefix, heartbeat: "200 millis" }).pipe(
      Layer.provide(NodeRedis.layer({ url, disableOfflineQueue: true }))
    ),
    scope
  )
