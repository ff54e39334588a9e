// Start-up as a host pays it: how long `await import(…)` of each entry point takes in a fresh
// Node process (the built package, as the stdio figures run it: lib/built.ts), against importing the raw SDK's
// server and stdio transport; and which modules a stdio server of ours, the floor and the full
// `effect-surface/mcp` barrel bring in (load traces), so a figure can be read as "what is on the
// stdio path that need not be".
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { builtPackage } from "./lib/built.ts"
import { count, emit, median, note } from "./lib/measure.ts"
import { groupOf } from "./lib/moduleGroups.ts"

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..")
const tracer = path.join(root, "bench", "lib", "traceImports.ts")

const rawServer = ["@modelcontextprotocol/sdk/server/index.js", "@modelcontextprotocol/sdk/server/stdio.js"]

/** Entry points timed one by one, each in its own fresh process; `effect_floor_imports` is what the
 * raw server run under Effect's runtime loads, the least an Effect server on the SDK can. */
const entries: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["raw_sdk_server", rawServer],
  ["effect", ["effect"]],
  ["effect_platform_node", ["@effect/platform-node"]],
  ["effect_platform_node_NodeRuntime", ["@effect/platform-node/NodeRuntime"]],
  ["effect_ai", ["effect/ai"]],
  ["effect_surface", ["effect-surface"]],
  ["effect_surface_mcp_stdio", ["effect-surface/mcp/stdio"]],
  ["effect_surface_mcp", ["effect-surface/mcp"]],
  ["effect_floor_imports", ["@effect/platform-node/NodeRuntime", "effect", ...rawServer]],
  ["our_stdio_server_imports", [
    "@effect/platform-node/NodeRuntime",
    "effect",
    "effect-surface",
    "effect-surface/mcp/stdio"
  ]]
]

/** Milliseconds `await import` of `specifiers` (in turn) takes in a fresh process. */
const timeImport = async (specifiers: ReadonlyArray<string>, env: NodeJS.ProcessEnv = process.env): Promise<number> => {
  const conditions = await builtPackage()
  return new Promise((resolve, reject) => {
    const code = `const t0 = performance.now()\n` +
      specifiers.map((s) => `await import(${JSON.stringify(s)})`).join("\n") +
      `\nprocess.stdout.write(String(performance.now() - t0))`
    execFile(
      process.execPath,
      [
        ...conditions,
        ...(env["TRACE_IMPORTS_OUT"] === undefined ? [] : ["--import", tracer]),
        "--input-type=module",
        "-e",
        code
      ],
      { cwd: root, env },
      (error, stdout) => error === null ? resolve(Number(stdout)) : reject(error)
    )
  })
}

/** What `specifiers` load, module count by group. */
const trace = async (label: string, specifiers: ReadonlyArray<string>): Promise<void> => {
  const out = path.join(os.tmpdir(), `effect-surface-trace-${process.pid}.jsonl`)
  try {
    await timeImport(specifiers, { ...process.env, TRACE_IMPORTS_OUT: out })
    const urls = fs.readFileSync(out, "utf8").split("\n").filter((line) => line !== "")
      .map((line) => (JSON.parse(line) as { readonly url: string }).url)
    const groups = new Map<string, number>()
    for (const url of urls) groups.set(groupOf(url), (groups.get(groupOf(url)) ?? 0) + 1)
    const listed = [...groups].sort((a, b) => b[1] - a[1]).map(([group, n]) => `${group} ${n}`).join(", ")
    note(`${label} loads ${urls.length} modules: ${listed}`)
  } finally {
    fs.rmSync(out, { force: true })
  }
}

export const run = async (): Promise<void> => {
  const samples = count(7, 2)
  note(`startup: ${samples} fresh processes per entry point, interleaved; import time, median`)
  const taken = entries.map((): Array<number> => [])
  for (let s = 0; s < samples; s++) {
    for (let k = 0; k < entries.length; k++) {
      const i = (s + k) % entries.length
      taken[i]!.push(await timeImport(entries[i]![1]))
    }
  }
  const raw = median(taken[0]!)
  for (const [i, [name]] of entries.entries()) {
    if (i === 0) continue
    emit({
      bench: `startup.import.${name}.vs_raw_sdk_server`,
      ours: median(taken[i]!),
      peer: raw,
      unit: "ms to import in a fresh process, median"
    })
  }
  for (const [name, specifiers] of entries) {
    if (name === "effect_floor_imports" || name === "our_stdio_server_imports") await trace(name, specifiers)
  }
  await trace("effect-surface/mcp", ["effect-surface/mcp"])
}
