// What a reliability test counts to prove nothing leaked: the process's open handles (sockets, pipes,
// child processes) and file descriptors, and its heap after a forced collection.
import { Console, Effect, Layer, References, Schedule } from "effect"
import type { Duration } from "effect"
import * as Fs from "node:fs"
import * as V8 from "node:v8"
import * as Vm from "node:vm"

/** Open libuv handles of this process, by type (`TCPSocketWrap`, `PipeWrap`, `ProcessWrap`, …). */
export const handles = (): Readonly<Record<string, number>> => {
  const counts: Record<string, number> = {}
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1
  return counts
}

/** Child processes this process is still holding (one `ProcessWrap` each). */
export const childProcesses = (): number => handles()["ProcessWrap"] ?? 0

/**
 * Sockets this process holds, counted from `/proc/self/fd` (unix, TCP and socketpair descriptors
 * alike); `undefined` where `/proc` is not available.
 */
export const socketFds = (): number | undefined => {
  try {
    let n = 0
    for (const fd of Fs.readdirSync("/proc/self/fd")) {
      try {
        if (Fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith("socket:")) n++
      } catch {
        // closed between the listing and the read
      }
    }
    return n
  } catch {
    return undefined
  }
}

/** Socket handles as libuv sees them: unix-socket and pipe streams plus TCP sockets. */
export const socketHandles = (): number => {
  const h = handles()
  return (h["PipeWrap"] ?? 0) + (h["TCPSocketWrap"] ?? 0)
}

let collector: (() => void) | undefined

/**
 * A full, forced garbage collection: `globalThis.gc` under `--expose-gc` (the stress config passes
 * it), else the same function obtained at run time by turning the flag on through `v8`.
 */
export const gc = (): void => {
  if (collector === undefined) {
    const exposed = (globalThis as { gc?: () => void }).gc
    if (typeof exposed === "function") collector = exposed
    else {
      V8.setFlagsFromString("--expose-gc")
      collector = Vm.runInNewContext("gc") as () => void
    }
  }
  collector()
}

/** `heapUsed` once collection has settled: several forced collections with the loop let run between. */
export const settledHeap: Effect.Effect<number> = Effect.gen(function*() {
  let last = Number.POSITIVE_INFINITY
  for (let i = 0; i < 6; i++) {
    yield* Effect.sleep("20 millis")
    gc()
    const used = process.memoryUsage().heapUsed
    // Two collections within 64 KiB of each other: nothing more is coming back.
    if (Math.abs(last - used) < 64 * 1024) return used
    last = used
  }
  return last
})

/** Wait (bounded, on the real clock) until `read` satisfies `done`; answer its last value either way. */
export const eventually = <A>(
  read: Effect.Effect<A>,
  done: (a: A) => boolean,
  times = 300,
  every: Duration.Input = "10 millis"
): Effect.Effect<A> => Effect.repeat(read, { until: done, schedule: Schedule.spaced(every), times })

// A console whose every method does nothing: the example's board_focus prints through Effect's Console.
const silentConsole = new Proxy({}, { get: () => () => undefined }) as Console.Console

/**
 * In-process servers under test print nothing below a warning: the example's console prints and
 * info logs would bury the test report. Warnings and errors (a defect logged by a session) still show.
 */
export const quiet: Layer.Layer<never> = Layer.mergeAll(
  Layer.succeed(Console.Console, silentConsole),
  Layer.succeed(References.MinimumLogLevel, "Warn")
)
