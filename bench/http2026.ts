// MCP 2026-07-28 over Streamable HTTP: a stateless `tools/call` (one POST carrying its `_meta`
// envelope and the Mcp-Protocol-Version / Mcp-Method / Mcp-Name headers; no session, no initialize),
// server CPU per call and calls per second with 50 concurrent clients. Each server runs alone in a
// child process (bench/servers/http.ts): ours (McpHttp.serve, the same server the 2025 figures
// measure, which tells the eras apart per request) against SDK v2's `createMcpHandler` (one
// `McpServer` built per request, as that API works, on node:http through `toNodeHandler`:
// lib/sdkV2Http.ts) and effect/ai's `McpServer.layerHttp` serving 2026-07-28 alone.
//
// The clients are raw `fetch` POSTs carrying byte for byte the headers and body an SDK v2 client
// pinned to 2026-07-28 sends for the call (read off its transport); one such client connects to
// each server first (the pin fails unless `server/discover` offers 2026) and must get the same
// answer. Not v2 clients themselves, because the clients would then cap the figure: measured with 50
// of each (two runs of each kind), a v2 client spent 390–550 µs of client CPU per call against
// 220–380 µs for a POST (1.2–2.4×), and all the clients run in this one process, on one core, which
// caps the fastest server's rate first. The lighter driver caps it less, and neither changes what a
// call costs the server. `BENCH_HTTP2026_CLIENT=sdk` drives the same figures with v2
// clients; the clients' own CPU per call is noted on stderr either way.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { type Child, spawnServer } from "./lib/child.ts"
import { count, emit, envInt, interleave, median, note } from "./lib/measure.ts"
import { sample } from "./lib/throughput.ts"
import { ARGS, TOOL } from "./lib/workload.ts"

const VERSION = "2026-07-28"
const clientInfo = { name: "bench", version: "0.0.0" } as const
const kinds = ["ours", "sdk-v2", "effect-ai-2026"] as const
type Trio = [number, number, number]

const driver = process.env.BENCH_HTTP2026_CLIENT === "sdk" ? "sdk" : "fetch"

/** An SDK v2 client pinned to 2026-07-28: it probes with `server/discover` and fails short of 2026. */
const pinned = async (url: string): Promise<Client> => {
  const client = new Client(clientInfo, { versionNegotiation: { mode: { pin: VERSION } } })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  return client
}

interface Answered {
  readonly structuredContent?: unknown
  readonly isError?: boolean
}

const sameAnswer = (kind: string, result: Answered | undefined) => {
  if (JSON.stringify(result?.structuredContent) !== JSON.stringify(ARGS) || result?.isError === true) {
    throw new Error(`${kind} answered ${JSON.stringify(result)}`)
  }
}

// What a pinned v2 client's transport sends for `callTool({ name, arguments })`: these headers,
// and this body with its keys in this order.
const headers = {
  accept: "application/json, text/event-stream",
  "content-type": "application/json",
  "mcp-method": "tools/call",
  "mcp-name": TOOL,
  "mcp-protocol-version": VERSION
}
const envelope = {
  "io.modelcontextprotocol/protocolVersion": VERSION,
  "io.modelcontextprotocol/clientInfo": clientInfo,
  "io.modelcontextprotocol/clientCapabilities": {}
}

/** One client as raw POSTs: its own ids, each answer read as JSON and checked as a client would. */
const fetchCaller = (kind: string, url: string): () => Promise<unknown> => {
  let id = 0
  return async () => {
    const sent = id++
    const response = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({
        method: "tools/call",
        params: { name: TOOL, arguments: ARGS, _meta: envelope },
        jsonrpc: "2.0",
        id: sent
      })
    })
    const answer = (await response.json()) as { readonly id?: unknown; readonly result?: Answered }
    if (!response.ok || answer.id !== sent || answer.result === undefined) {
      throw new Error(`${kind} answered ${response.status} ${JSON.stringify(answer)}`)
    }
    return answer.result
  }
}

/** `n` clients of one server, as the chosen driver. */
const callersOf = async (
  kind: string,
  url: string,
  n: number,
  opened: Array<Client>
): Promise<Array<() => Promise<unknown>>> => {
  if (driver === "fetch") return Array.from({ length: n }, () => fetchCaller(kind, url))
  const clients = await Promise.all(Array.from({ length: n }, () => pinned(url)))
  opened.push(...clients)
  return clients.map((client) => () => client.callTool({ name: TOOL, arguments: ARGS }))
}

export const run = async (): Promise<void> => {
  const clients = envInt("BENCH_HTTP_SESSIONS", 50, 50)
  const ms = count(2000, 400)
  const samples = count(7, 2)
  const children: Array<Child> = []
  const opened: Array<Client> = []
  try {
    for (const kind of kinds) children.push(await spawnServer("http.ts", [kind]))
    for (let i = 0; i < kinds.length; i++) {
      const client = await pinned(children[i]!.url)
      opened.push(client)
      sameAnswer(kinds[i]!, (await client.callTool({ name: TOOL, arguments: ARGS })) as Answered)
      if (driver === "fetch") sameAnswer(kinds[i]!, (await fetchCaller(kinds[i]!, children[i]!.url)()) as Answered)
    }
    const callers = await Promise.all(children.map((child, i) => callersOf(kinds[i]!, child.url, clients, opened)))
    const cpu = children.map((): Array<number> => [])
    const driverCpu = children.map((): Array<number> => [])
    note(`http2026: ${clients} ${driver} clients per server, ${samples} samples × ${ms} ms each`)
    const rates = await interleave(
      children.map((child, i) => () => sample(child, callers[i]!, ms, cpu[i]!, driverCpu[i]!)),
      { samples, warmup: 1 }
    )
    const [ours, sdk, ai] = rates.map(median) as Trio
    // The CPU readings include the warm-up round's; drop it as the rates dropped theirs.
    const [oursCpu, sdkCpu, aiCpu] = cpu.map((readings) => median(readings.slice(-samples))) as Trio
    note(
      `http2026: the ${driver} clients' own CPU per call: ${
        driverCpu.map((readings, i) => `${kinds[i]} ${median(readings.slice(-samples)).toFixed(0)} µs`).join(", ")
      }`
    )
    const perCall = "server CPU µs per call (user+system), median"
    emit({
      bench: `http2026.tools_call.server_cpu.clients${clients}.vs_sdk_v2`,
      ours: oursCpu,
      peer: sdkCpu,
      unit: perCall
    })
    emit({
      bench: `http2026.tools_call.server_cpu.clients${clients}.vs_effect_ai`,
      ours: oursCpu,
      peer: aiCpu,
      unit: perCall
    })
    const rate = "calls/s (higher is better), median"
    emit({
      bench: `http2026.tools_call.throughput.clients${clients}.vs_sdk_v2`,
      ours,
      peer: sdk,
      unit: rate
    })
    emit({ bench: `http2026.tools_call.throughput.clients${clients}.vs_effect_ai`, ours, peer: ai, unit: rate })
  } finally {
    await Promise.all(opened.map((client) => client.close().catch(() => undefined)))
    await Promise.all(children.map((child) => child.stop()))
  }
}
