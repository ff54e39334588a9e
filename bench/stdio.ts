// `tools/call` over stdio as a host sees it: every server is a fresh child process run alone
// (bench/servers/host.ts, `add({ a, b })`), driven by the SDK's `Client` over `StdioClientTransport`
// as a host drives it: initialize, `tools/list`, then calls. Each round spawns each competitor anew,
// in a rotating order, so a process's luck (which core it lands on, what else the machine is doing)
// falls on one sample, not on the whole figure; figures are medians over rounds.
//   spawn → first answer   process start to the first answered `tools/call` (initialize and list
//                          included), in wall time and in the server's own CPU time (what the
//                          machine's other load moves least)
//   cold                   the first 1,000 calls after that answer, sequential or 64 in flight
//   warm                   after 10,000 calls, sequential and 64 in flight
// Two more servers are spawned for the start-up figure only, to bound it: the raw server under
// Effect's runtime (the floor an Effect server on the SDK pays) and ours taking `serveStdio` from the
// full `effect-surface/mcp` barrel rather than the stdio entry (see bench/servers/host.ts). Ours runs
// as a host runs an installed copy: built JavaScript (lib/built.ts).
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { ADD_ANSWER, ADD_ARGS, ADD_TOOL } from "./lib/adder.ts"
import { builtPackage, cpuMsOf } from "./lib/built.ts"
import { serverNodeFlags } from "./lib/child.ts"
import { concurrent, config, count, emit, median, note, now, sequential } from "./lib/measure.ts"

const here = path.dirname(fileURLToPath(import.meta.url))
const script = path.join(here, "servers", "host.ts")

const kinds = ["ours", "raw", "effect-ai"] as const
const bounds = ["effect-floor", "ours-mcp-barrel"] as const
type Kind = (typeof kinds)[number] | (typeof bounds)[number]

interface Started {
  readonly client: Client
  /** Milliseconds from before the spawn to the first answered `tools/call`. */
  readonly firstMs: number
  /** The server's CPU milliseconds by then (NaN where they cannot be read). */
  readonly firstCpuMs: number
  readonly call: () => Promise<unknown>
}

/** Spawn one server and take it as far as a host's first answered call. */
const start = async (kind: Kind): Promise<Started> => {
  const conditions = await builtPackage()
  const t0 = now()
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...serverNodeFlags, ...conditions, script, kind],
    stderr: "inherit"
  })
  const client = new Client({ name: "bench-host", version: "0.0.0" }, { capabilities: {} })
  await client.connect(transport)
  await client.listTools()
  const call = () => client.callTool({ name: ADD_TOOL, arguments: ADD_ARGS })
  const first = (await call()) as { readonly structuredContent?: unknown; readonly isError?: boolean }
  const firstMs = now() - t0
  const firstCpuMs = (await cpuMsOf(transport.pid)) ?? Number.NaN
  if (JSON.stringify(first.structuredContent) !== JSON.stringify(ADD_ANSWER) || first.isError === true) {
    await client.close()
    throw new Error(`${kind} answered ${JSON.stringify(first)}`)
  }
  return { client, firstMs, firstCpuMs, call }
}

type Figures = Record<"spawn" | "spawnCpu" | "coldSeq" | "coldPar" | "warmSeq" | "warmPar", Array<number>>

const emptyFigures = (): Figures => ({ spawn: [], spawnCpu: [], coldSeq: [], coldPar: [], warmSeq: [], warmPar: [] })

/** One round for one competitor: two fresh processes, one for each cold figure; the second also warms up. */
const round = async (kind: Kind, into: Figures, sizes: Sizes): Promise<void> => {
  const first = await start(kind)
  try {
    into.spawn.push(first.firstMs)
    into.spawnCpu.push(first.firstCpuMs)
    into.coldSeq.push(await sequential(sizes.cold, first.call))
  } finally {
    await first.client.close()
  }
  const second = await start(kind)
  try {
    into.spawn.push(second.firstMs)
    into.spawnCpu.push(second.firstCpuMs)
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
  const bounded: Record<(typeof bounds)[number], { readonly wall: Array<number>; readonly cpu: Array<number> }> = {
    "effect-floor": { wall: [], cpu: [] },
    "ours-mcp-barrel": { wall: [], cpu: [] }
  }
  for (let r = 0; r < sizes.rounds; r++) {
    for (let k = 0; k < kinds.length; k++) {
      const kind = kinds[(r + k) % kinds.length]!
      await round(kind, taken[kind], sizes)
    }
    for (let k = 0; k < 2 * bounds.length; k++) {
      const kind = bounds[(r + k) % bounds.length]!
      const started = await start(kind)
      bounded[kind].wall.push(started.firstMs)
      bounded[kind].cpu.push(started.firstCpuMs)
      await started.client.close()
    }
  }
  const pick = (figure: keyof Figures) => ({
    ours: taken.ours[figure],
    raw: taken.raw[figure],
    "effect-ai": taken["effect-ai"][figure]
  })
  const spawnUnit = "ms from spawn to the first answered tools/call, median"
  const cpuUnit = "server CPU ms (user + system) by its first answered tools/call, median"
  report("stdio.spawn_to_first_call", spawnUnit, pick("spawn"))
  report("stdio.spawn_to_first_call.cpu", cpuUnit, pick("spawnCpu"))
  for (
    const [figure, unit, ours, raw] of [
      ["spawn_to_first_call", spawnUnit, taken.ours.spawn, taken.raw.spawn],
      ["spawn_to_first_call.cpu", cpuUnit, taken.ours.spawnCpu, taken.raw.spawnCpu]
    ] as const
  ) {
    const which = figure.endsWith("cpu") ? "cpu" : "wall"
    for (const kind of bounds) {
      note(`stdio.${figure}, ${kind}: ${spread(bounded[kind][which])}`)
      emit({
        bench: `stdio.${figure}.${kind.replace(/-/g, "_")}.vs_raw_sdk`,
        ours: median(bounded[kind][which]),
        peer: median(raw),
        unit
      })
    }
    // What of ours is left above the least an Effect server on the SDK loads.
    emit({
      bench: `stdio.${figure}.vs_effect_floor`,
      ours: median(ours),
      peer: median(bounded["effect-floor"][which]),
      unit
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
