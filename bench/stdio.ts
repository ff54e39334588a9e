// `tools/call` over stdio as a host sees it: every server is a fresh child process run alone
// (bench/servers/host.ts, `add({ a, b })`), driven by the SDK's `Client` over `StdioClientTransport`
// as a host drives it: initialize, `tools/list`, then calls. Each round spawns each competitor anew,
// in a rotating order, so a process's luck (which core it lands on, what else the machine is doing)
// falls on one sample, not on the whole figure; figures are medians over rounds.
//   spawn → first answer   process start to the first answered `tools/call` (initialize and list
//                          included), in wall time and in the server's own CPU time (what the
//                          machine's other load moves least)
//   resident memory        the server's RSS right after that answer, read from outside (/proc)
//   cold                   the first 500 calls after that answer, sequential or 64 in flight
//   steady                 calls (64 in flight, in rounds of 250) until a round's per-call time is
//                          within 1.15× of the raw SDK's warm figure for three rounds running
//   warm                   after 10,000 calls, sequential and 64 in flight
// Two more servers are spawned for the start-up figure only, to bound it: the raw server under
// Effect's runtime (the floor an Effect server on the SDK pays) and ours taking `serveStdio` from the
// full `effect-surface/mcp` barrel rather than the stdio entry (see bench/servers/host.ts). Ours runs
// as a host runs an installed copy: built JavaScript (lib/built.ts). The launch options a user may
// take are measured beside the default, each for ours and for the raw SDK alike: Node's module
// compile cache (`NODE_COMPILE_CACHE` in the server's environment; its first start, which writes the
// cache, apart from later ones), one bundled file per server (lib/bundle.ts), and for ours a V8
// startup snapshot.
import { concurrent, config, count, emit, median, note, sequential } from "./lib/measure.ts"
import { bounds, type Kind, kinds, start } from "./lib/stdioHost.ts"
import { launchFigures } from "./stdioOptions.ts"

type Figures =
  & Record<
    | "spawn"
    | "spawnCpu"
    | "rss"
    | "coldSeq"
    | "coldPar"
    | "coldSeqCpu"
    | "coldParCpu"
    | "warmSeq"
    | "warmPar"
    | "warmSeqCpu"
    | "warmParCpu",
    Array<number>
  >
  & {
    /** Per round of the warm-up, µs per call (64 in flight), one curve per process. */
    readonly curves: Array<Array<number>>
  }

const emptyFigures = (): Figures => ({
  spawn: [],
  spawnCpu: [],
  rss: [],
  coldSeq: [],
  coldPar: [],
  coldSeqCpu: [],
  coldParCpu: [],
  warmSeq: [],
  warmPar: [],
  warmSeqCpu: [],
  warmParCpu: [],
  curves: []
})

/** A round of the warm-up: this many calls, 64 in flight. */
const STEP = 250

/** One round for one competitor: two fresh processes, one for each cold figure; the second also warms up. */
const round = async (kind: Kind, into: Figures, sizes: Sizes): Promise<void> => {
  const first = await start({ kind })
  try {
    into.spawn.push(first.firstMs)
    into.spawnCpu.push(first.firstCpuMs)
    into.rss.push(first.rssKiB)
    const cpu0 = await first.cpuMs()
    into.coldSeq.push(await sequential(sizes.cold, first.call))
    into.coldSeqCpu.push(((await first.cpuMs()) - cpu0) * 1000 / sizes.cold)
  } finally {
    await first.client.close()
  }
  const second = await start({ kind })
  try {
    into.spawn.push(second.firstMs)
    into.spawnCpu.push(second.firstCpuMs)
    into.rss.push(second.rssKiB)
    // The first 500 calls are the cold figure; every round of the warm-up is a point of the curve.
    const curve: Array<number> = []
    const cpu0 = await second.cpuMs()
    for (let done = 0; done < sizes.warm; done += STEP) {
      curve.push(await concurrent(STEP, 64, second.call))
      if (done + STEP === sizes.cold) into.coldParCpu.push(((await second.cpuMs()) - cpu0) * 1000 / sizes.cold)
    }
    into.curves.push(curve)
    const coldRounds = curve.slice(0, sizes.cold / STEP)
    into.coldPar.push(coldRounds.reduce((sum, x) => sum + x, 0) / coldRounds.length)
    const seq: Array<number> = []
    const par: Array<number> = []
    // Warm wall figures with 64 in flight move by several times between samples of one process on
    // two cores (the client's and the server's threads take turns); the server's CPU moves least.
    let [seqCpu, parCpu] = [0, 0]
    for (let i = 0; i < sizes.samples; i++) {
      const c0 = await second.cpuMs()
      seq.push(await sequential(sizes.seqCalls, second.call))
      const c1 = await second.cpuMs()
      par.push(await concurrent(sizes.parCalls, 64, second.call))
      seqCpu += c1 - c0
      parCpu += (await second.cpuMs()) - c1
    }
    into.warmSeq.push(median(seq))
    into.warmPar.push(median(par))
    into.warmSeqCpu.push(seqCpu * 1000 / (sizes.samples * sizes.seqCalls))
    into.warmParCpu.push(parCpu * 1000 / (sizes.samples * sizes.parCalls))
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

/** Calls until a curve's rounds stay within `limit` µs per call for three rounds running; NaN if never. */
const callsToSteady = (curve: ReadonlyArray<number>, limit: number): number => {
  for (let i = 0; i + 2 < curve.length; i++) {
    if (curve[i]! <= limit && curve[i + 1]! <= limit && curve[i + 2]! <= limit) return (i + 1) * STEP
  }
  return Number.NaN
}

export const run = async (): Promise<void> => {
  const sizes: Sizes = {
    rounds: count(5, 1),
    cold: 500,
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
  const bounded: Record<
    (typeof bounds)[number],
    { readonly wall: Array<number>; readonly cpu: Array<number>; readonly rss: Array<number> }
  > = {
    "effect-floor": { wall: [], cpu: [], rss: [] },
    "ours-mcp-barrel": { wall: [], cpu: [], rss: [] },
    "ours-deep-imports": { wall: [], cpu: [], rss: [] }
  }
  for (let r = 0; r < sizes.rounds; r++) {
    for (let k = 0; k < kinds.length; k++) {
      const kind = kinds[(r + k) % kinds.length]!
      await round(kind, taken[kind], sizes)
    }
    for (let k = 0; k < 2 * bounds.length; k++) {
      const kind = bounds[(r + k) % bounds.length]!
      const started = await start({ kind })
      bounded[kind].wall.push(started.firstMs)
      bounded[kind].cpu.push(started.firstCpuMs)
      bounded[kind].rss.push(started.rssKiB)
      await started.client.close()
    }
  }
  const pick = (figure: Exclude<keyof Figures, "curves">) => ({
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
  const rssUnit = "KiB resident (read from /proc) after the first answered tools/call, median"
  report("stdio.rss_after_first_call", rssUnit, pick("rss"))
  // What memory is bounded by: the least an Effect server on the SDK holds, and ours when the app
  // imports `effect`'s modules by path (so the barrel's modules are never loaded).
  for (const kind of ["effect-floor", "ours-deep-imports"] as const) {
    note(`stdio.rss_after_first_call, ${kind}: ${spread(bounded[kind].rss.map((kib) => kib / 1024))} MB`)
    emit({
      bench: `stdio.rss_after_first_call.${kind.replace(/-/g, "_")}.vs_raw_sdk`,
      ours: median(bounded[kind].rss),
      peer: median(taken.raw.rss),
      unit: rssUnit
    })
  }
  emit({
    bench: "stdio.rss_after_first_call.vs_effect_floor",
    ours: median(taken.ours.rss),
    peer: median(bounded["effect-floor"].rss),
    unit: rssUnit
  })
  report("tools_call.stdio.cold.sequential", "µs per call over the first 500 calls, median", pick("coldSeq"))
  report(
    "tools_call.stdio.cold.inflight64",
    "µs per call amortized over the first 500 calls (64 in flight), median",
    pick("coldPar")
  )
  report(
    "tools_call.stdio.cold.sequential.cpu",
    "server CPU µs per call over the first 500 calls (what load moves least), median",
    pick("coldSeqCpu")
  )
  report(
    "tools_call.stdio.cold.inflight64.cpu",
    "server CPU µs per call over the first 500 calls, 64 in flight (what load moves least), median",
    pick("coldParCpu")
  )
  report("tools_call.stdio.sequential", `µs per call after ${sizes.warm} calls, median`, pick("warmSeq"))
  report(
    "tools_call.stdio.inflight64",
    `µs per call amortized after ${sizes.warm} calls (64 in flight), median`,
    pick("warmPar")
  )
  report(
    "tools_call.stdio.sequential.cpu",
    `server CPU µs per call after ${sizes.warm} calls (what load moves least), median`,
    pick("warmSeqCpu")
  )
  report(
    "tools_call.stdio.inflight64.cpu",
    `server CPU µs per call after ${sizes.warm} calls, 64 in flight (what load moves least), median`,
    pick("warmParCpu")
  )
  steady(taken, sizes)
  await launchFigures(sizes, taken)
}

/** Calls until each server's per-call time reaches the raw SDK's warm figure (within 1.15×). */
const steady = (taken: Record<(typeof kinds)[number], Figures>, sizes: Sizes): void => {
  const limit = 1.15 * median(taken.raw.warmPar)
  const of = (kind: (typeof kinds)[number]) => taken[kind].curves.map((curve) => callsToSteady(curve, limit))
  const [ours, raw] = [of("ours"), of("raw")]
  const shown = (xs: ReadonlyArray<number>) => xs.map((x) => Number.isNaN(x) ? `>${sizes.warm}` : String(x)).join(", ")
  note(`stdio steady (within ${limit.toFixed(1)} µs a call, 64 in flight): ours ${shown(ours)}; raw ${shown(raw)}`)
  // Where a curve never got there, the last rounds say how far off it stayed.
  const tail = (kind: (typeof kinds)[number]) =>
    median(taken[kind].curves.map((curve) => median(curve.slice(-4)))) / median(taken.raw.warmPar)
  note(
    `stdio steady: the last 1,000 warm-up calls ran at ${tail("ours").toFixed(2)}× raw's warm (ours), ${
      tail("raw").toFixed(2)
    }× (raw)`
  )
  // A server that never got there counts as the whole warm-up: a floor, said in the note above.
  const floor = (xs: ReadonlyArray<number>) => median(xs.map((x) => Number.isNaN(x) ? sizes.warm : x))
  emit({
    bench: "tools_call.stdio.calls_to_steady.inflight64.vs_raw_sdk",
    ours: floor(ours),
    peer: floor(raw),
    unit:
      `calls until three rounds of ${STEP} (64 in flight) run within 1.15× the raw SDK's warm per-call time, median (capped at ${sizes.warm})`
  })
}
