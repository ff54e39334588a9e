// Redis going away and coming back empty under two instances of the example board (examples/main.ts
// with REDIS_URL): each instance says so once when it goes and once when it is back — a sentence per
// change, not a stack trace per reconnect attempt — and the board then follows what the store holds:
// no stale task served from memory, and no id handed out again.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Deferred, Effect, Exit } from "effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import * as Instances from "./cluster/instances.ts"

const freePort = Effect.callback<number>((resume) => {
  const probe = Net.createServer()
  probe.listen(0, "127.0.0.1", () => {
    const address = probe.address()
    probe.close(() => resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0)))
  })
})

/** A Redis on `port`, empty and unpersisted, until `stop` or the scope's end. */
const redisOn = (port: number) =>
  Effect.gen(function*() {
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
        child.once("exit", (code) => Deferred.doneUnsafe(ready, Exit.fail(`redis-server exited (${code}): ${output}`)))
        return child
      }),
      (child) => stopped(child)
    )
    yield* Deferred.await(ready).pipe(Effect.timeout("10 seconds"), Effect.orDie)
    return { stop: stopped(child) }
  })

const stopped = (child: ChildProcess.ChildProcess) =>
  Effect.callback<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
    child.kill("SIGTERM")
  })

/** One tool call through a new SDK client (a session Redis lost is not one to reuse). */
const call = (url: string, name: string, args: Record<string, unknown> = {}) =>
  Effect.scoped(Effect.gen(function*() {
    const client = new Client({ name: "redis-away", version: "1.0.0" })
    yield* Effect.acquireRelease(
      Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(url)))),
      () => Effect.promise(() => client.close().catch(() => undefined))
    )
    const result = (yield* Effect.promise(() => client.callTool({ name, arguments: args }))) as CallToolResult
    return result.structuredContent
  }))

/** Waits (up to 15 s) until `check` holds. */
const eventually = <A>(get: Effect.Effect<A>, check: (a: A) => boolean, what: string) =>
  Effect.gen(function*() {
    let last: A | undefined
    for (let i = 0; i < 60; i++) {
      last = yield* get
      if (check(last)) return last
      yield* Effect.sleep("250 millis")
    }
    return yield* Effect.die(new Error(`still not so after 15 s: ${what} (last: ${JSON.stringify(last)})`))
  })

describe("Redis away and back, under the example board", () => {
  it.live(
    "each instance says it once each way, and the board follows the store that came back empty",
    () =>
      Effect.gen(function*() {
        const port = yield* freePort
        const url = `redis://127.0.0.1:${port}`
        const first = yield* redisOn(port)
        const [a, b] = yield* Effect.forEach(
          [0, 1],
          () => Instances.start({ script: "examples/main.ts", redisUrl: url, ready: /Task board MCP server at (\S+)/ }),
          { concurrency: 2 }
        )
        assert.deepStrictEqual(yield* call(a!.url, "tasks_add", { title: "before" }), { id: "t1" })
        const before = [a!.output().length, b!.output().length]

        yield* first.stop
        yield* Effect.sleep("5 seconds")
        for (const [i, instance] of [a!, b!].entries()) {
          const said = instance.output().slice(before[i]).split("\n").filter((line) => line.trim() !== "")
          assert.notMatch(said.join("\n"), /^\s+at /m, "no stack trace")
          assert.lengthOf(said, 1, `one sentence for Redis going away:\n${said.join("\n")}`)
          assert.include(said[0], "Redis")
        }

        yield* redisOn(port)
        for (const instance of [a!, b!]) {
          yield* eventually(Effect.sync(instance.output), (out) => out.includes("Redis is back"), "back, said once")
        }
        assert.deepStrictEqual(yield* call(b!.url, "tasks_add", { title: "after" }), { id: "t2" }, "t1 is not reused")
        for (const instance of [a!, b!]) {
          yield* eventually(
            call(instance.url, "tasks_open"),
            (open) => JSON.stringify(open) === `{"value":["t2"]}`,
            "the store's board"
          )
        }
        for (const instance of [a!, b!]) {
          assert.lengthOf(instance.output().match(/Redis is back/g) ?? [], 1)
          assert.notMatch(instance.output(), /^\s+at /m, "no stack trace at any point")
        }
      }),
    { timeout: 120_000 }
  )
})
