// The package as a host runs it: its built JavaScript (`npm run build`, into dist/), not the
// TypeScript sources. Node strips the types of every .ts module it loads, at every start; an
// installed copy loads JavaScript and never pays that, and for a stdio server's ~45 modules of ours
// the stripping costs more CPU than everything else of ours put together. So the start-up figures
// build the package once and run it without the source condition; `BENCH_SOURCES=1` runs the
// sources instead (what `npm -s run stdio` in this repository pays).
import { execFile } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { note } from "./measure.ts"

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..")
const fromSources = process.env.BENCH_SOURCES === "1" || process.env.BENCH_SOURCES === "true"

let building: Promise<ReadonlyArray<string>> | undefined

/** Build the package (once per bench run); answers the Node flags that load what was built. */
export const builtPackage = (): Promise<ReadonlyArray<string>> => {
  if (fromSources) return Promise.resolve(["--conditions=effect-surface-source"])
  building ??= new Promise((resolve, reject) => {
    // What `npm run build` runs: the declarations, then the bundled JavaScript.
    const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc")
    const fail = (stdout: string) => reject(new Error(`npm run build failed: ${stdout}`))
    execFile(
      process.execPath,
      [tsc, "-p", "tsconfig.build.json", "--emitDeclarationOnly"],
      { cwd: root },
      (error, stdout) => {
        if (error !== null) return fail(stdout)
        execFile(process.execPath, [path.join("scripts", "bundle.ts")], { cwd: root }, (error, stdout) => {
          if (error !== null) return fail(stdout)
          note(
            "effect-surface built into dist/; its start-up figures run the built JavaScript (BENCH_SOURCES=1: the sources)"
          )
          resolve([])
        })
      }
    )
  })
  return building
}

/**
 * The CPU time (ms) process `pid` has used so far; undefined where /proc is not. Read as the run
 * time the scheduler keeps for each of its threads, in nanoseconds (`schedstat` of each `/proc/PID/task/TID`):
 * user and system time (`/proc/PID/stat`) move in 10 ms ticks, a tenth of what the raw server's
 * first 1,000 calls cost, so a ratio of two such readings could move by 0.2 on rounding alone.
 * Where the kernel keeps no schedstat, the ticks.
 */
export const cpuMsOf = async (pid: number | null | undefined): Promise<number | undefined> => {
  if (pid === null || pid === undefined) return undefined
  const { readdir, readFile } = await import("node:fs/promises")
  try {
    const tasks = await readdir(`/proc/${pid}/task`)
    const runs = await Promise.all(
      tasks.map((task) => readFile(`/proc/${pid}/task/${task}/schedstat`, "utf8").catch(() => "0"))
    )
    const ns = runs.reduce((sum, line) => sum + Number(line.split(" ")[0] ?? "0"), 0)
    if (ns > 0) return ns / 1e6
  } catch {
    // no such process, or no schedstat: the ticks below
  }
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8")
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th, in ticks.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) * (1000 / clockTicks)
  } catch {
    return undefined
  }
}

// USER_HZ: 100 on every Linux Node runs on.
const clockTicks = 100

/** The resident memory (VmRSS, KiB) of process `pid`, read from outside; undefined where /proc is not. */
export const rssKiBOf = async (pid: number | null | undefined): Promise<number | undefined> => {
  if (pid === null || pid === undefined) return undefined
  try {
    const { readFile } = await import("node:fs/promises")
    const status = await readFile(`/proc/${pid}/status`, "utf8")
    const kib = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1]
    return kib === undefined ? undefined : Number(kib)
  } catch {
    return undefined
  }
}

/** The process a launcher ended in: `pid` followed down through its only child while it has one
 * (`npm run` → the script's `node`), so CPU and memory are read from the server, not its launcher. */
export const serverPidOf = async (pid: number | null | undefined): Promise<number | undefined> => {
  if (pid === null || pid === undefined) return undefined
  const { readFile } = await import("node:fs/promises")
  let at = pid
  for (let depth = 0; depth < 4; depth++) {
    const children = await readFile(`/proc/${at}/task/${at}/children`, "utf8").catch(() => "")
    const pids = children.split(" ").filter((x) => x !== "").map(Number)
    if (pids.length !== 1) break
    at = pids[0]!
  }
  return at
}
