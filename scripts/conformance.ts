// `npm run conformance`: serve the everything server on a free port and run the official MCP
// conformance suite against it, once for each revision it serves (`--requirements 2026-07-28`, the
// stateless revision, and `--requirements 2025-11-25`, sessions): exactly the scenarios each
// revision requires, frozen at its release. Exits non-zero when either run fails a scored
// scenario (and on any failure `examples/conformance-server/expected-failures.yaml` does not list,
// each with its reason, when that file exists). The suite runs the scenarios it does not score (the
// tasks extension's among them) after the rest and never fails on them: this script does.
// `npm run conformance:redis` (`--redis`): the same suite through a round-robin proxy with no
// session affinity, in front of two instances of the server (child processes) sharing their
// sessions in a Redis started for the run (persistence off) and stopped after it.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Effect } from "effect"
import type { Scope } from "effect"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { serve } from "../examples/conformance-server/main.ts"
import * as Instances from "../test/mcp/cluster/instances.ts"
import * as RedisServer from "../test/mcp/redisServer.ts"
import * as Suite from "./suite.ts"

const expected = fileURLToPath(new URL("../examples/conformance-server/expected-failures.yaml", import.meta.url))

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

/** The revisions served, newest first: each is one run of the suite. */
const revisions = ["2026-07-28", "2025-11-25"] as const

// One run of the suite against `url`: its exit code and what made it fail.
const run = (url: string, revision: string) =>
  Effect.gen(function*() {
    yield* Console.log(`conformance: --requirements ${revision}`)
    const { code, output } = yield* Suite.run([
      "server",
      "--url",
      url,
      "--requirements",
      revision,
      ...(existsSync(expected) ? ["--expected-failures", expected] : [])
    ])
    const unscored = /Not scored for [^:]+: \d+ scenario\(s\) run, (\d+) failing/.exec(output)
    const failing = unscored !== null && Number(unscored[1]) > 0
    const why = Suite.verdict(output, failing ? `${unscored[1]} unscored scenario(s) failing` : "")
    return { code: code === 0 && failing ? 1 : code, why }
  })

const main = Effect.gen(function*() {
  const { spread, url } = yield* (process.argv.includes("--redis") ? shared : single)
  const runs = yield* Effect.forEach(revisions, (revision) => run(url, revision))
  yield* spread
  yield* Effect.forEach(revisions, (revision, i) => Console.log(`conformance: ${revision}: ${Suite.outcome(runs[i])}`))
  return runs.find((run) => run.code !== 0)?.code ?? 0
}).pipe(Effect.scoped, Effect.provide(NodeServices.layer))

NodeRuntime.runMain(Effect.flatMap(main, (code) => Effect.sync(() => process.exit(code))))
