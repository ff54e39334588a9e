// The `tools/call` figures for one transport: ours against the raw SDK and against effect/ai,
// sequential and with 64 calls in flight, after a warm-up long enough for every competitor's JIT
// to settle (ours keeps getting faster for ~10k calls).
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { concurrent, count, emit, interleave, median, note, sequential } from "./measure.ts"
import { ARGS, TOOL } from "./workload.ts"

/** A competitor, wherever its client runs: one call's result, and timed runs in µs per call. */
export interface Competitor {
  readonly check: () => Promise<unknown>
  readonly seq: (n: number) => Promise<number>
  readonly par: (n: number, inFlight: number) => Promise<number>
}

export interface Competitors {
  readonly ours: Competitor
  readonly raw: Competitor
  readonly ai: Competitor
}

const callOnce = (client: Client) => () => client.callTool({ name: TOOL, arguments: ARGS })

/** A competitor whose client runs in this process. */
export const local = (client: Client): Competitor => ({
  check: callOnce(client),
  seq: (n) => sequential(n, callOnce(client)),
  par: (n, inFlight) => concurrent(n, inFlight, callOnce(client))
})

/** Every competitor answers the same result, or the comparison means nothing. */
const checkSame = async (competitors: Competitors): Promise<void> => {
  for (const [name, competitor] of Object.entries(competitors)) {
    const result = (await competitor.check()) as { readonly structuredContent?: unknown; readonly isError?: boolean }
    if (JSON.stringify(result.structuredContent) !== JSON.stringify(ARGS) || result.isError === true) {
      throw new Error(`${name} answered ${JSON.stringify(result)}`)
    }
  }
}

export const callFigures = async (transport: string, competitors: Competitors, aiLabel: string): Promise<void> => {
  await checkSame(competitors)
  const all = [competitors.ours, competitors.raw, competitors.ai]
  const warm = count(transport === "stdio" ? 10_000 : 20_000, 500)
  const seqCalls = count(transport === "stdio" ? 1000 : 2000, 150)
  const parCalls = count(transport === "stdio" ? 4096 : 8192, 512)
  const samples = count(11, 3)
  const warmup = count(2, 1)

  note(`${transport}: warm-up ${warm} calls each, then ${samples} samples × ${seqCalls} sequential calls`)
  for (const competitor of all) await competitor.par(warm, 16)
  const seq = await interleave(all.map((c) => () => c.seq(seqCalls)), { samples, warmup })
  const [seqOurs, seqRaw, seqAi] = seq.map(median) as [number, number, number]
  emit({
    bench: `tools_call.${transport}.sequential.vs_raw_sdk`,
    ours: seqOurs,
    peer: seqRaw,
    unit: "µs per call, median"
  })
  emit({
    bench: `tools_call.${transport}.sequential.vs_effect_ai${aiLabel}`,
    ours: seqOurs,
    peer: seqAi,
    unit: "µs per call, median"
  })

  note(`${transport}: ${samples} samples × ${parCalls} calls, 64 in flight`)
  const par = await interleave(all.map((c) => () => c.par(parCalls, 64)), { samples, warmup })
  const [parOurs, parRaw, parAi] = par.map(median) as [number, number, number]
  const unit = "µs per call amortized (64 in flight), median"
  emit({ bench: `tools_call.${transport}.inflight64.vs_raw_sdk`, ours: parOurs, peer: parRaw, unit })
  emit({ bench: `tools_call.${transport}.inflight64.vs_effect_ai${aiLabel}`, ours: parOurs, peer: parAi, unit })
}
