// Runs the package's bin as a person does: a child process, its output collected, its exit awaited.
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

export const root = fileURLToPath(new URL("..", import.meta.url))
export const binPath = fileURLToPath(new URL("../bin/effect-surface.js", import.meta.url))

export interface Ran {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Run `bin/effect-surface.js` with `args` under `node` (this test's Node by default), in `cwd`. */
export const runBin = (
  args: ReadonlyArray<string>,
  options: { readonly node?: string; readonly cwd?: string } = {}
): Effect.Effect<Ran> =>
  Effect.callback<Ran>((resume) => {
    const { NODE_OPTIONS: _ignored, ...env } = process.env
    const child = spawn(options.node ?? process.execPath, [binPath, ...args], { cwd: options.cwd ?? root, env })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    child.on("close", (status) => resume(Effect.succeed({ status, stdout, stderr })))
    return Effect.sync(() => child.kill())
  })
