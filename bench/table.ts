// The performance table of docs/performance.md, from the JSON lines of one `npm run bench`: every row
// is read off that run and written between the page's table markers, so the table is regenerated
// rather than edited by hand, and the notes around it stay as they are. `--stdout` prints it instead.
//   npm run -s bench > bench.jsonl && npm run -s bench:table < bench.jsonl
import { readFileSync, writeFileSync } from "node:fs"
import { text } from "node:stream/consumers"

const page = new URL("../docs/performance.md", import.meta.url)
const start = "<!-- bench:table:start -->"
const end = "<!-- bench:table:end -->"

interface Figure {
  readonly bench: string
  readonly ours: number | null
  readonly peer: number | null
  readonly ratio: number | null
  /** The median of paired per-round differences and its interval (bench/lib/measure.ts). */
  readonly difference?: { readonly median: number; readonly low: number; readonly high: number }
}

interface Row {
  readonly label: string
  /** The figure against the raw SDK (or the row's own peer). */
  readonly bench: string
  /** The same figure against effect/ai, where the run has one. */
  readonly ai?: string
  /** "Δ": two ratios (×), and in the ratio column the median of their paired per-round differences. */
  readonly unit: "ms" | "µs" | "KiB" | "MB" | "calls/s" | "calls" | "B" | "×" | "Δ"
}

const rows: ReadonlyArray<Row> = [
  {
    label: "spawn → first answered `tools/call`, stdio",
    bench: "stdio.spawn_to_first_call.vs_raw_sdk",
    ai: "stdio.spawn_to_first_call.vs_effect_ai",
    unit: "ms"
  },
  {
    label: "the same, in the server's CPU time",
    bench: "stdio.spawn_to_first_call.cpu.vs_raw_sdk",
    ai: "stdio.spawn_to_first_call.cpu.vs_effect_ai",
    unit: "ms"
  },
  {
    label: "the same, against the Effect floor (the raw server under `NodeRuntime`)",
    bench: "stdio.spawn_to_first_call.vs_effect_floor",
    unit: "ms"
  },
  {
    label: "server CPU to the first answer, the app importing `effect`'s modules by path (`effect/Schema`)",
    bench: "stdio.spawn_to_first_call.cpu.ours_deep_imports.vs_raw_sdk",
    unit: "ms"
  },
  {
    label: "server CPU to the first answer, with Node's compile cache: the first start (`NODE_COMPILE_CACHE`)",
    bench: "stdio.spawn_to_first_call.cpu.compile_cache_first_start.vs_raw_sdk",
    unit: "ms"
  },
  {
    label: "the same, with the compile cache: later starts",
    bench: "stdio.spawn_to_first_call.cpu.compile_cache.vs_raw_sdk",
    unit: "ms"
  },
  {
    label: "the same, the raw SDK with the compile cache too",
    bench: "stdio.spawn_to_first_call.cpu.compile_cache.vs_raw_sdk_compile_cache",
    unit: "ms"
  },
  {
    label: "server CPU to the first answer, the server bundled into one file (esbuild)",
    bench: "stdio.spawn_to_first_call.cpu.bundle.vs_raw_sdk",
    unit: "ms"
  },
  {
    label: "the same, the raw SDK bundled too",
    bench: "stdio.spawn_to_first_call.cpu.bundle.vs_raw_sdk_bundle",
    unit: "ms"
  },
  {
    label: "server CPU to the first answer, ours started from a V8 startup snapshot",
    bench: "stdio.spawn_to_first_call.cpu.snapshot.vs_raw_sdk",
    unit: "ms"
  },
  {
    label: "the same, against the raw SDK bundled",
    bench: "stdio.spawn_to_first_call.cpu.snapshot.vs_raw_sdk_bundle",
    unit: "ms"
  },
  {
    label: "stdio server resident memory after its first answer (RSS, from outside)",
    bench: "stdio.rss_after_first_call.vs_raw_sdk",
    ai: "stdio.rss_after_first_call.vs_effect_ai",
    unit: "MB"
  },
  {
    label: "the same, the server bundled",
    bench: "stdio.rss_after_first_call.bundle.vs_raw_sdk",
    unit: "MB"
  },
  {
    label: "the same, against the Effect floor (the raw server under `NodeRuntime`)",
    bench: "stdio.rss_after_first_call.vs_effect_floor",
    unit: "MB"
  },
  {
    label: "the Effect floor's own, against the raw SDK",
    bench: "stdio.rss_after_first_call.effect_floor.vs_raw_sdk",
    unit: "MB"
  },
  {
    label: "ours, the app importing `effect`'s modules by path (`effect/Schema`)",
    bench: "stdio.rss_after_first_call.ours_deep_imports.vs_raw_sdk",
    unit: "MB"
  },
  {
    label: "`tools/call`, stdio, cold, sequential",
    bench: "tools_call.stdio.cold.sequential.vs_raw_sdk",
    ai: "tools_call.stdio.cold.sequential.vs_effect_ai",
    unit: "µs"
  },
  {
    label: "`tools/call`, stdio, cold, 64 in flight",
    bench: "tools_call.stdio.cold.inflight64.vs_raw_sdk",
    ai: "tools_call.stdio.cold.inflight64.vs_effect_ai",
    unit: "µs"
  },
  {
    label: "`tools/call`, stdio, cold, sequential, server CPU per call",
    bench: "tools_call.stdio.cold.sequential.cpu.vs_raw_sdk",
    ai: "tools_call.stdio.cold.sequential.cpu.vs_effect_ai",
    unit: "µs"
  },
  {
    label: "`tools/call`, stdio, cold, 64 in flight, server CPU per call",
    bench: "tools_call.stdio.cold.inflight64.cpu.vs_raw_sdk",
    ai: "tools_call.stdio.cold.inflight64.cpu.vs_effect_ai",
    unit: "µs"
  },
  {
    label: "the same, sequential, with the compile cache (later starts)",
    bench: "tools_call.stdio.cold.sequential.cpu.compile_cache.vs_raw_sdk",
    unit: "µs"
  },
  {
    label: "`tools/call`, stdio, warm, sequential",
    bench: "tools_call.stdio.sequential.vs_raw_sdk",
    ai: "tools_call.stdio.sequential.vs_effect_ai",
    unit: "µs"
  },
  {
    label: "`tools/call`, stdio, warm, 64 in flight",
    bench: "tools_call.stdio.inflight64.vs_raw_sdk",
    ai: "tools_call.stdio.inflight64.vs_effect_ai",
    unit: "µs"
  },
  {
    label: "`tools/call`, stdio, warm, sequential, server CPU per call",
    bench: "tools_call.stdio.sequential.cpu.vs_raw_sdk",
    ai: "tools_call.stdio.sequential.cpu.vs_effect_ai",
    unit: "µs"
  },
  {
    label: "`tools/call`, stdio, warm, 64 in flight, server CPU per call",
    bench: "tools_call.stdio.inflight64.cpu.vs_raw_sdk",
    ai: "tools_call.stdio.inflight64.cpu.vs_effect_ai",
    unit: "µs"
  },
  {
    label:
      "the example board over stdio, spawn → first answer: the README's `npm -s run stdio` (ours) vs `node` launching it directly (peer), both with the compile cache",
    bench: "outside.board_stdio.spawn_to_first_call.npm_run_stdio.vs_node_direct",
    unit: "ms"
  },
  {
    label: "second driver (raw JSON-RPC, `node server.js`): server CPU to the first answer",
    bench: "outside.spawn_to_first_call.cpu.vs_raw_sdk",
    unit: "ms"
  },
  {
    label: "the same, the server's main thread",
    bench: "outside.spawn_to_first_call.cpu.main_thread.vs_raw_sdk",
    unit: "ms"
  },
  {
    label: "the same, its helper threads (V8's workers, libuv's pool)",
    bench: "outside.spawn_to_first_call.cpu.helper_threads.vs_raw_sdk",
    unit: "ms"
  },
  {
    label: "second driver: `tools/call`, cold, sequential",
    bench: "outside.tools_call.cold.sequential.vs_raw_sdk",
    unit: "µs"
  },
  {
    label: "second driver: `tools/call`, cold, sequential, server CPU per call",
    bench: "outside.tools_call.cold.sequential.cpu.vs_raw_sdk",
    unit: "µs"
  },
  {
    label: "the same, the server's main thread",
    bench: "outside.tools_call.cold.sequential.cpu.main_thread.vs_raw_sdk",
    unit: "µs"
  },
  {
    label: "the same, its helper threads",
    bench: "outside.tools_call.cold.sequential.cpu.helper_threads.vs_raw_sdk",
    unit: "µs"
  },
  {
    label: "second driver: resident memory after the first answer",
    bench: "outside.rss_after_first_call.vs_raw_sdk",
    unit: "MB"
  },
  {
    label: "first driver in the second driver's rounds: server CPU to the first answer, main thread",
    bench: "outside.first_driver.spawn_to_first_call.cpu.main_thread.vs_raw_sdk",
    unit: "ms"
  },
  {
    label: "the same, helper threads",
    bench: "outside.first_driver.spawn_to_first_call.cpu.helper_threads.vs_raw_sdk",
    unit: "ms"
  },
  {
    label: "first driver in the second driver's rounds: server CPU per cold call, main thread",
    bench: "outside.first_driver.tools_call.cold.sequential.cpu.main_thread.vs_raw_sdk",
    unit: "µs"
  },
  {
    label: "the same, helper threads",
    bench: "outside.first_driver.tools_call.cold.sequential.cpu.helper_threads.vs_raw_sdk",
    unit: "µs"
  },
  {
    label: "second driver's ours/raw (ours) against the first driver's (peer), same rounds; last column: " +
      "the median of the rounds' differences (second − first) and its interval of ≥95% confidence: server CPU to the first answer",
    bench: "outside.agreement.spawn_to_first_call.cpu",
    unit: "Δ"
  },
  {
    label: "the same, main thread",
    bench: "outside.agreement.spawn_to_first_call.cpu.main_thread",
    unit: "Δ"
  },
  {
    label: "the same, helper threads",
    bench: "outside.agreement.spawn_to_first_call.cpu.helper_threads",
    unit: "Δ"
  },
  {
    label: "the same, server CPU per cold call",
    bench: "outside.agreement.tools_call.cold.sequential.cpu",
    unit: "Δ"
  },
  {
    label: "the same, per cold call, main thread",
    bench: "outside.agreement.tools_call.cold.sequential.cpu.main_thread",
    unit: "Δ"
  },
  {
    label: "the same, per cold call, helper threads",
    bench: "outside.agreement.tools_call.cold.sequential.cpu.helper_threads",
    unit: "Δ"
  },
  {
    label: "calls until per-call time reaches the raw SDK's warm figure (×1.15), 64 in flight",
    bench: "tools_call.stdio.calls_to_steady.inflight64.vs_raw_sdk",
    unit: "calls"
  },
  {
    label: "`tools/call`, in memory, sequential",
    bench: "tools_call.inmemory.sequential.vs_raw_sdk",
    ai: "tools_call.inmemory.sequential.vs_effect_ai(in_process_json_frames)",
    unit: "µs"
  },
  {
    label: "`tools/call`, in memory, 64 in flight",
    bench: "tools_call.inmemory.inflight64.vs_raw_sdk",
    ai: "tools_call.inmemory.inflight64.vs_effect_ai(in_process_json_frames)",
    unit: "µs"
  },
  {
    label: "heap allocated per in-memory `tools/call` (client and server)",
    bench: "tools_call.inmemory.heap_allocated.inflight64.vs_raw_sdk",
    unit: "B"
  },
  {
    label: "toolset `call` vs the SDK `Client`, same server, in memory, sequential",
    bench: "toolset.call.inmemory.sequential.vs_sdk_client",
    unit: "µs"
  },
  {
    label: "the same, 64 in flight",
    bench: "toolset.call.inmemory.inflight64.vs_sdk_client",
    unit: "µs"
  },
  {
    label: "the same over stdio, sequential",
    bench: "toolset.call.stdio.sequential.vs_sdk_client",
    unit: "µs"
  },
  {
    label: "the same over stdio, 64 in flight",
    bench: "toolset.call.stdio.inflight64.vs_sdk_client",
    unit: "µs"
  },
  {
    label: "HTTP server CPU per call, 50 sessions",
    bench: "http.tools_call.server_cpu.sessions50.vs_raw_sdk",
    ai: "http.tools_call.server_cpu.sessions50.vs_effect_ai",
    unit: "µs"
  },
  {
    label: "HTTP throughput, 50 sessions",
    bench: "http.tools_call.throughput.sessions50.vs_raw_sdk",
    ai: "http.tools_call.throughput.sessions50.vs_effect_ai",
    unit: "calls/s"
  },
  {
    label: "HTTP 2026-07-28 server CPU per call, 50 clients (peer: SDK v2 `createMcpHandler`)",
    bench: "http2026.tools_call.server_cpu.clients50.vs_sdk_v2",
    ai: "http2026.tools_call.server_cpu.clients50.vs_effect_ai",
    unit: "µs"
  },
  {
    label: "HTTP 2026-07-28 throughput, 50 clients",
    bench: "http2026.tools_call.throughput.clients50.vs_sdk_v2",
    ai: "http2026.tools_call.throughput.clients50.vs_effect_ai",
    unit: "calls/s"
  },
  {
    label: "memory per idle HTTP session (heap)",
    bench: "http.idle_session_memory.heap.sessions500.vs_raw_sdk",
    ai: "http.idle_session_memory.heap.sessions500.vs_effect_ai",
    unit: "KiB"
  },
  {
    label: "the same, against a raw SDK session tuned alike (validator built lazily)",
    bench: "http.idle_session_memory.heap.sessions500.vs_raw_sdk_tuned",
    unit: "KiB"
  },
  {
    label: "HTTP session shared in Redis vs in memory, instance CPU per call, 50 sessions",
    bench: "redis.tools_call.server_cpu.sessions50.one_on_redis.vs_in_memory",
    unit: "µs"
  },
  {
    label: "the same, with Redis's own CPU",
    bench: "redis.tools_call.cpu_with_redis.sessions50.one_on_redis.vs_in_memory",
    unit: "µs"
  },
  {
    label: "`tools/list`, 10,000 tools",
    bench: "scale.tools_list.n10000.vs_raw_sdk_prebuilt_array",
    unit: "ms"
  },
  {
    label: "cell update → `resources/updated` at 100 sessions, in memory",
    bench: "fanout.resources_updated.inmemory.sessions100.vs_raw_sdk_loop",
    unit: "ms"
  },
  {
    label: "the same over Streamable HTTP",
    bench: "fanout.resources_updated.http.sessions100.vs_raw_sdk_loop",
    unit: "ms"
  }
]

const shown = (value: number | null, unit: Row["unit"]): string =>
  value === null
    ? "—"
    : unit === "B"
    ? `${(value / 1024).toFixed(1)} KiB`
    : unit === "MB"
    ? `${(value / 1024).toFixed(0)} MB`
    : unit === "calls"
    ? value.toFixed(0)
    : unit === "×" || unit === "Δ"
    ? `${value.toFixed(2)}×`
    : `${value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : 2)} ${unit}`

const ratio = (r: number | null): string => (r === null ? "—" : r >= 10 ? r.toFixed(1) : r.toFixed(2))

const signed = (x: number): string => `${x < 0 ? "−" : "+"}${Math.abs(x).toFixed(2)}`

const paired = (figure: Figure): string =>
  figure.difference === undefined
    ? ratio(figure.ratio)
    : `${signed(figure.difference.median)} (${signed(figure.difference.low)} to ${signed(figure.difference.high)})`

const main = async () => {
  const figures = new Map<string, Figure>()
  for (const line of (await text(process.stdin)).split("\n")) {
    if (!line.startsWith("{")) continue
    const figure = JSON.parse(line) as Figure
    figures.set(figure.bench, figure)
  }
  // Figures are named by their session (or client) count, which the run chose.
  const counted = /(sessions|clients)\d+/
  const named = (name: string) =>
    figures.get(name) ??
      [...figures.values()].find((f) => f.bench.replace(counted, "") === name.replace(counted, ""))
  const table = ["| figure | ours | peer | ratio | vs effect/ai |", "|---|---|---|---|---|"]
  for (const row of rows) {
    const figure = named(row.bench)
    if (figure === undefined) {
      process.stderr.write(`not in this run: ${row.bench}\n`)
      continue
    }
    const ai = row.ai === undefined ? undefined : named(row.ai)
    table.push(
      `| ${row.label} | ${shown(figure.ours, row.unit)} | ${shown(figure.peer, row.unit)} | ${
        row.unit === "Δ" ? paired(figure) : ratio(figure.ratio)
      } | ${ai === undefined ? "—" : ratio(ai.ratio)} |`
    )
  }
  if (process.argv.includes("--stdout")) {
    process.stdout.write(`${table.join("\n")}\n`)
    return
  }
  const current = readFileSync(page, "utf8")
  const from = current.indexOf(start)
  const to = current.indexOf(end)
  if (from < 0 || to < from) throw new Error(`docs/performance.md lacks the markers ${start} … ${end}`)
  writeFileSync(page, `${current.slice(0, from + start.length)}\n\n${table.join("\n")}\n\n${current.slice(to)}`)
  process.stdout.write(`wrote ${table.length - 2} rows into docs/performance.md\n`)
}

void main()
