// What a V8 CPU profile or a precise-coverage reading says, summarised for the README's claims:
// self time by part of the dependency tree (lib/moduleGroups.ts; V8's own work — `(program)`: parsing,
// compiling, inline caches, the loader; `(garbage collector)` — shown as such), the heaviest functions,
// and from coverage the distinct functions a call executes and how many times each, by part.
// Used by startupProfile.ts (a stdio child), profile.ts (in-process hot loops) and
// `node bench/lib/profileSummary.ts FILE.cpuprofile…` (any profile, e.g. a child's written under
// BENCH_SERVER_NODE_FLAGS="--cpu-prof --cpu-prof-dir=DIR").
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import { groupOf } from "./moduleGroups.ts"

export interface Profile {
  readonly nodes: ReadonlyArray<{
    readonly id: number
    readonly callFrame: {
      readonly url: string
      readonly functionName: string
      readonly lineNumber?: number
    }
  }>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
  readonly startTime: number
  readonly endTime: number
}

const short = (url: string) =>
  url.replace(/^.*\/node_modules\//, "").replace(/^file:\/\/.*?\/(src|dist|bench)\//, "$1/")

/** Self time (µs) by group and by function, over the samples taken at or after `from` (V8's clock, µs). */
export const selfTimes = (profile: Profile, from = 0) => {
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]))
  const groups = new Map<string, number>()
  const functions = new Map<string, number>()
  let at = profile.startTime
  let total = 0
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0
    at += us
    if (at < from) return
    const frame = byId.get(id)
    const native = frame === undefined || frame.url === ""
    const name = frame?.functionName ?? "unknown"
    if (native && name === "(idle)") return
    total += us
    const group = native ? `(${name.replace(/[()]/g, "")})` : groupOf(frame.url)
    groups.set(group, (groups.get(group) ?? 0) + us)
    if (!native) {
      const key = `${name || "(anonymous)"} ${short(frame.url)}:${(frame.lineNumber ?? 0) + 1}`
      functions.set(key, (functions.get(key) ?? 0) + us)
    }
  })
  return { total, groups, functions }
}

const top = (map: Map<string, number>, n: number) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n)

/** Print `selfTimes` per unit of work (`per` units, e.g. calls: µs each), or in ms when `per` is 1. */
export const printSelfTimes = (
  label: string,
  times: ReturnType<typeof selfTimes>,
  per = 1,
  write = (line: string) => process.stdout.write(line + "\n")
) => {
  const fmt = (us: number) => per === 1 ? `${(us / 1000).toFixed(1)} ms` : `${(us / per).toFixed(1)} µs`
  const pct = (us: number) => `${((100 * us) / Math.max(times.total, 1)).toFixed(1)}%`.padStart(6)
  // Sampled time of the profiled thread, idle excluded: a sample taken while the thread waits in a
  // system call (a write to a full or slow pipe, say) counts, so this is not CPU time as /proc reads it.
  write(
    `${label}: ${fmt(times.total)} of the thread's time${
      per === 1 ? "" : " a unit"
    } (idle excluded), self time by part:`
  )
  for (const [group, us] of top(times.groups, 14)) write(`  ${fmt(us).padStart(10)} ${pct(us)}  ${group}`)
  write(`heaviest functions:`)
  for (const [key, us] of top(times.functions, 14)) write(`  ${fmt(us).padStart(10)} ${pct(us)}  ${key}`)
}

/** One function of a precise-coverage reading: where it is and how often it ran. */
interface Covered {
  readonly url: string
  readonly functionName: string
  readonly start: number
  readonly count: number
}

interface Coverage {
  readonly result: ReadonlyArray<{
    readonly url: string
    readonly functions: ReadonlyArray<{
      readonly functionName: string
      readonly ranges: ReadonlyArray<{ readonly startOffset: number; readonly count: number }>
    }>
  }>
}

/** Every function of a `Profiler.takePreciseCoverage` (or NODE_V8_COVERAGE) result, with its call count. */
export const functionsOf = (coverage: Coverage): ReadonlyArray<Covered> =>
  coverage.result.flatMap((script) =>
    script.functions.map((fn) => ({
      url: script.url,
      functionName: fn.functionName,
      start: fn.ranges[0]?.startOffset ?? 0,
      count: fn.ranges[0]?.count ?? 0
    }))
  )

/**
 * The functions run per unit of work: counts of `after` less those of `before` (when the counters were
 * not reset between them), divided by `units`. Answers, by group, the distinct functions run at least
 * once a unit, and the calls of functions a unit makes.
 */
export const functionsPerUnit = (
  after: ReadonlyArray<Covered>,
  units: number,
  before: ReadonlyArray<Covered> = []
) => {
  const key = (fn: Covered) => `${fn.url}#${fn.start}#${fn.functionName}`
  const earlier = new Map(before.map((fn) => [key(fn), fn.count]))
  const groups = new Map<string, { distinct: number; invocations: number }>()
  const each: Array<{ readonly group: string; readonly name: string; readonly per: number }> = []
  let distinct = 0
  let invocations = 0
  for (const fn of after) {
    const per = (fn.count - (earlier.get(key(fn)) ?? 0)) / units
    // A function the unit runs runs once a unit at least; fewer is warm-up or timers.
    if (per < 0.99 || fn.url === "") continue
    const group = groupOf(fn.url)
    const at = groups.get(group) ?? { distinct: 0, invocations: 0 }
    groups.set(group, { distinct: at.distinct + 1, invocations: at.invocations + per })
    each.push({ group, name: `${fn.functionName || "(anonymous)"} ${short(fn.url)}@${fn.start}`, per })
    distinct += 1
    invocations += per
  }
  return { distinct, invocations, groups, each }
}

export const printFunctions = (
  label: string,
  counted: ReturnType<typeof functionsPerUnit>,
  write = (line: string) => process.stdout.write(line + "\n")
) => {
  write(
    `${label}: ${counted.distinct} distinct functions run on every unit, ${
      counted.invocations.toFixed(0)
    } function calls a unit`
  )
  for (const [group, at] of [...counted.groups].sort((a, b) => b[1].invocations - a[1].invocations)) {
    write(`  ${String(at.distinct).padStart(5)} distinct ${at.invocations.toFixed(0).padStart(6)} calls  ${group}`)
  }
  // BENCH_LIST_FUNCTIONS=regex: list each function of the groups it matches.
  const listed = process.env.BENCH_LIST_FUNCTIONS
  if (listed === undefined) return
  const pattern = new RegExp(listed)
  for (const fn of counted.each.filter((fn) => pattern.test(fn.group))) {
    write(`  ${fn.per.toFixed(1).padStart(6)}×  ${fn.name}`)
  }
}

// `node bench/lib/profileSummary.ts FILE.cpuprofile…`: each profile's self time by part.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const file of process.argv.slice(2)) {
    printSelfTimes(file, selfTimes(JSON.parse(fs.readFileSync(file, "utf8")) as Profile))
  }
}
