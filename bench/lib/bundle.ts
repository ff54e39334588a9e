// A stdio server as one file: the launch option of bundling a server's entry (esbuild, the standard
// bundler for Node) so that a start reads one script instead of resolving and compiling hundreds of
// modules, with whatever the entry does not reach dropped. Ours bundles bench/servers/hostOurs.ts
// (the built package, as an installed copy resolves it); the raw SDK's server is bundled alike, so
// the route is measured for both. A V8 startup snapshot of ours (servers/snapshotOurs.ts, bundled as
// CommonJS, which `node --build-snapshot` needs) is built here too.
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const servers = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "servers")

/** The bundled entry of `kind`, built once per bench run into a temporary directory. */
export const bundled = async (kind: "ours" | "raw"): Promise<string> => {
  const made = cache.get(kind) ?? build(kind)
  cache.set(kind, made)
  return made
}

const cache = new Map<string, Promise<string>>()
let dir: string | undefined

const build = async (kind: "ours" | "raw"): Promise<string> => {
  const esbuild = await import("esbuild")
  dir ??= fs.mkdtempSync(path.join(os.tmpdir(), "effect-surface-bundle-"))
  const outfile = path.join(dir, `${kind}.mjs`)
  await esbuild.build({
    entryPoints: [path.join(servers, kind === "ours" ? "hostOurs.ts" : "hostRaw.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    outfile,
    logLevel: "warning",
    // CommonJS dependencies inside an ES module bundle reach Node's builtins through `require`.
    banner: {
      js:
        `import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);`
    }
  })
  return outfile
}

/** The node arguments that start ours from a V8 startup snapshot, built once per bench run. */
export const snapshotted = async (): Promise<ReadonlyArray<string>> => {
  snapshot ??= buildSnapshot()
  return ["--snapshot-blob", await snapshot]
}

let snapshot: Promise<string> | undefined

const buildSnapshot = async (): Promise<string> => {
  const esbuild = await import("esbuild")
  dir ??= fs.mkdtempSync(path.join(os.tmpdir(), "effect-surface-bundle-"))
  const entry = path.join(dir, "snapshot-entry.cjs")
  const blob = path.join(dir, "ours.blob")
  await esbuild.build({
    entryPoints: [path.join(servers, "snapshotOurs.ts")],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node22",
    outfile: entry,
    logLevel: "warning"
  })
  await new Promise<void>((resolve, reject) =>
    execFile(
      process.execPath,
      ["--snapshot-blob", blob, "--build-snapshot", entry],
      { cwd: dir },
      (error) => error === null ? resolve() : reject(error)
    )
  )
  return blob
}

/** Remove the bundles (the end of a bench run). */
export const removeBundles = (): void => {
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true })
  dir = undefined
  cache.clear()
  snapshot = undefined
}
