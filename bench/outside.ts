// The start-up and cold figures again, from a second driver that shares nothing with the first
// (stdio.ts): no SDK client, the JSON-RPC lines written and read by hand on the child's pipes, and
// each server launched by the command a host's configuration names — `node server.js` for a server
// of one's own (bench/servers/hostOurs.ts, hostRaw.ts: the built package, no source condition), and
// the README's `npm -s run stdio` for the example board. Each server runs alone. Figures: spawn → first answered `tools/call` (initialize and `tools/list` first, as a host
// does), the first 500 calls after it (sequential), and resident memory after the first answer.
// The board's command is measured with Node's compile cache as its script enables it, on its first
// start (an empty cache) and on later ones, and with the cache disabled; its CPU and memory are the
// server's own (the `node` npm ends in), its wall time includes npm's start.
// The first driver (lib/stdioHost.ts: the SDK's client spawning bench/servers/host.ts) takes ours and
// the raw server in the same rounds, interleaved with this one's (pairedOrder), so the machine's
// load falls on both drivers alike; the agreement figures set this driver's ratio against that
// one's round by round (the acceptance: within a tenth). CPU is read from outside for both, per
// thread in nanoseconds, the main thread apart from V8's and libuv's helpers (lib/built.ts): load
// on the other core has been seen to move the main thread's figure and not the helpers'.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { ADD_ARGS, ADD_TOOL } from "./lib/adder.ts"
import { builtPackage, rssKiBOf, serverPidOf, type ThreadCpu, threadCpuOf, totalCpu, unreadCpu } from "./lib/built.ts"
import {
  count,
  emit,
  median,
  type MedianInterval,
  medianInterval,
  note,
  now,
  rankCorrelation,
  sequential
} from "./lib/measure.ts"
import { serverNodeFlags } from "./lib/child.ts"
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
  /** Server CPU by the first answer, ms. */
  readonly firstCpu: ThreadCpu
  readonly rssKiB: number
  readonly coldUs: number
  /** Server CPU per call over the cold calls, µs. */
  readonly coldCpu: ThreadCpu
}

/** CPU and run-queue wait per call (µs; slices per call) between two readings taken `calls` calls apart. */
const perCall = (before: ThreadCpu, after: ThreadCpu, calls: number): ThreadCpu => ({
  main: ((after.main - before.main) * 1000) / calls,
  helpers: ((after.helpers - before.helpers) * 1000) / calls,
  mainWaiting: ((after.mainWaiting - before.mainWaiting) * 1000) / calls,
  mainSlices: (after.mainSlices - before.mainSlices) / calls
})

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
    const threadCpu = async () => (await threadCpuOf(pid)) ?? unreadCpu
    const [firstCpu, rssKiB] = await Promise.all([threadCpu(), rssKiBOf(pid)])
    const c0 = now()
    for (let i = 0; i < cold; i++) await call()
    const coldUs = ((now() - c0) * 1000) / cold
    const coldCpu = perCall(firstCpu, await threadCpu(), cold)
    return { firstMs, firstCpu, rssKiB: rssKiB ?? Number.NaN, coldUs, coldCpu }
  } finally {
    await server.close()
  }
}

const adder = { name: ADD_TOOL, arguments: { ...ADD_ARGS } }

/** The same reading taken by the first driver (the SDK's client on bench/servers/host.ts). */
const inside = async (kind: "ours" | "raw", cold: number): Promise<Reading> => {
  const server = await start({ kind })
  try {
    const cpu0 = await server.threadCpu()
    const coldUs = await sequential(cold, server.call)
    const coldCpu = perCall(cpu0, await server.threadCpu(), cold)
    return { firstMs: server.firstMs, firstCpu: server.firstCpu, rssKiB: server.rssKiB, coldUs, coldCpu }
  } finally {
    await server.client.close()
  }
}

/**
 * The order of one round's four paired readings. Each driver takes its two servers two places apart,
 * so a drift in the machine's load falls on both drivers' ratios alike; which server and which
 * driver go first alternate over every four rounds.
 */
const pairedOrder = (round: number): ReadonlyArray<string> => {
  const [x, y] = round % 2 === 0 ? ["ours", "raw"] : ["raw", "ours"]
  const [a, b] = (round >> 1) % 2 === 0 ? ["", "inside_"] : ["inside_", ""]
  return [`${a}${x}`, `${b}${x}`, `${a}${y}`, `${b}${y}`]
}

type Pick = (reading: Reading) => number

/** Server CPU, whole and split: the figure's name suffix, what it reads, its words. */
const cpuParts: ReadonlyArray<
  { readonly suffix: string; readonly of: (cpu: ThreadCpu) => number; readonly words: string }
> = [
  { suffix: "", of: totalCpu, words: "server CPU" },
  { suffix: ".main_thread", of: (cpu) => cpu.main, words: "server main-thread CPU" },
  {
    suffix: ".helper_threads",
    of: (cpu) => cpu.helpers,
    words: "server helper-thread CPU (V8's workers, libuv's pool)"
  }
]

const shownInterval = (d: MedianInterval): string => {
  const signed = (x: number) => (Number.isNaN(x) ? "NaN" : `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(2)}`)
  return `${signed(d.median)} (${Math.round(d.confidence * 100)}% interval ${signed(d.low)}…${signed(d.high)}, ` +
    `rounds ${signed(d.min)}…${signed(d.max)}, n=${d.n})`
}

export const run = async (): Promise<void> => {
  await builtPackage()
  const rounds = count(7, 1)
  const cold = 500
  const caches = fs.mkdtempSync(path.join(os.tmpdir(), "effect-surface-outside-cache-"))
  const npm = { command: "npm", call: { name: "tasks_add", arguments: { title: "one" } } }
  const npmArgs = ["-s", "--prefix", root, "run", "stdio"]
  const insideTargets: Record<string, () => Promise<Reading>> = {
    inside_ours: () => inside("ours", cold),
    inside_raw: () => inside("raw", cold)
  }
  const targets: Record<string, (round: number) => Command> = {
    ours: () => ({
      command: process.execPath,
      args: [...serverNodeFlags, path.join(servers, "hostOurs.ts")],
      call: adder
    }),
    raw: () => ({
      command: process.execPath,
      args: [...serverNodeFlags, path.join(servers, "hostRaw.ts")],
      call: adder
    }),
    npm_no_cache: () => ({ ...npm, args: npmArgs, env: { NODE_DISABLE_COMPILE_CACHE: "1" } }),
    npm_cache_first_start: (round) => ({
      ...npm,
      args: npmArgs,
      env: { NODE_COMPILE_CACHE: path.join(caches, `first-${round}`) }
    }),
    npm_cache: () => ({ ...npm, args: npmArgs, env: { NODE_COMPILE_CACHE: path.join(caches, "warm") } }),
    // The same server launched the fastest way a host can: node itself, no npm in front of it.
    node_direct: () => ({
      ...npm,
      command: process.execPath,
      args: [
        "--conditions=effect-surface-source",
        "--import",
        path.join(root, "examples", "compileCache.ts"),
        path.join(root, "examples", "main.ts"),
        "--stdio"
      ],
      env: { NODE_COMPILE_CACHE: path.join(caches, "warm") }
    })
  }
  const npmNames = ["npm_no_cache", "npm_cache_first_start", "npm_cache", "node_direct"]
  note(
    `outside: ${rounds} rounds, each command spawned alone once a round, driven by raw JSON-RPC lines; ` +
      `the two drivers' readings of ours and the raw server interleaved in each round`
  )
  try {
    await measure(targets["npm_cache"]!(-1), 10) // writes the warm cache
    const names = [...Object.keys(targets), ...Object.keys(insideTargets)]
    const taken = Object.fromEntries(names.map((name) => [name, [] as Array<Reading>]))
    const loads: Array<number> = []
    for (let r = 0; r < rounds; r++) {
      loads.push(os.loadavg()[0]!)
      const order = [...pairedOrder(r), ...npmNames.map((_, k) => npmNames[(r + k) % npmNames.length]!)]
      for (const name of order) {
        const target = targets[name]
        taken[name]!.push(target === undefined ? await insideTargets[name]!() : await measure(target(r), cold))
      }
      noteRound(r, loads[r]!, taken)
    }
    note(
      `outside: one-minute load average at the rounds' starts ${Math.min(...loads).toFixed(1)}–${
        Math.max(...loads).toFixed(1)
      } (${os.cpus().length} cores)`
    )
    report(taken)
  } finally {
    fs.rmSync(caches, { recursive: true, force: true })
  }
}

/** One round's ours/raw by both drivers (this one / the first), whole CPU and main thread apart. */
const noteRound = (r: number, load: number, taken: Readonly<Record<string, ReadonlyArray<Reading>>>): void => {
  const ratio = (ours: string, raw: string, pick: Pick) => (pick(taken[ours]![r]!) / pick(taken[raw]![r]!)).toFixed(2)
  const both = (pick: Pick) => `${ratio("ours", "raw", pick)}/${ratio("inside_ours", "inside_raw", pick)}`
  note(
    `outside: round ${r + 1}, load ${load.toFixed(1)}: ours/raw here/first — CPU to the first answer ` +
      `${both((x) => totalCpu(x.firstCpu))} (main ${both((x) => x.firstCpu.main)}, ` +
      `helpers ${both((x) => x.firstCpu.helpers)}); per cold call ${both((x) => totalCpu(x.coldCpu))} ` +
      `(main ${both((x) => x.coldCpu.main)}, helpers ${both((x) => x.coldCpu.helpers)})`
  )
}

/**
 * What the load did to each server's main thread, over both drivers' readings: how its CPU per cold
 * call ranks against its run-queue wait and its time slices per call. A thread that waits for a core
 * more often comes back to caches the other processes filled.
 */
const noteLoad = (taken: Readonly<Record<string, ReadonlyArray<Reading>>>): void => {
  for (const kind of ["ours", "raw"]) {
    const readings = [...taken[kind]!, ...taken[`inside_${kind}`]!]
    const cpu = readings.map((r) => r.coldCpu.main)
    const waiting = readings.map((r) => r.coldCpu.mainWaiting)
    const slices = readings.map((r) => r.coldCpu.mainSlices)
    note(
      `outside: ${kind}, main thread per cold call over both drivers' ${readings.length} readings: ` +
        `CPU ${median(cpu).toFixed(0)} µs (${Math.min(...cpu).toFixed(0)}–${Math.max(...cpu).toFixed(0)}), ` +
        `run-queue wait ${median(waiting).toFixed(0)} µs, ${median(slices).toFixed(2)} slices; ` +
        `rank correlation of CPU with wait ${rankCorrelation(cpu, waiting).toFixed(2)}, ` +
        `with slices ${rankCorrelation(cpu, slices).toFixed(2)}`
    )
  }
}

const report = (taken: Readonly<Record<string, ReadonlyArray<Reading>>>): void => {
  const of = (name: string, pick: Pick) => median(taken[name]!.map(pick))
  const figure = (bench: string, ours: string, peer: string, pick: Pick, unit: string) =>
    emit({ bench, ours: of(ours, pick), peer: of(peer, pick), unit })
  const spawnUnit = "ms from spawn to the first answered tools/call (raw JSON-RPC driver), median"
  const coldUnit = "µs per call over the first 500 calls, sequential (raw JSON-RPC driver), median"
  const rssUnit = "KiB resident after the first answered tools/call (raw JSON-RPC driver), median"
  const firstCpu = (words: string, driver: string) => `${words} ms by its first answered tools/call (${driver}), median`
  const coldCpu = (words: string, driver: string) =>
    `${words} µs per call over the first 500 calls, sequential (${driver}), median`
  figure("outside.spawn_to_first_call.vs_raw_sdk", "ours", "raw", (r) => r.firstMs, spawnUnit)
  figure("outside.tools_call.cold.sequential.vs_raw_sdk", "ours", "raw", (r) => r.coldUs, coldUnit)
  figure("outside.rss_after_first_call.vs_raw_sdk", "ours", "raw", (r) => r.rssKiB, rssUnit)
  const drivers = [
    { prefix: "outside.", ours: "ours", raw: "raw", words: "raw JSON-RPC driver" },
    { prefix: "outside.first_driver.", ours: "inside_ours", raw: "inside_raw", words: "first driver, SDK client" }
  ]
  for (const driver of drivers) {
    for (const part of cpuParts) {
      const first = `${driver.prefix}spawn_to_first_call.cpu${part.suffix}.vs_raw_sdk`
      const cold = `${driver.prefix}tools_call.cold.sequential.cpu${part.suffix}.vs_raw_sdk`
      figure(first, driver.ours, driver.raw, (r) => part.of(r.firstCpu), firstCpu(part.words, driver.words))
      figure(cold, driver.ours, driver.raw, (r) => part.of(r.coldCpu), coldCpu(part.words, driver.words))
    }
  }
  // This driver's ratio against the first driver's, taken in the same rounds. Each round gives both
  // drivers' ours/raw; the figure is the median over rounds of their difference, so a round the
  // machine's load slowed is compared with itself, not with the other driver's median.
  const ratios = (ours: string, raw: string, pick: Pick) =>
    taken[ours]!.map((reading, r) => pick(reading) / pick(taken[raw]![r]!))
  const agreement = (bench: string, pick: Pick, what: string) => {
    const here = ratios("ours", "raw", pick)
    const there = ratios("inside_ours", "inside_raw", pick)
    const difference = medianInterval(here.map((x, r) => x - there[r]!))
    note(
      `outside: ${what}, ours/raw ${median(here).toFixed(2)} here, ${median(there).toFixed(2)} by the first driver; ` +
        `paired per round, here − first: ${shownInterval(difference)}`
    )
    emit({
      bench,
      ours: median(here),
      peer: median(there),
      difference,
      unit: `${what}: ours/raw by this driver (ours) and by the first driver in the same rounds (peer), ` +
        `medians of each round's ratio; difference: the median over rounds of (this driver's − the first's), ` +
        `its distribution-free interval and range`
    })
  }
  for (const part of cpuParts) {
    agreement(
      `outside.agreement.spawn_to_first_call.cpu${part.suffix}`,
      (r) => part.of(r.firstCpu),
      `${part.words} to the first answer`
    )
    agreement(
      `outside.agreement.tools_call.cold.sequential.cpu${part.suffix}`,
      (r) => part.of(r.coldCpu),
      `${part.words} per cold call`
    )
  }
  agreement("outside.agreement.spawn_to_first_call", (r) => r.firstMs, "spawn to the first answer")
  noteLoad(taken)
  for (const option of ["npm_cache_first_start", "npm_cache"] as const) {
    const name = (what: string) => `outside.npm_run_stdio.${what}.${option}.vs_no_cache`
    figure(name("spawn_to_first_call"), option, "npm_no_cache", (r) => r.firstMs, spawnUnit)
    figure(
      name("spawn_to_first_call.cpu"),
      option,
      "npm_no_cache",
      (r) => totalCpu(r.firstCpu),
      firstCpu("server CPU", "raw JSON-RPC driver")
    )
    figure(name("tools_call.cold.sequential"), option, "npm_no_cache", (r) => r.coldUs, coldUnit)
  }
  // What npm costs a host that launches the README's command, against node launching the same server.
  figure(
    "outside.board_stdio.spawn_to_first_call.npm_run_stdio.vs_node_direct",
    "npm_cache",
    "node_direct",
    (r) => r.firstMs,
    spawnUnit
  )
}
