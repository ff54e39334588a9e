// The start-up and cold figures again, from a second driver that shares nothing with the first
// (stdio.ts): no SDK client, the JSON-RPC lines written and read by hand on the child's pipes, and
// each server launched by the command a host's configuration names — `node server.js` for a server
// of one's own (bench/servers/hostOurs.ts, hostRaw.ts: the built package, no source condition), and
// the README's `npm -s run stdio` for the example board. Each server runs alone; rounds rotate the
// order. Figures: spawn → first answered `tools/call` (initialize and `tools/list` first, as a host
// does), the first 1,000 calls after it (sequential), and resident memory after the first answer.
// The board's command is measured with Node's compile cache as its script enables it, on its first
// start (an empty cache) and on later ones, and with the cache disabled; its CPU and memory are the
// server's own (the `node` npm ends in), its wall time includes npm's start.
// The first driver (lib/stdioHost.ts: the SDK's client spawning bench/servers/host.ts) takes ours and
// the raw server in the same rounds, interleaved with this one's, so the machine's load falls on
// both drivers alike; the agreement figures set this driver's ratio against that one's (the
// acceptance: within a tenth). CPU is read from outside for both, per thread in nanoseconds
// (lib/built.ts).
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { ADD_ARGS, ADD_TOOL } from "./lib/adder.ts"
import { builtPackage, cpuMsOf, rssKiBOf, serverPidOf } from "./lib/built.ts"
import { count, emit, median, note, now, sequential } from "./lib/measure.ts"
import { start } from "./lib/stdioHost.ts"

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..")
const servers = path.join(root, "bench", "servers")

interface Command {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>>
  /** The call a host would make first, and what its answer must carry. */
  readonly call: { readonly name: string; readonly arguments: Record<string, unknown> }
}

// What a host hands the command it starts: these variables of its own environment and the entry's
// `env` (as the SDK's stdio transport does), not everything this process was started with — an
// `NODE_EXTRA_CA_CERTS`, say, has every Node process read its certificates at start, the same
// milliseconds for ours and the raw server, which narrows their ratio.
const hostEnvironment = (): Record<string, string> =>
  Object.fromEntries(
    ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"].flatMap((name) => {
      const value = process.env[name]
      return value === undefined || value.startsWith("()") ? [] : [[name, value]]
    })
  )

/** A child on the other end of newline-delimited JSON-RPC, answering requests by id. */
const open = (command: Command) => {
  const child: ChildProcessWithoutNullStreams = spawn(command.command, [...command.args], {
    cwd: root,
    env: { ...hostEnvironment(), ...command.env },
    stdio: ["pipe", "pipe", "pipe"]
  })
  child.stderr.resume()
  const waiting = new Map<number, (message: { readonly result?: unknown; readonly error?: unknown }) => void>()
  let buffered = ""
  child.stdout.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8")
    let end = buffered.indexOf("\n")
    while (end >= 0) {
      const line = buffered.slice(0, end)
      buffered = buffered.slice(end + 1)
      end = buffered.indexOf("\n")
      if (line.trim() === "") continue
      const message = JSON.parse(line) as { readonly id?: number; readonly result?: unknown; readonly error?: unknown }
      if (message.id !== undefined) {
        waiting.get(message.id)?.(message)
        waiting.delete(message.id)
      }
    }
  })
  let nextId = 0
  const request = (method: string, params: unknown) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++
      waiting.set(id, (message) =>
        message.error === undefined ? resolve(message.result) : reject(new Error(JSON.stringify(message.error))))
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n")
    })
  const notify = (method: string) => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method }) + "\n")
  const close = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      const timer = setTimeout(() => child.kill("SIGKILL"), 3000)
      child.once("exit", () => {
        clearTimeout(timer)
        resolve()
      })
      child.stdin.end()
    })
  return { child, request, notify, close }
}

interface Reading {
  readonly firstMs: number
  readonly firstCpuMs: number
  readonly rssKiB: number
  readonly coldUs: number
  readonly coldCpuUs: number
}

const measure = async (command: Command, cold: number): Promise<Reading> => {
  const t0 = now()
  const server = open(command)
  try {
    await server.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "outside-driver", version: "0.0.0" }
    })
    server.notify("notifications/initialized")
    await server.request("tools/list", {})
    const call = () => server.request("tools/call", command.call)
    const first = (await call()) as { readonly isError?: boolean }
    const firstMs = now() - t0
    if (first.isError === true) throw new Error(`${command.args.join(" ")} answered ${JSON.stringify(first)}`)
    const pid = await serverPidOf(server.child.pid)
    const [firstCpuMs, rssKiB] = await Promise.all([cpuMsOf(pid), rssKiBOf(pid)])
    const c0 = now()
    for (let i = 0; i < cold; i++) await call()
    const coldUs = ((now() - c0) * 1000) / cold
    const coldCpuUs = (((await cpuMsOf(pid)) ?? Number.NaN) - (firstCpuMs ?? Number.NaN)) * 1000 / cold
    return { firstMs, firstCpuMs: firstCpuMs ?? Number.NaN, rssKiB: rssKiB ?? Number.NaN, coldUs, coldCpuUs }
  } finally {
    await server.close()
  }
}

const adder = { name: ADD_TOOL, arguments: { ...ADD_ARGS } }

/** The same reading taken by the first driver (the SDK's client on bench/servers/host.ts). */
const inside = async (kind: "ours" | "raw", cold: number): Promise<Reading> => {
  const server = await start({ kind })
  try {
    const cpu0 = await server.cpuMs()
    const coldUs = await sequential(cold, server.call)
    const coldCpuUs = ((await server.cpuMs()) - cpu0) * 1000 / cold
    return { firstMs: server.firstMs, firstCpuMs: server.firstCpuMs, rssKiB: server.rssKiB, coldUs, coldCpuUs }
  } finally {
    await server.client.close()
  }
}

export const run = async (): Promise<void> => {
  await builtPackage()
  const rounds = count(7, 1)
  const cold = 1000
  const caches = fs.mkdtempSync(path.join(os.tmpdir(), "effect-surface-outside-cache-"))
  const npm = { command: "npm", call: { name: "tasks_add", arguments: { title: "one" } } }
  const npmArgs = ["-s", "--prefix", root, "run", "stdio"]
  const insideTargets: Record<string, () => Promise<Reading>> = {
    inside_ours: () => inside("ours", cold),
    inside_raw: () => inside("raw", cold)
  }
  const targets: Record<string, (round: number) => Command> = {
    ours: () => ({ command: process.execPath, args: [path.join(servers, "hostOurs.ts")], call: adder }),
    raw: () => ({ command: process.execPath, args: [path.join(servers, "hostRaw.ts")], call: adder }),
    npm_no_cache: () => ({ ...npm, args: npmArgs, env: { NODE_DISABLE_COMPILE_CACHE: "1" } }),
    npm_cache_first_start: (round) => ({
      ...npm,
      args: npmArgs,
      env: { NODE_COMPILE_CACHE: path.join(caches, `first-${round}`) }
    }),
    npm_cache: () => ({ ...npm, args: npmArgs, env: { NODE_COMPILE_CACHE: path.join(caches, "warm") } })
  }
  note(`outside: ${rounds} rounds, each command spawned alone once a round, driven by raw JSON-RPC lines`)
  try {
    await measure(targets["npm_cache"]!(-1), 10) // writes the warm cache
    const names = [...Object.keys(targets), ...Object.keys(insideTargets)]
    const taken = Object.fromEntries(names.map((name) => [name, [] as Array<Reading>]))
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < names.length; k++) {
        const name = names[(r + k) % names.length]!
        const target = targets[name]
        taken[name]!.push(target === undefined ? await insideTargets[name]!() : await measure(target(r), cold))
      }
    }
    const of = (name: string, pick: (reading: Reading) => number) => median(taken[name]!.map(pick))
    const figure = (bench: string, ours: string, peer: string, pick: (reading: Reading) => number, unit: string) =>
      emit({ bench, ours: of(ours, pick), peer: of(peer, pick), unit })
    const spawnUnit = "ms from spawn to the first answered tools/call (raw JSON-RPC driver), median"
    const cpuUnit = "server CPU ms by its first answered tools/call (raw JSON-RPC driver), median"
    const coldUnit = "µs per call over the first 1,000 calls, sequential (raw JSON-RPC driver), median"
    const rssUnit = "KiB resident after the first answered tools/call (raw JSON-RPC driver), median"
    figure("outside.spawn_to_first_call.vs_raw_sdk", "ours", "raw", (r) => r.firstMs, spawnUnit)
    figure("outside.spawn_to_first_call.cpu.vs_raw_sdk", "ours", "raw", (r) => r.firstCpuMs, cpuUnit)
    figure("outside.tools_call.cold.sequential.vs_raw_sdk", "ours", "raw", (r) => r.coldUs, coldUnit)
    figure(
      "outside.tools_call.cold.sequential.cpu.vs_raw_sdk",
      "ours",
      "raw",
      (r) => r.coldCpuUs,
      "server CPU µs per call over the first 1,000 calls, sequential (raw JSON-RPC driver), median"
    )
    figure("outside.rss_after_first_call.vs_raw_sdk", "ours", "raw", (r) => r.rssKiB, rssUnit)
    // This driver's ratio against the first driver's, taken in the same rounds: each the median over
    // rounds of one round's ours/raw, so a round the machine's load slowed is one ratio, both sides of it.
    const ratios = (ours: string, peer: string, pick: (reading: Reading) => number) =>
      taken[ours]!.map((reading, r) => pick(reading) / pick(taken[peer]![r]!))
    const perRound = (ours: string, peer: string, pick: (reading: Reading) => number) =>
      median(ratios(ours, peer, pick))
    const spread = (ours: string, peer: string, pick: (reading: Reading) => number) => {
      const xs = ratios(ours, peer, pick)
      return `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`
    }
    const agreement = (bench: string, pick: (reading: Reading) => number, what: string) => {
      const outsideRatio = perRound("ours", "raw", pick)
      const insideRatio = perRound("inside_ours", "inside_raw", pick)
      note(
        `outside: ${what}, ours/raw ${outsideRatio.toFixed(2)} here (rounds ${spread("ours", "raw", pick)}), ` +
          `${insideRatio.toFixed(2)} by the first driver in the same rounds ` +
          `(${spread("inside_ours", "inside_raw", pick)}): ${(outsideRatio - insideRatio).toFixed(2)} apart`
      )
      emit({
        bench,
        ours: outsideRatio,
        peer: insideRatio,
        unit:
          `${what}: ours/raw by this driver (ours) and by the first driver in the same rounds (peer), medians of each round's ratio`
      })
    }
    agreement("outside.agreement.spawn_to_first_call.cpu", (r) => r.firstCpuMs, "server CPU to the first answer")
    agreement("outside.agreement.tools_call.cold.sequential.cpu", (r) => r.coldCpuUs, "server CPU per cold call")
    agreement("outside.agreement.spawn_to_first_call", (r) => r.firstMs, "spawn to the first answer")
    for (const option of ["npm_cache_first_start", "npm_cache"] as const) {
      figure(
        `outside.npm_run_stdio.spawn_to_first_call.${option}.vs_no_cache`,
        option,
        "npm_no_cache",
        (r) => r.firstMs,
        spawnUnit
      )
      figure(
        `outside.npm_run_stdio.spawn_to_first_call.cpu.${option}.vs_no_cache`,
        option,
        "npm_no_cache",
        (r) => r.firstCpuMs,
        cpuUnit
      )
      figure(
        `outside.npm_run_stdio.tools_call.cold.sequential.${option}.vs_no_cache`,
        option,
        "npm_no_cache",
        (r) => r.coldUs,
        coldUnit
      )
    }
  } finally {
    fs.rmSync(caches, { recursive: true, force: true })
  }
}
