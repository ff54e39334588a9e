// The package's JavaScript, bundled per entry. A host starts a stdio server for every session, and
// what that start pays for is the number of modules Node resolves, reads and compiles, not the code
// in them: so each public entry (the package's `exports`, and the command's main module) is one file,
// with the code two entries share in chunks under dist/chunks, and a module loaded on demand (the
// 2026-07-28 request path, the guard) still loaded on demand. Dependencies stay external: a user's
// app and this package must share one `effect` and one SDK. `tsc` writes the declarations beside it.
import * as esbuild from "esbuild"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..")

interface Manifest {
  readonly exports: Record<string, string | Record<string, string>>
}

const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as Manifest

// Every entry named in `exports` by its source condition, and the command the bin runs.
const entries = [
  ...Object.values(manifest.exports).flatMap((target) =>
    typeof target === "object" && target["effect-surface-source"] !== undefined
      ? [target["effect-surface-source"]]
      : []
  ),
  "./src/cli/main.ts"
].map((entry) => path.join(root, entry))

const result = await esbuild.build({
  entryPoints: entries,
  outdir: path.join(root, "dist"),
  outbase: path.join(root, "src"),
  entryNames: "[dir]/[name]",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node22",
  packages: "external",
  sourcemap: "linked",
  sourcesContent: false,
  metafile: true,
  logLevel: "warning"
})

const outputs = Object.keys(result.metafile.outputs).filter((file) => file.endsWith(".js"))
process.stdout.write(`bundled ${entries.length} entries into ${outputs.length} files under dist/\n`)
