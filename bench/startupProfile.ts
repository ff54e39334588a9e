// Where a stdio server's CPU goes, for `--cpu-prof`: not part of `npm run bench`.
//   npm run -s bench:startup-profile -- [ours|raw|effect-ai] [calls [seq|par]]
//   npm run -s bench:startup-profile -- [ours|raw] functions [calls]
// Spawns bench/servers/host.ts (the built package, as a host runs an installed copy; BENCH_SOURCES=1
// for the sources) under `--cpu-prof`, takes it to its first answered `tools/call` as a host would
// (initialize, `tools/list`, the call) and prints the profile's self time by part of the dependency
// tree (lib/moduleGroups.ts) and the heaviest functions. With `calls` (e.g. 1000), it makes that many
// calls more (one at a time, or 64 in flight with `par`) and summarises only the samples taken
// during them, per call: the cold figure's profile. Native entries — `(program)` (parsing, compiling,
// inline caches, the module loader), `(garbage collector)` — are shown as such.
// `functions` counts instead, from V8's precise coverage (NODE_V8_COVERAGE) of two servers (one
// stopped after its first answer, one after `calls` more), the distinct functions the server runs on
// every call and the function calls a call makes, by part: what a cold call has V8 compile and warm.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { ADD_ARGS, ADD_TOOL } from "./lib/adder.ts"
import { builtPackage } from "./lib/built.ts"
import { concurrent, sequential } from "./lib/measure.ts"
import {
  functionsOf,
  functionsPerUnit,
  printFunctions,
  printSelfTimes,
  type Profile,
  selfTimes
} from "./lib/profileSummary.ts"

const here = path.dirname(fileURLToPath(import.meta.url))
const [kind = "ours", second, third] = process.argv.slice(2)
const counting = second === "functions"
const calls = Number((counting ? third : second) ?? (counting ? "1000" : "0"))
const parallel = !counting && third === "par"
const conditions = await builtPackage()

/** One server to its first answer, then `n` calls more; answers when its first answer came and where the calls began (V8's clock, µs). */
const drive = async (nodeFlags: ReadonlyArray<string>, env: Record<string, string>, n: number) => {
  const t0 = performance.now()
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...nodeFlags, ...conditions, path.join(here, "servers", "host.ts"), kind],
    env: { ...process.env as Record<string, string>, ...env },
    stderr: "inherit"
  })
  const client = new Client({ name: "startup-profile", version: "0.0.0" }, { capabilities: {} })
  await client.connect(transport)
  await client.listTools()
  const call = () => client.callTool({ name: ADD_TOOL, arguments: ADD_ARGS })
  await call()
  const firstMs = performance.now() - t0
  // CLOCK_MONOTONIC, as V8's profile timestamps are on Linux.
  const mark = Number(process.hrtime.bigint() / 1000n)
  const us = n === 0 ? 0 : parallel ? await concurrent(n, 64, call) : await sequential(n, call)
  await client.close()
  return { firstMs, mark, us }
}

/** The one file a child wrote into `dir` as it exited (waited for, boundedly). */
const written = async (dir: string) => {
  for (let i = 0; i < 100 && fs.readdirSync(dir).length === 0; i++) await new Promise((r) => setTimeout(r, 50))
  const file = fs.readdirSync(dir)[0]
  if (file === undefined) throw new Error(`nothing was written to ${dir}`)
  // Give the writer a moment to finish the file.
  await new Promise((r) => setTimeout(r, 200))
  const text = fs.readFileSync(path.join(dir, file), "utf8")
  fs.rmSync(dir, { recursive: true, force: true })
  return JSON.parse(text) as unknown
}

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "effect-surface-prof-"))

if (counting) {
  const [one, many] = [tmp(), tmp()]
  await drive([], { NODE_V8_COVERAGE: one }, 0)
  await drive([], { NODE_V8_COVERAGE: many }, calls)
  const before = functionsOf((await written(one)) as Parameters<typeof functionsOf>[0])
  const after = functionsOf((await written(many)) as Parameters<typeof functionsOf>[0])
  printFunctions(
    `${kind}: server functions per tools/call over ${calls} sequential calls`,
    functionsPerUnit(after, calls, before)
  )
} else {
  const dir = tmp()
  const { firstMs, mark, us } = await drive(["--cpu-prof", `--cpu-prof-dir=${dir}`], {}, calls)
  const profile = (await written(dir)) as Profile
  if (calls === 0) {
    process.stdout.write(`${kind}: first answer after ${firstMs.toFixed(0)} ms\n`)
    printSelfTimes(`${kind}, spawn to first answer`, selfTimes(profile))
  } else {
    process.stdout.write(`${kind}: ${calls} calls after the first answer, ${us.toFixed(0)} µs/call (wall)\n`)
    printSelfTimes(
      `${kind}, ${calls} cold calls ${parallel ? "64 in flight" : "in sequence"}`,
      selfTimes(profile, mark),
      calls
    )
  }
}
