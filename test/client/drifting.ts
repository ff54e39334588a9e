// A server of our own whose tools change between runs (and while it runs): the drift tests' server.
// Its tools are a JSON file the test rewrites; each call that reaches it is logged to a file.
import { Effect } from "effect"
import type { McpConfig, McpDrift } from "effect-surface/client"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const script = fileURLToPath(new URL("./fixtures/drifting-server.ts", import.meta.url))

export const echo = (description: string): McpDrift.Listed => ({
  name: "echo",
  description,
  inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] }
})
export const plain = (name: string, description = `The ${name} tool.`): McpDrift.Listed => ({
  name,
  description,
  inputSchema: { type: "object", properties: {} }
})

/** The server's config, its tool file to rewrite (`set`), and the calls that reached it (`calls`). */
export const drifting = (dir: string, tools: ReadonlyArray<McpDrift.Listed>, name = "drift") => {
  const file = Path.join(dir, `${name}-tools.json`)
  const log = Path.join(dir, `${name}-calls.jsonl`)
  Fs.writeFileSync(file, JSON.stringify(tools))
  Fs.writeFileSync(log, "")
  const config: McpConfig.Stdio = { name, type: "stdio", command: process.execPath, args: [script, file, log] }
  return {
    config,
    set: (next: ReadonlyArray<McpDrift.Listed>) => Effect.sync(() => Fs.writeFileSync(file, JSON.stringify(next))),
    calls: Effect.sync(() =>
      Fs.readFileSync(log, "utf8").split("\n").filter((line) => line !== "").map((line) =>
        (JSON.parse(line) as { readonly name: string }).name
      )
    )
  }
}
