// One throughput sample against a server in a child process: every caller calls back to back for
// a while, and the server's own CPU is read before and after, so a figure can say both how many
// calls a second the server answered and what each cost it (the callers here can cap a fast
// server's rate; its CPU per call they cannot move much).
import type { Child } from "./child.ts"
import { now } from "./measure.ts"

interface Cpu {
  readonly user: number
  readonly system: number
}

/**
 * Calls per second over `ms`, each caller calling back to back; pushes the server's CPU µs per
 * call, and this process's (the callers') to `callerCpuPerCall` when given.
 */
export const sample = async (
  child: Child,
  callers: ReadonlyArray<() => Promise<unknown>>,
  ms: number,
  cpuPerCall: Array<number>,
  callerCpuPerCall?: Array<number>
): Promise<number> => {
  const before = await child.ask<Cpu>({ type: "cpu" })
  const ownBefore = process.cpuUsage()
  let calls = 0
  const start = now()
  const deadline = start + ms
  await Promise.all(callers.map(async (call) => {
    while (now() < deadline) {
      await call()
      calls++
    }
  }))
  const elapsed = now() - start
  const own = process.cpuUsage(ownBefore)
  const after = await child.ask<Cpu>({ type: "cpu" })
  cpuPerCall.push((after.user + after.system - before.user - before.system) / calls)
  callerCpuPerCall?.push((own.user + own.system) / calls)
  return (calls * 1000) / elapsed
}
