// `npm run conformance`: serve the everything server on a free port and run the official MCP
// conformance suite against it. Exits with the suite's status, so CI fails on any failure that
// `examples/conformance-server/expected-failures.yaml` does not list (each with its reason).
// `npm run conformance:redis` (`--redis`): the same suite through a round-robin proxy with no
// session affinity, in front of two instances of the server (child processes) sharing their
// sessions in a Redis started for the run (persistence off) and stopped after it.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Effect, Stream } from "effect"
import type { Scope } from "effect"
import { ChildProcess } from "effect/process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { serve } from "../examples/conformance-server/main.ts"
import * as Instances from "../test/mcp/cluster/instances.ts"
import * as RedisServer from "../test/mcp/redisServer.ts"

const root = fileURLToPath(new URL("..", import.meta.url))
const expected = fileURLToPath(new URL("../examples/conformance-server/expected-failures.yaml", import.meta.url))
const suite = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/conformance/dist/index.js", import.meta.url))

interface Target {
  readonly url: string
  /** Said after the run: how the requests were spread. */
  readonly spread: Effect.Effect<void>
}

const single: Effect.Effect<Target, never, Scope.Scope> = Effect.gen(function*() {
  const served = yield* Effect.orDie(serve(0))
  yield* Console.log(`conformance: everything server at ${served.url}`)
  return { url: served.url, spread: Effect.void }
})

const shared: Effect.Effect<Target, never, Scope.Scope> = Effect.gen(function*() {
  const redis = yield* RedisServer.start
  const { instances, proxy } = yield* Instances.behindProxy({
    script: "examples/conformance-server/main.ts",
    redisUrl: redis.url,
    ready: /listening (\S+)/
  })
  yield* Console.log(
    `conformance: ${
      instances.map((instance) => instance.url).join(" and ")
    }, sessions in Redis at ${redis.url}, behind ${proxy.url}`
  )
  const spread = Effect.suspend(() => {
    const counts = instances.map((_, i) => proxy.served.filter((served) => served.backend === i).length)
    return Console.log(`conformance: the proxy spread ${proxy.served.length} requests as ${counts.join(" and ")}`)
  })
  return { url: proxy.url, spread }
})

const main = Effect.gen(function*() {
  const { spread, url } = yield* (process.argv.includes("--redis") ? shared : single)
  const args = [
    suite,
    "server",
    "--url",
    url,
    "--suite",
    "all",
    ...(existsSync(expected) ? ["--expected-failures", expected] : [])
  ]
  const run = yield* ChildProcess.make(process.execPath, args, {
    cwd: root,
    stdout: "pipe",
    stderr: "inherit",
    extendEnv: true
  })
  yield* run.stdout.pipe(Stream.decodeText, Stream.runForEach((text) => Effect.sync(() => process.stdout.write(text))))
  const code = yield* run.exitCode
  yield* spread
  return Number(code)
}).pipe(Effect.scoped, Effect.provide(NodeServices.layer))

NodeRuntime.runMain(Effect.flatMap(main, (code) => Effect.sync(() => process.exit(code))))
