// One hot loop, alone, for `node --cpu-prof`: not part of `npm run bench`.
//   npm run -s bench:profile -- call [seq|par] [ours|raw]
//   npm run -s bench:profile -- reroster 10000
//   npm run -s bench:profile -- toolset [ours|sdk] [seq|par]
//   npm run -s bench:profile -- idle [ours|raw-tuned|raw] [200]
// `call` and `toolset` also summarise themselves, warm (after a first round): one round profiled
// in-process (V8's profiler through `node:inspector`), printed per call by part of the dependency
// tree (lib/profileSummary.ts), and one round counted by V8's precise coverage — the distinct
// functions run on every call and the function calls a call makes, client and server together (the
// client is the same SDK `Client` for ours and the raw server; for `toolset` the server is the same).
// `idle` opens that many idle Streamable HTTP sessions on a server child (bench/servers/http.ts) and
// prints what one holds, from heap censuses before and after (lib/heapCensus.ts): objects by kind
// and name, count and bytes per session.
// (The HTTP servers are profiled by passing flags to the children: BENCH_SERVER_NODE_FLAGS, then
// `node bench/lib/profileSummary.ts DIR/*.cpuprofile`.)
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Effect } from "effect"
import { McpToolset } from "effect-surface/client"
import { McpFace } from "effect-surface/mcp"
import { Session } from "node:inspector/promises"
import { PerformanceObserver } from "node:perf_hooks"
import { concurrent, sequential } from "./lib/measure.ts"
import {
  functionsOf,
  functionsPerUnit,
  printFunctions,
  printSelfTimes,
  type Profile,
  selfTimes
} from "./lib/profileSummary.ts"
import { connectOurs, connectRaw, hold, newClient } from "./lib/run.ts"
import { ARGS, makeOurs, makeRawServer, TOOL } from "./lib/workload.ts"
import { closeAll, openSessions } from "./http.ts"
import { spawnServer } from "./lib/child.ts"
import type { Census } from "./lib/heapCensus.ts"
import { perUnit } from "./lib/heapCensus.ts"
import { siblings } from "./scale.ts"

const [what = "call", a, b] = process.argv.slice(2)
const held = await hold()

/** Time `round` (µs per call over `n` calls) five times, after a profiled and a counted round. */
const summarised = async (label: string, n: number, round: () => Promise<number>) => {
  await round()
  const inspector = new Session()
  inspector.connect()
  await inspector.post("Profiler.enable")
  await inspector.post("Profiler.start")
  await round()
  const { profile } = await inspector.post("Profiler.stop")
  printSelfTimes(`${label}, warm`, selfTimes(profile as unknown as Profile), n)
  await inspector.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false })
  await inspector.post("Profiler.takePreciseCoverage") // resets the counters
  await round()
  const counted = await inspector.post("Profiler.takePreciseCoverage")
  await inspector.post("Profiler.stopPreciseCoverage")
  inspector.disconnect()
  printFunctions(`${label}, per call`, functionsPerUnit(functionsOf(counted), n))
  for (let i = 0; i < 5; i++) process.stderr.write(`${label}: ${(await round()).toFixed(2)} µs/call\n`)
  // One more round read as the process's CPU (every thread) and the pauses of its collector.
  let gcMs = 0
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs += entry.duration
  })
  observer.observe({ entryTypes: ["gc"] })
  const cpu = process.cpuUsage()
  await round()
  const used = process.cpuUsage(cpu)
  await new Promise((resolve) => setTimeout(resolve, 50))
  observer.disconnect()
  process.stdout.write(
    `${label}: ${((used.user + used.system) / n).toFixed(1)} µs of process CPU a call, ${
      ((gcMs * 1000) / n).toFixed(1)
    } µs of it in garbage collection\n`
  )
}

if (what === "call") {
  const mode = a ?? "seq"
  const client = b === "raw"
    ? await connectRaw(makeRawServer())
    : await connectOurs(held, await held.run(Effect.flatMap(makeOurs, ({ options }) => McpFace.make(options))))
  const op = () => client.callTool({ name: TOOL, arguments: ARGS })
  const n = mode === "par" ? 40_000 : 20_000
  await summarised(
    `call ${mode} ${b ?? "ours"}`,
    n,
    () => mode === "par" ? concurrent(n, 64, op) : sequential(n, op)
  )
  await client.close()
} else if (what === "reroster") {
  const n = Number(a ?? "10000")
  const face = await held.run(McpFace.make({ surfaces: siblings(n, false), client: Effect.succeed({ clients: {} }) }))
  await connectOurs(held, face)
  for (let i = 0; i < 20; i++) {
    const start = performance.now()
    await held.run(face.reroster(siblings(n, i % 2 === 0)))
    process.stderr.write(`reroster ${n}: ${(performance.now() - start).toFixed(1)} ms\n`)
  }
} else if (what === "toolset") {
  // toolset.call (or, with `sdk`, the SDK Client's callTool) on a raw SDK server in memory
  const open = () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    void makeRawServer().connect(serverSide)
    return clientSide
  }
  const sdk = newClient()
  await sdk.connect(open())
  const toolset = await held.run(McpToolset.make([{ name: "echo", type: "transport", open }]))
  const call = toolset.call(`echo__${TOOL}`, ARGS)
  const n = 20_000
  const par = b === "par"
  const ours = () =>
    held.run(Effect.gen(function*() {
      const start = performance.now()
      if (par)
        yield* Effect.forEach(Array.from({ length: 64 }), () => Effect.repeat(call, { times: n / 64 - 1 }), {
          concurrency: "unbounded",
          discard: true
        })
      else for (let i = 0; i < n; i++) yield* call
      return ((performance.now() - start) * 1000) / n
    }))
  const viaSdk = () => sdk.callTool({ name: TOOL, arguments: ARGS })
  const run = a === "sdk" ? () => par ? concurrent(n, 64, viaSdk) : sequential(n, viaSdk) : ours
  await summarised(`toolset ${a ?? "ours"} ${par ? "par" : "seq"}`, n, run)
  await sdk.close()
} else if (what === "idle") {
  const kind = a ?? "ours"
  const n = Number(b ?? "200")
  const child = await spawnServer("http.ts", [kind], ["--expose-gc"])
  try {
    const warm = await openSessions(child.url, 20)
    await Promise.all(warm.map((client) => client.callTool({ name: TOOL, arguments: ARGS })))
    await new Promise((resolve) => setTimeout(resolve, 300))
    const before = (await child.ask<{ readonly census: Census }>({ type: "census" })).census
    const idle = await openSessions(child.url, n)
    await new Promise((resolve) => setTimeout(resolve, 500))
    const after = (await child.ask<{ readonly census: Census }>({ type: "census" })).census
    const rows = perUnit(before, after, n)
    const total = rows.reduce((sum, row) => sum + row.bytes, 0)
    const of = (prefix: string) => rows.filter((row) => row.key.startsWith(prefix))
    const sum = (rs: ReadonlyArray<{ readonly count: number; readonly bytes: number }>, k: "count" | "bytes") =>
      rs.reduce((s, r) => s + r[k], 0)
    process.stdout.write(`idle ${kind}: ${(total / 1024).toFixed(1)} KiB of heap objects per session (${n} sessions)\n`)
    for (const kind of ["closure", "object", "array", "code", "string", "hidden", "native", "number"]) {
      const rs = of(kind)
      process.stdout.write(
        `  ${kind.padEnd(8)} ${sum(rs, "count").toFixed(1).padStart(7)} a session ${
          (sum(rs, "bytes") / 1024).toFixed(2).padStart(7)
        } KiB\n`
      )
    }
    process.stdout.write(`largest:\n`)
    for (const row of rows.slice(0, 30)) {
      process.stdout.write(`  ${row.bytes.toFixed(0).padStart(6)} B ${row.count.toFixed(1).padStart(6)}×  ${row.key}\n`)
    }
    process.stdout.write(`closures, by where their function is written:\n`)
    for (const row of of("closure").slice(0, 25)) {
      process.stdout.write(`  ${row.bytes.toFixed(0).padStart(6)} B ${row.count.toFixed(1).padStart(6)}×  ${row.key}\n`)
    }
    await closeAll([...warm, ...idle])
  } finally {
    await child.stop()
  }
}
await held.close()
