// Which modules a program loads: Node is spawned with a synchronous `resolve` hook that records the
// URL of every module resolved (static and dynamic imports alike), runs the target with the given
// arguments, and writes the list to a file as the process exits (a program may end with
// `process.exit`). Node runs the .ts sources directly, so this is the load a real consumer pays.
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const harness = `
import { registerHooks } from "node:module"
import { writeFileSync } from "node:fs"
const [out, target, ...args] = process.argv.slice(1)
const urls = []
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context)
    urls.push(resolved.url)
    return resolved
  }
})
process.on("exit", () => writeFileSync(out, JSON.stringify(urls)))
process.argv = [process.argv[0], target, ...args]
await import(target)
`

const projectRoot = fileURLToPath(new URL("..", import.meta.url))

export interface Loaded {
  readonly urls: ReadonlyArray<string>
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Run `specifier` (a URL or a bare specifier, resolved from the project) with `args`, and list what it loaded. */
export const modulesLoadedBy = (specifier: string, args: ReadonlyArray<string> = []): Loaded => {
  const { NODE_OPTIONS: _ignored, ...env } = process.env
  const out = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), "loads-")), "urls.json")
  try {
    const child = spawnSync(
      process.execPath,
      ["--conditions=effect-surface-source", "--input-type=module", "-e", harness, out, specifier, ...args],
      { cwd: projectRoot, env, encoding: "utf8" }
    )
    const urls: unknown = JSON.parse(Fs.readFileSync(out, "utf8"))
    if (!Array.isArray(urls) || !urls.every((url) => typeof url === "string"))
      throw new Error(`not a list of URLs: ${String(urls)}`)
    return { urls, status: child.status, stdout: child.stdout, stderr: child.stderr }
  } finally {
    Fs.rmSync(Path.dirname(out), { recursive: true, force: true })
  }
}

/** The URLs of the MCP SDK's modules among `urls`. */
export const fromSdk = (urls: ReadonlyArray<string>) => urls.filter((url) => url.includes("@modelcontextprotocol"))
