// Timing, sampling and reporting for the benchmarks: one place that says how a figure is measured
// (warm-up, interleaved samples of ours and the peer, the median) and how it is printed (one JSON
// line on stdout per figure, nothing else on stdout).
import { PerformanceObserver } from "node:perf_hooks"
import * as v8 from "node:v8"

/** Sizes and switches, from the environment. */
export const config = {
  /** `BENCH_QUICK=1`: every figure, few samples — a smoke run, not a measurement. */
  quick: process.env.BENCH_QUICK === "1" || process.env.BENCH_QUICK === "true",
  /** `BENCH_ONLY=regex`: run only the families whose name matches (inmemory, pool, startup, stdio, outside, http, http2026, scale, fanout, acp, toolset, stores, redis). */
  only: process.env.BENCH_ONLY === undefined || process.env.BENCH_ONLY === "" ? undefined
    : new RegExp(process.env.BENCH_ONLY),
  /** `BENCH_EFFORT=0.5`: multiply every sample and iteration count (not sizes) by this factor. */
  effort: Number(process.env.BENCH_EFFORT ?? "1") || 1
}

/** A count for a full run, or for a quick one; multiplied by `BENCH_EFFORT`, at least 1. */
export const count = (full: number, quick: number): number =>
  Math.max(1, Math.round((config.quick ? quick : full) * config.effort))

/** An integer from the environment, or the default for a full or a quick run. */
export const envInt = (name: string, full: number, quick: number): number => {
  const given = process.env[name]
  const parsed = given === undefined ? Number.NaN : Number.parseInt(given, 10)
  return Number.isFinite(parsed) && parsed > 0 ? parsed : config.quick ? quick : full
}

export const now = (): number => performance.now()

export const median = (xs: ReadonlyArray<number>): number => {
  if (xs.length === 0) return Number.NaN
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** A median with a distribution-free interval around it, and the range of what it was taken over. */
export interface MedianInterval {
  readonly median: number
  /** Order statistics bracketing the true median with at least `confidence` (the binomial sign test). */
  readonly low: number
  readonly high: number
  readonly confidence: number
  readonly min: number
  readonly max: number
  readonly n: number
}

/**
 * The median of `xs` and the interval of order statistics [x(k), x(n+1-k)] that holds the true
 * median with probability at least 95%, whatever the distribution: each sample falls on either side
 * of the true median with even odds, so k is the largest with P(Binomial(n, ½) < k) ≤ 2.5%. Below
 * six samples no such k exists and the interval is the whole range.
 */
export const medianInterval = (xs: ReadonlyArray<number>): MedianInterval => {
  const sorted = [...xs].sort((a, b) => a - b)
  const n = sorted.length
  let k = 0
  let below = 0 // P(Binomial(n, ½) ≤ k - 1)
  for (let pmf = 0.5 ** n; below + pmf <= 0.025; k++) {
    below += pmf
    pmf = (pmf * (n - k)) / (k + 1)
  }
  const low = k === 0 ? sorted[0] : sorted[k - 1]
  const high = k === 0 ? sorted[n - 1] : sorted[n - k]
  return {
    median: median(sorted),
    low: low ?? Number.NaN,
    high: high ?? Number.NaN,
    confidence: k === 0 ? 1 : 1 - 2 * below,
    min: sorted[0] ?? Number.NaN,
    max: sorted[n - 1] ?? Number.NaN,
    n
  }
}

/** Spearman's rank correlation of paired samples (ties ranked by order; NaN pairs dropped). */
export const rankCorrelation = (xs: ReadonlyArray<number>, ys: ReadonlyArray<number>): number => {
  const pairs = xs.flatMap((x, i) => (Number.isNaN(x) || Number.isNaN(ys[i]!) ? [] : [[x, ys[i]!] as const]))
  const ranks = (values: ReadonlyArray<number>) => {
    const order = values.map((_, i) => i).sort((a, b) => values[a]! - values[b]!)
    const rank = new Array<number>(values.length)
    order.forEach((i, r) => (rank[i] = r))
    return rank
  }
  const rx = ranks(pairs.map(([x]) => x))
  const ry = ranks(pairs.map(([, y]) => y))
  const n = pairs.length
  const d2 = rx.reduce((sum, r, i) => sum + (r - ry[i]!) ** 2, 0)
  return n < 3 ? Number.NaN : 1 - (6 * d2) / (n * (n * n - 1))
}

const round = (x: number): number => {
  if (!Number.isFinite(x)) return x
  const magnitude = Math.abs(x)
  const digits = magnitude >= 100 ? 1 : magnitude >= 1 ? 3 : 4
  return Number(x.toFixed(digits))
}

export interface Figure {
  readonly bench: string
  readonly ours: number
  readonly peer: number
  /** Which way the ratio is taken: ours over peer (default) or peer over ours. */
  readonly ratio?: "ours/peer" | "peer/ours"
  readonly unit: string
  /** A paired comparison beside the figure: the median of per-round differences (ours − peer) and its interval. */
  readonly difference?: MedianInterval
}

/** Print one figure as one JSON line on stdout. The unit says which way the ratio is taken. */
export const emit = (figure: Figure): void => {
  const direction = figure.ratio ?? "ours/peer"
  const ratio = direction === "ours/peer" ? figure.ours / figure.peer : figure.peer / figure.ours
  process.stdout.write(
    JSON.stringify({
      bench: figure.bench,
      ours: round(figure.ours),
      peer: round(figure.peer),
      ratio: round(ratio),
      unit: `${figure.unit}; ratio=${direction}`,
      ...(figure.difference === undefined ? {} : {
        difference: Object.fromEntries(
          Object.entries(figure.difference).map(([key, value]) => [key, key === "n" ? value : round(value)])
        )
      })
    }) + "\n"
  )
}

/** A progress note on stderr (stdout carries only figures). */
export const note = (text: string): void => {
  process.stderr.write(`  · ${text}\n`)
}

/**
 * Take `samples` samples of each competitor, rotating which goes first each round so drift
 * (thermal, GC, the other core) falls on all of them alike, after `warmup` rounds thrown away.
 */
export const interleave = async (
  competitors: ReadonlyArray<() => Promise<number>>,
  options: { readonly samples: number; readonly warmup: number }
): Promise<Array<Array<number>>> => {
  const taken = competitors.map((): Array<number> => [])
  for (let round = 0; round < options.warmup + options.samples; round++) {
    for (let k = 0; k < competitors.length; k++) {
      const i = (round + k) % competitors.length
      const sample = await competitors[i]!()
      if (round >= options.warmup) taken[i]!.push(sample)
    }
  }
  return taken
}

/** Microseconds per operation over `n` sequential runs of `op`. */
export const sequential = async (n: number, op: () => Promise<unknown>): Promise<number> => {
  const start = now()
  for (let i = 0; i < n; i++) await op()
  return ((now() - start) * 1000) / n
}

/** Microseconds per operation (amortized) over `n` runs of `op` with `inFlight` kept in flight. */
export const concurrent = async (n: number, inFlight: number, op: () => Promise<unknown>): Promise<number> => {
  let next = 0
  const worker = async () => {
    while (next < n) {
      next++
      await op()
    }
  }
  const start = now()
  await Promise.all(Array.from({ length: Math.min(inFlight, n) }, worker))
  return ((now() - start) * 1000) / n
}

/**
 * Heap bytes allocated per operation over `n` runs of `op` (`inFlight` at a time), read as the
 * growth of the used heap across a window no collection fell into: a figure the machine's load
 * cannot move. Needs `--expose-gc` and a young generation large enough to hold the window
 * (`--max-semi-space-size`); a window a collection fell into is taken again, smaller.
 */
export const allocatedPerOp = async (n: number, inFlight: number, op: () => Promise<unknown>): Promise<number> => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) throw new Error("allocatedPerOp needs node --expose-gc")
  let collections = 0
  const observer = new PerformanceObserver((list) => {
    collections += list.getEntries().length
  })
  observer.observe({ entryTypes: ["gc"] })
  try {
    for (let size = n; size >= 16; size = Math.floor(size / 2)) {
      gc()
      await sleep(10) // the observer hears the forced collection before the window opens
      const before = collections
      const used = v8.getHeapStatistics().used_heap_size
      await concurrent(size, inFlight, op)
      const grown = v8.getHeapStatistics().used_heap_size - used
      await sleep(10)
      if (collections === before) return grown / size
    }
    throw new Error("every window was cut by a collection: raise --max-semi-space-size")
  } finally {
    observer.disconnect()
  }
}

/** Resolve after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
