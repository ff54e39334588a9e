#!/usr/bin/env node
// The effect-surface command. It runs under whatever `node` the host has, so it is plain
// JavaScript: an installed package runs its build (dist/); a clone runs the TypeScript sources with
// no build step, under a Node that strips types — this one when it can (22.18 and later), otherwise
// the project's pinned Node 24 (the `node` dev dependency) — with the condition that resolves the
// package to its sources.
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { dirname, join, sep } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const sources = join(root, "src", "cli", "main.ts")
const built = join(root, "dist", "cli", "main.js")
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number)
const stripsTypes = major > 22 || (major === 22 && minor >= 18)
const pinned = join(root, "node_modules", "node", "bin", "node")

// Node strips no types under node_modules, so an installed copy runs its build.
const installed = root.split(sep).includes("node_modules")

if (installed || !existsSync(sources)) {
  if (!existsSync(built)) {
    process.stderr.write(`effect-surface: neither ${sources} nor a build (${built}) is here\n`)
    process.exit(1)
  }
  await import(pathToFileURL(built).href)
} else {
  const node = stripsTypes ? process.execPath : existsSync(pinned) ? pinned : undefined
  if (node === undefined) {
    process.stderr.write(
      `effect-surface: running from source needs Node 22.18 or later (this is ${process.version}); ` +
        "run npm install (it brings the project's Node 24), or use a newer node\n"
    )
    process.exit(1)
  }
  const child = spawn(node, ["--conditions=effect-surface-source", sources, ...process.argv.slice(2)], {
    stdio: "inherit"
  })
  // The child owns the terminal's signals; this process only waits for it and passes its end on.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal))
  child.on("exit", (code, signal) => {
    if (signal === null) process.exit(code ?? 1)
    // Ended by a signal: end the same way, so whoever started this sees what happened.
    process.removeAllListeners(signal)
    process.kill(process.pid, signal)
  })
}
