// Streamable HTTP: calls per second with 50 concurrent sessions, and memory per idle session.
// Each server runs alone in a child process (one core; the SDK clients driving it run here, on
// the other): ours (McpHttp.serve) against the raw SDK (node:http + StreamableHTTPServerTransport,
// one SDK Server per session) and effect/ai (McpServer.layerHttp, 2025-11-25). Ours and the raw
// SDK hold each client's GET stream; the raw SDK answers every POST as SSE, ours answers a call
// that produced only its answer as one JSON body (as the protocol lets a server). The clients here
// can cap a fast server's rate, so the server's own CPU per call is reported beside it.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { type Child, spawnServer } from "./lib/child.ts"
import { count, emit, envInt, interleave, median, note, sleep } from "./lib/measure.ts"
import { sample } from "./lib/throughput.ts"
import { newClient } from "./lib/run.ts"
import { ARGS, TOOL } from "./lib/workload.ts"

const kinds = ["ours", "raw", "effect-ai"] as const
/** The idle-memory figure adds the raw SDK tuned as ours is (its per-session validator built lazily). */
const memoryKinds = [...kinds, "raw-tuned"] as const
type Kind = typeof memoryKinds[number]

const openSession = async (url: string): Promise<Client> => {
  const client = newClient()
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  return client
}

/** Open `n` sessions, `batch` at a time. */
export const openSessions = async (url: string, n: number, batch = 25): Promise<Array<Client>> => {
  const clients: Array<Client> = []
  for (let i = 0; i < n; i += batch) {
    clients.push(...(await Promise.all(Array.from({ length: Math.min(batch, n - i) }, () => openSession(url)))))
  }
  return clients
}

export const closeAll = (clients: ReadonlyArray<Client>) =>
  Promise.all(clients.map((client) => client.close().catch(() => undefined)))

const throughput = async () => {
  const sessions = envInt("BENCH_HTTP_SESSIONS", 50, 50)
  const ms = count(2000, 400)
  const samples = count(7, 2)
  const children: Array<Child> = []
  try {
    for (const kind of kinds) children.push(await spawnServer("http.ts", [kind]))
    const clients: Array<Array<Client>> = []
    for (const child of children) clients.push(await openSessions(child.url, sessions))
    const cpu = children.map((): Array<number> => [])
    note(`http: ${sessions} sessions per server, ${samples} samples × ${ms} ms each`)
    const callers = clients.map((opened) =>
      opened.map((client) => () => client.callTool({ name: TOOL, arguments: ARGS }))
    )
    const rates = await interleave(children.map((child, i) => () => sample(child, callers[i]!, ms, cpu[i]!)), {
      samples,
      warmup: 1
    })
    const [ours, raw, ai] = rates.map(median) as [number, number, number]
    // The CPU readings include the warm-up round's; drop it as the rates dropped theirs.
    const [oursCpu, rawCpu, aiCpu] = cpu.map((readings) => median(readings.slice(-samples))) as [number, number, number]
    const rate = "calls/s (higher is better), median"
    emit({ bench: `http.tools_call.throughput.sessions${sessions}.vs_raw_sdk`, ours, peer: raw, unit: rate })
    emit({ bench: `http.tools_call.throughput.sessions${sessions}.vs_effect_ai`, ours, peer: ai, unit: rate })
    const perCall = "server CPU µs per call (user+system), median"
    emit({
      bench: `http.tools_call.server_cpu.sessions${sessions}.vs_raw_sdk`,
      ours: oursCpu,
      peer: rawCpu,
      unit: perCall
    })
    emit({
      bench: `http.tools_call.server_cpu.sessions${sessions}.vs_effect_ai`,
      ours: oursCpu,
      peer: aiCpu,
      unit: perCall
    })
    await closeAll(clients.flat())
  } finally {
    await Promise.all(children.map((child) => child.stop()))
  }
}

interface Memory {
  readonly collected: boolean
  readonly heapUsed: number
  readonly rss: number
}

/** Memory per idle session: open a few (warm-up), read; open `n` more, read; the difference over `n`. */
const idleMemory = async (kind: Kind, n: number) => {
  const child = await spawnServer("http.ts", [kind], ["--expose-gc"])
  try {
    const warm = await openSessions(child.url, 20)
    await Promise.all(warm.map((client) => client.callTool({ name: TOOL, arguments: ARGS })))
    await sleep(300)
    const before = await child.ask<Memory>({ type: "memory" })
    if (!before.collected) throw new Error("the server child cannot force GC (--expose-gc missing)")
    const idle = await openSessions(child.url, n)
    await sleep(500)
    const after = await child.ask<Memory>({ type: "memory" })
    await closeAll([...warm, ...idle])
    return { heap: (after.heapUsed - before.heapUsed) / n, rss: (after.rss - before.rss) / n }
  } finally {
    await child.stop()
  }
}

const memory = async () => {
  const n = envInt("BENCH_IDLE_SESSIONS", 500, 100)
  const rounds = count(3, 1)
  note(`http: idle-session memory, ${n} sessions, ${rounds} round(s) per server`)
  const heap = new Map<Kind, Array<number>>(memoryKinds.map((kind) => [kind, []]))
  const rss = new Map<Kind, Array<number>>(memoryKinds.map((kind) => [kind, []]))
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < memoryKinds.length; k++) {
      const kind = memoryKinds[(round + k) % memoryKinds.length]!
      const measured = await idleMemory(kind, n)
      heap.get(kind)!.push(measured.heap / 1024)
      rss.get(kind)!.push(measured.rss / 1024)
    }
  }
  const of = (table: Map<Kind, Array<number>>, kind: Kind) => median(table.get(kind)!)
  const heapUnit = "KiB of V8 heap per idle session (after forced GC), median"
  const rssUnit = "KiB of RSS per idle session (after forced GC), median"
  emit({
    bench: `http.idle_session_memory.heap.sessions${n}.vs_raw_sdk`,
    ours: of(heap, "ours"),
    peer: of(heap, "raw"),
    unit: heapUnit
  })
  emit({
    bench: `http.idle_session_memory.heap.sessions${n}.vs_effect_ai`,
    ours: of(heap, "ours"),
    peer: of(heap, "effect-ai"),
    unit: heapUnit
  })
  emit({
    bench: `http.idle_session_memory.heap.sessions${n}.vs_raw_sdk_tuned`,
    ours: of(heap, "ours"),
    peer: of(heap, "raw-tuned"),
    unit: heapUnit
  })
  emit({
    bench: `http.idle_session_memory.rss.sessions${n}.vs_raw_sdk`,
    ours: of(rss, "ours"),
    peer: of(rss, "raw"),
    unit: rssUnit
  })
  emit({
    bench: `http.idle_session_memory.rss.sessions${n}.vs_effect_ai`,
    ours: of(rss, "ours"),
    peer: of(rss, "effect-ai"),
    unit: rssUnit
  })
}

export const run = async (): Promise<void> => {
  await throughput()
  await memory()
}
