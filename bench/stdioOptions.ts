// The launch options a user of a stdio server may take, each measured for ours and for the raw SDK
// alike and against the default launch: Node's module compile cache (`NODE_COMPILE_CACHE` in the
// server's environment; its first start, which writes the cache, apart from later ones), one
// bundled file per server, and for ours a V8 startup snapshot (lib/bundle.ts). Each is spawned
// once a round, measured to its first answer and through its first 1,000 calls.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { bundled, removeBundles, snapshotted } from "./lib/bundle.ts"
import { emit, median, note, sequential } from "./lib/measure.ts"
import { type Launch, start } from "./lib/stdioHost.ts"

/** What the options' figures need of a run's sizes. */
interface Sizes {
  readonly rounds: number
  readonly cold: number
}

/** The launch options, each for ours and the raw SDK, measured to the first answer and through the cold calls. */
const options = [
  "ours-cache-first",
  "ours-cache",
  "raw-cache",
  "ours-bundle",
  "raw-bundle",
  "ours-bundle-cache",
  "ours-snapshot"
] as const
type Option = (typeof options)[number]

export interface OptionFigures {
  readonly spawn: Array<number>
  readonly spawnCpu: Array<number>
  readonly rss: Array<number>
  readonly coldSeq: Array<number>
  readonly coldSeqCpu: Array<number>
}

const launchOptions = async (sizes: Sizes) => {
  const caches = fs.mkdtempSync(path.join(os.tmpdir(), "effect-surface-compile-cache-"))
  try {
    const warmCache = (name: string) => path.join(caches, name)
    const launchOf = async (option: Option, round: number): Promise<Launch> => {
      switch (option) {
        case "ours-cache-first":
          // An empty cache directory: the first start after an install, which writes the cache.
          return { kind: "ours", cache: warmCache(`first-${round}`) }
        case "ours-cache":
          return { kind: "ours", cache: warmCache("ours") }
        case "raw-cache":
          return { kind: "raw", cache: warmCache("raw") }
        case "ours-bundle":
          return { kind: "ours", bundle: await bundled("ours") }
        case "raw-bundle":
          return { kind: "raw", bundle: await bundled("raw") }
        case "ours-bundle-cache":
          return { kind: "ours", bundle: await bundled("ours"), cache: warmCache("ours-bundle") }
        case "ours-snapshot":
          return { kind: "ours", snapshot: await snapshotted() }
      }
    }
    // Each warm cache is written by one start that is not counted.
    for (const option of ["ours-cache", "raw-cache", "ours-bundle-cache"] as const) {
      const primed = await start(await launchOf(option, -1))
      await sequential(sizes.cold, primed.call)
      await primed.client.close()
    }
    const taken = Object.fromEntries(
      options.map((
        option
      ): [Option, OptionFigures] => [option, { spawn: [], spawnCpu: [], rss: [], coldSeq: [], coldSeqCpu: [] }])
    ) as Record<Option, OptionFigures>
    for (let r = 0; r < sizes.rounds; r++) {
      for (let k = 0; k < options.length; k++) {
        const option = options[(r + k) % options.length]!
        const started = await start(await launchOf(option, r))
        try {
          taken[option].spawn.push(started.firstMs)
          taken[option].spawnCpu.push(started.firstCpuMs)
          taken[option].rss.push(started.rssKiB)
          const cpu0 = await started.cpuMs()
          taken[option].coldSeq.push(await sequential(sizes.cold, started.call))
          taken[option].coldSeqCpu.push(((await started.cpuMs()) - cpu0) * 1000 / sizes.cold)
        } finally {
          await started.client.close()
        }
      }
    }
    return taken
  } finally {
    fs.rmSync(caches, { recursive: true, force: true })
    removeBundles()
  }
}

/** Each launch option against the default launch of the same server, and ours against the raw SDK alike. */
export const launchFigures = async (
  sizes: Sizes,
  taken: Record<"ours" | "raw", OptionFigures>
): Promise<void> => {
  note(`stdio launch options: ${sizes.rounds} rounds, each option spawned once a round`)
  const measured = await launchOptions(sizes)
  const spawnUnit = "ms from spawn to the first answered tools/call, median"
  const cpuUnit = "server CPU ms (user + system) by its first answered tools/call, median"
  const coldUnit = "µs per call over the first 500 calls (sequential), median"
  const rssUnit = "KiB resident (read from /proc) after the first answered tools/call, median"
  const pairs: ReadonlyArray<readonly [string, OptionFigures, Pick<OptionFigures, keyof OptionFigures>]> = [
    // What a user of ours who takes the option sees, against the raw SDK launched by default.
    ["compile_cache_first_start.vs_raw_sdk", measured["ours-cache-first"], taken.raw],
    ["compile_cache.vs_raw_sdk", measured["ours-cache"], taken.raw],
    ["bundle.vs_raw_sdk", measured["ours-bundle"], taken.raw],
    ["bundle_compile_cache.vs_raw_sdk", measured["ours-bundle-cache"], taken.raw],
    ["snapshot.vs_raw_sdk", measured["ours-snapshot"], taken.raw],
    ["snapshot.vs_raw_sdk_bundle", measured["ours-snapshot"], measured["raw-bundle"]],
    // The same option taken by both.
    ["compile_cache.vs_raw_sdk_compile_cache", measured["ours-cache"], measured["raw-cache"]],
    ["bundle.vs_raw_sdk_bundle", measured["ours-bundle"], measured["raw-bundle"]],
    // What the option gives ours, against ours launched by default.
    ["compile_cache_first_start.vs_default", measured["ours-cache-first"], taken.ours],
    ["compile_cache.vs_default", measured["ours-cache"], taken.ours],
    ["bundle.vs_default", measured["ours-bundle"], taken.ours]
  ]
  for (const [name, ours, peer] of pairs) {
    emit({
      bench: `stdio.spawn_to_first_call.${name}`,
      ours: median(ours.spawn),
      peer: median(peer.spawn),
      unit: spawnUnit
    })
    emit({
      bench: `stdio.spawn_to_first_call.cpu.${name}`,
      ours: median(ours.spawnCpu),
      peer: median(peer.spawnCpu),
      unit: cpuUnit
    })
    emit({
      bench: `tools_call.stdio.cold.sequential.${name}`,
      ours: median(ours.coldSeq),
      peer: median(peer.coldSeq),
      unit: coldUnit
    })
    emit({
      bench: `tools_call.stdio.cold.sequential.cpu.${name}`,
      ours: median(ours.coldSeqCpu),
      peer: median(peer.coldSeqCpu),
      unit: "server CPU µs per call over the first 500 calls (sequential), median"
    })
    emit({ bench: `stdio.rss_after_first_call.${name}`, ours: median(ours.rss), peer: median(peer.rss), unit: rssUnit })
  }
}
