// `npm run bench`: every benchmark family in turn, one JSON line per figure on stdout
// (`{ bench, ours, peer, ratio, unit }`, the unit saying which way the ratio is taken), progress on
// stderr. Each peer is measured in the same run on this machine, interleaved with ours.
//   BENCH_QUICK=1              a smoke run of every figure (seconds, not a measurement)
//   BENCH_ONLY=regex           families to run: inmemory, pool, startup, stdio, outside, http, http2026, scale, fanout, acp, toolset, stores, redis, auth
//   BENCH_EFFORT=x             multiply every sample and iteration count (not sizes) by x
//   BENCH_HTTP_SESSIONS=50     concurrent sessions (2026: clients) for HTTP throughput
//   BENCH_HTTP2026_CLIENT=sdk  drive the 2026 figures with SDK v2 clients, not raw POSTs (bench/http2026.ts)
//   BENCH_IDLE_SESSIONS=500    sessions opened for the idle-memory figure (100 when quick)
//   BENCH_FANOUT_SESSIONS=100  subscribed sessions for the fan-out figures
//   BENCH_SCALE_SIZES=10,100,1000,10000   bundle sizes for tools/list and reroster
//   BENCH_SERVER_NODE_FLAGS="--cpu-prof --cpu-prof-dir=DIR"   flags for every server child (not the npm-launched board)
//   BENCH_AUTH_ERAS=2025       the auth family's eras (default 2026,2025)
//   BENCH_SOURCES=1            start-up and stdio servers from the TypeScript sources, not the build (lib/built.ts)
// bench/profile.ts runs one hot loop alone, for `node --cpu-prof`; bench/startupProfile.ts profiles a
// stdio server's start to its first answer.
import * as os from "node:os"
import { config } from "./lib/measure.ts"

const families: ReadonlyArray<
  { readonly name: string; readonly load: () => Promise<{ readonly run: () => Promise<void> }> }
> = [
  { name: "inmemory", load: () => import("./inmemory.ts") },
  { name: "pool", load: () => import("./pool.ts") },
  { name: "startup", load: () => import("./startup.ts") },
  { name: "stdio", load: () => import("./stdio.ts") },
  { name: "outside", load: () => import("./outside.ts") },
  { name: "http", load: () => import("./http.ts") },
  { name: "http2026", load: () => import("./http2026.ts") },
  { name: "scale", load: () => import("./scale.ts") },
  { name: "fanout", load: () => import("./fanout.ts") },
  { name: "acp", load: () => import("./acp.ts") },
  { name: "toolset", load: () => import("./toolset.ts") },
  { name: "stores", load: () => import("./stores.ts") },
  // Starts a redis-server of its own (Debian's `redis-server`, as .ci/run installs it).
  { name: "redis", load: () => import("./redis.ts") },
  { name: "auth", load: () => import("./auth.ts") }
]

const main = async () => {
  const cpus = os.cpus()
  process.stderr.write(
    `effect-surface bench: node ${process.version}, ${cpus.length}× ${cpus[0]?.model ?? "cpu"}, ` +
      `${
        config.quick ? "QUICK (smoke run, not a measurement)" : "full"
      }; figures are medians; every peer is measured in this same run\n`
  )
  const started = performance.now()
  for (const family of families) {
    if (config.only !== undefined && !config.only.test(family.name)) continue
    const t0 = performance.now()
    process.stderr.write(`[${family.name}]\n`)
    const module = await family.load()
    await module.run()
    process.stderr.write(`[${family.name}] ${((performance.now() - t0) / 1000).toFixed(1)} s\n`)
  }
  process.stderr.write(`bench done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`)
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
    process.exit(1)
  }
)
