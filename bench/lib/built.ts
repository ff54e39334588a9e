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

/** A process's CPU time (ms) split by thread. */
export interface ThreadCpu {
  /** The main thread (its id is the pid): the JavaScript, module loading and compiling, the I/O loop. */
  readonly main: number
  /** Every other thread: V8's workers (background compiling, the collector's parallel and concurrent
   * marking), its delayed-task scheduler, libuv's pool. */
  readonly helpers: number
  /** Time (ms) the main thread spent runnable on a run queue, waiting for a core: the machine's load
   * as this process met it (NaN without schedstat). */
  readonly mainWaiting: number
  /** How many times the main thread was put on a core (NaN without schedstat). */
  readonly mainSlices: number
}

/** The CPU split of a process that could not be read. */
export const unreadCpu: ThreadCpu = {
  main: Number.NaN,
  helpers: Number.NaN,
  mainWaiting: Number.NaN,
  mainSlices: Number.NaN
}

/** Main thread and helpers together. */
export const totalCpu = (cpu: ThreadCpu): number => cpu.main + cpu.helpers

/**
 * The CPU time process `pid` has used so far, per thread (ms); undefined where /proc is not. Read as
 * the run time the scheduler keeps for each thread, in nanoseconds (`schedstat` of each
 * `/proc/PID/task/TID`): user and system time (`stat`) move in 10 ms ticks, a tenth of what the raw
 * server's first 1,000 calls cost, so a ratio of two such readings could move by 0.2 on rounding
 * alone. Where the kernel keeps no schedstat, each thread's ticks. A thread that has exited is not
 * counted (Node's threads live as long as the process). The main thread's run-queue wait and time
 * slices come from the same line.
 */
export const threadCpuOf = async (pid: number | null | undefined): Promise<ThreadCpu | undefined> => {
  if (pid === null || pid === undefined) return undefined
  const { readdir, readFile } = await import("node:fs/promises")
  const task = (tid: string) => `/proc/${pid}/task/${tid}`
  // Per thread: [run ns, run-queue wait ns, slices].
  const scheduled = (tid: string) =>
    readFile(`${task(tid)}/schedstat`, "utf8").then((line) => line.split(" ").slice(0, 3).map(Number), () => [0])
  const ticks = (tid: string) =>
    readFile(`${task(tid)}/stat`, "utf8").then((stat) => {
      // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      return [(Number(fields[11]) + Number(fields[12])) * (1e9 / clockTicks)]
    }, () => [0])
  let tids: ReadonlyArray<string>
  try {
    tids = await readdir(`/proc/${pid}/task`)
  } catch {
    return undefined
  }
  const read = async (of: (tid: string) => Promise<ReadonlyArray<number>>): Promise<ThreadCpu | undefined> => {
    const lines = await Promise.all(tids.map(of))
    const main = lines[tids.indexOf(String(pid))] ?? [0]
    const all = lines.reduce((sum, line) => sum + (line[0] ?? 0), 0)
    return all > 0
      ? {
        main: (main[0] ?? 0) / 1e6,
        helpers: (all - (main[0] ?? 0)) / 1e6,
        mainWaiting: (main[1] ?? Number.NaN) / 1e6,
        mainSlices: main[2] ?? Number.NaN
      }
      : undefined
  }
  return (await read(scheduled)) ?? (await read(ticks))
}

/** The CPU time (ms) process `pid` has used so far, all its threads; undefined where /proc is not. */
export const cpuMsOf = async (pid: number | null | undefined): Promise<number | undefined> => {
  const cpu = await threadCpuOf(pid)
  return cpu === undefined ? undefined : totalCpu(cpu)
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
