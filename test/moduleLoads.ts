// Which modules importing one module loads, as a consumer's process would: a fresh Node runs a
// harness as an ES module that records the URL of every module Node resolves (a synchronous
// `resolve` hook sees static and dynamic imports alike), imports the target, and prints the list.
// Node runs the .ts sources directly, so this is the load a real consumer pays.
import { assert } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"

const harness = `
import { registerHooks } from "node:module"
const urls = []
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context)
    urls.push(resolved.url)
    return resolved
  }
})
await import(process.argv[1])
process.stdout.write(JSON.stringify(urls))
`

const projectRoot = fileURLToPath(new URL("..", import.meta.url))

/** Every module URL importing `specifier` (a file URL, or a bare specifier resolved from the project) loads. */
export const modulesLoadedBy = (specifier: string): ReadonlyArray<string> => {
  const { NODE_OPTIONS: _ignored, ...env } = process.env
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", harness, specifier], {
    // A bare specifier in the control resolves from the project, as a consumer's would.
    cwd: projectRoot,
    env,
    encoding: "utf8"
  })
  assert.strictEqual(child.status, 0, child.stderr)
  const urls: unknown = JSON.parse(child.stdout)
  assert.isTrue(Array.isArray(urls) && urls.every((url) => typeof url === "string"))
  return urls as ReadonlyArray<string> // checked on the line above
}
