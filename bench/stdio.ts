// `tools/call` over stdio as a host sees it: every server is a fresh child process run alone
// (bench/servers/host.ts, `add({ a, b })`), driven by the SDK's `Client` over `StdioClientTransport`
// as a host drives it: initialize, `tools/list`, then calls. Each round spawns each competitor anew,
// in a rotating order, so a process's luck (which core it lands on, what else the machine is doing)
// falls on one sample, not on the whole figure; figures are medians over rounds.
//   spawn → first answer   process start to the first answered `tools/call` (initialize and list included)
//   cold                   the first 1,000 calls after that answer, sequential or 64 in flight
//   warm                   after 10,000 calls, sequential and 64 in flight
// Two more servers are spawned for the start-up figure only, to bound it: the raw server under
// Effect's runtime (the floor an Effect server on the SDK pays) and ours loading only what the stdio
// door needs (see bench/servers/host.ts).
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { ADD_ANSWER, ADD_ARGS, ADD_TOOL } from "./lib/adder.ts"
import { serverNodeFlags } from "./lib/child.ts"
import { concurrent, config, count, emit, median, note, now, sequential } from "./lib/measure.ts"

const here = path.dirname(fileURLToPath(import.meta.url))
const script = path.join(here, "servers", "host.ts")

const kinds = ["ours", "raw", "effect-ai"] as const
const bounds = ["effect-floor", "ours-stdio-only"] as const
type Kind = (typeof kinds)[number] | (typeof bounds)[number]

interface Started {
  readonly client: Client
  /** Milliseconds from before the spawn to the first answered `tools/call`. */
  readonly firstMs: number
  readonly call: () => Promise<unknown>
}

/** Spawn one server and take it as far as a host's first answered call. */
const start = async (kind: Kind): Promise<Started> => {
  const t0 = now()
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...serverNodeFlags, "--conditions=effect-surface-source", script, kind],
    stderr: "inherit"
  })
  const client = new Client({ name: "bench-host", version: "0.0.0" }, { capabilities: {} })
  await client.connect(transport)
  await client.listTools()
  const call = () => client.callTool({ name: ADD_TOOL, arguments: ADD_ARGS })
  const first = (await call()) as { readonly structuredContent?: unknown; readonly isError?: boolean }
  const firstMs = now() - t0
  if (JSON.stringify(first.structuredContent) !== JSON.stringify(ADD_ANSWER) || first.isError === true) {
    await client.close()
    throw new Error(`${kind} answered ${JSON.stringify(first)}`)
  }
  return { client, firstMs, call }
}

type Figures = Record<"spawn" | "coldSeq" | "coldPar" | "warmSeq" | "warmPar", Array<number>>

const emptyFigures = (): Figures => ({ spawn: [], coldSeq: [], coldPar: [], warmSeq: [], warmPar: [] })

/** One round for one competitor: two fresh processes, one for each cold figure; the second also warms up. */
const round = async (kind: Kind, into: Figures, sizes: Sizes): Promise<void> => {
  const first = await start(kind)
  try {
    into.spawn.push(first.firstMs)
    into.coldSeq.push(await sequential(sizes.cold, first.call))
  } finally {
    await first.client.close()
  }
  const second = await start(kind)
  try {
    into.spawn.push(second.firstMs)
    into.coldPar.push(await concurrent(sizes.cold, 64, second.call))
    await concurrent(Math.max(0, sizes.warm - sizes.cold), 16, second.call)
    const seq: Array<number> = []
    const par: Array<number> = []
    for (let i = 0; i < sizes.samples; i++) {
      seq.push(await sequential(sizes.seqCalls, second.call))
      par.push(await concurrent(sizes.parCalls, 64, second.call))
    }
    into.warmSeq.push(median(seq))
    into.warmPar.push(median(par))
  } finally {
    await second.client.close()
  }
}

interface Sizes {
  readonly rounds: number
  readonly cold: number
  readonly warm: number
  readonly samples: number
  readonly seqCalls: number
  readonly parCalls: number
}

const spread = (xs: ReadonlyArray<number>): string => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`

const report = (
  name: string,
  unit: string,
  figures: Record<(typeof kinds)[number], ReadonlyArray<number>>
): void => {
  const [ours, raw, ai] = [median(figures.ours), median(figures.raw), median(figures["effect-ai"])]
  note(`${name}: ours ${spread(figures.ours)}, raw ${spread(figures.raw)}, effect/ai ${spread(figures["effect-ai"])}`)
  emit({ bench: `${name}.vs_raw_sdk`, ours, peer: raw, unit })
  emit({ bench: `${name}.vs_effect_ai`, ours, peer: ai, unit })
}

export const run = async (): Promise<void> => {
  const sizes: Sizes = {
    rounds: count(5, 1),
    cold: 1000,
    warm: config.quick ? 2000 : 10_000,
    samples: count(3, 1),
    seqCalls: count(1000, 200),
    parCalls: count(4096, 512)
  }
  note(
    `stdio: ${sizes.rounds} rounds, each competitor spawned alone twice a round; cold = the first ${sizes.cold} ` +
      `calls, warm = after ${sizes.warm}; spreads below are min–max over rounds`
  )
  const taken: Record<(typeof kinds)[number], Figures> = {
    ours: emptyFigures(),
    raw: emptyFigures(),
    "effect-ai": emptyFigures()
  }
  const bounded: Record<(typeof bounds)[number], Array<number>> = { "effect-floor": [], "ours-stdio-only": [] }
  for (let r = 0; r < sizes.rounds; r++) {
    for (let k = 0; k < kinds.length; k++) {
      const kind = kinds[(r + k) % kinds.length]!
      await round(kind, taken[kind], sizes)
    }
    for (let k = 0; k < 2 * bounds.length; k++) {
      const kind = bounds[(r + k) % bounds.length]!
      const started = await start(kind)
      bounded[kind].push(started.firstMs)
      await started.client.close()
    }
  }
  const pick = (figure: keyof Figures) => ({
    ours: taken.ours[figure],
    raw: taken.raw[figure],
    "effect-ai": taken["effect-ai"][figure]
  })
  const spawnUnit = "ms from spawn to the first answered tools/call, median"
  report("stdio.spawn_to_first_call", spawnUnit, pick("spawn"))
  const raw = median(taken.raw.spawn)
  for (const kind of bounds) {
    note(`stdio.spawn_to_first_call, ${kind}: ${spread(bounded[kind])}`)
    emit({
      bench: `stdio.spawn_to_first_call.${kind.replace(/-/g, "_")}.vs_raw_sdk`,
      ours: median(bounded[kind]),
      peer: raw,
      unit: spawnUnit
    })
  }
  report("tools_call.stdio.cold.sequential", "µs per call over the first 1,000 calls, median", pick("coldSeq"))
  report(
    "tools_call.stdio.cold.inflight64",
    "µs per call amortized over the first 1,000 calls (64 in flight), median",
    pick("coldPar")
  )
  report("tools_call.stdio.sequential", `µs per call after ${sizes.warm} calls, median`, pick("warmSeq"))
  report(
    "tools_call.stdio.inflight64",
    `µs per call amortized after ${sizes.warm} calls (64 in flight), median`,
    pick("warmPar")
  )
}
