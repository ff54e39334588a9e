// Where a stdio server's start goes, for `--cpu-prof`: not part of `npm run bench`.
//   node --conditions=effect-surface-source bench/startupProfile.ts [ours|raw|effect-ai]
// Spawns bench/servers/host.ts under `--cpu-prof`, takes it to its first answered `tools/call` as a
// host would, closes it, and prints the profile's self time by part of the dependency tree (see
// lib/moduleGroups.ts) and the heaviest files. Native entries — `(program)` (parsing, compiling,
// the module loader), `(garbage collector)` — are shown as such.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { ADD_ARGS, ADD_TOOL } from "./lib/adder.ts"
import { groupOf } from "./lib/moduleGroups.ts"

interface Profile {
  readonly nodes: ReadonlyArray<{
    readonly id: number
    readonly callFrame: { readonly url: string; readonly functionName: string }
  }>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
  readonly startTime: number
  readonly endTime: number
}

const here = path.dirname(fileURLToPath(import.meta.url))
const kind = process.argv[2] ?? "ours"
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "effect-surface-prof-"))

const t0 = performance.now()
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [
    "--cpu-prof",
    `--cpu-prof-dir=${dir}`,
    "--conditions=effect-surface-source",
    path.join(here, "servers", "host.ts"),
    kind
  ],
  stderr: "inherit"
})
const client = new Client({ name: "startup-profile", version: "0.0.0" }, { capabilities: {} })
await client.connect(transport)
await client.listTools()
await client.callTool({ name: ADD_TOOL, arguments: ADD_ARGS })
const firstMs = performance.now() - t0
await client.close()
// The profile is written as the child exits; wait for it, boundedly.
for (let i = 0; i < 100 && fs.readdirSync(dir).length === 0; i++) await new Promise((r) => setTimeout(r, 50))
const file = fs.readdirSync(dir)[0]
if (file === undefined) throw new Error(`no profile was written to ${dir}`)
const profile = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as Profile
fs.rmSync(dir, { recursive: true, force: true })

const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]))
const groups = new Map<string, number>()
const files = new Map<string, number>()
profile.samples.forEach((id, i) => {
  const frame = byId.get(id)
  const us = profile.timeDeltas[i] ?? 0
  const native = frame === undefined || frame.url === ""
  const group = native ? `(${frame?.functionName.replace(/[()]/g, "") ?? "unknown"})` : groupOf(frame.url)
  groups.set(group, (groups.get(group) ?? 0) + us)
  if (!native) files.set(frame.url, (files.get(frame.url) ?? 0) + us)
})
const ms = (us: number) => `${(us / 1000).toFixed(1)} ms`
const total = profile.endTime - profile.startTime
process.stdout.write(`${kind}: first answer after ${firstMs.toFixed(0)} ms; profile spans ${ms(total)}\n`)
process.stdout.write(`self time by part:\n`)
for (const [group, us] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, 16)) {
  process.stdout.write(`  ${ms(us).padStart(9)}  ${group}\n`)
}
process.stdout.write(`heaviest files:\n`)
for (const [url, us] of [...files].sort((a, b) => b[1] - a[1]).slice(0, 12)) {
  process.stdout.write(
    `  ${ms(us).padStart(9)}  ${
      url.replace(/^.*\/node_modules\//, "").replace(/^file:\/\/.*?\/(src|bench)\//, "$1/")
    }\n`
  )
}
