#!/usr/bin/env node
// The effect-surface command. It runs under whatever `node` the host has, so it is plain
// JavaScript: an installed package runs its build (dist/); a clone runs the TypeScript sources with
// no build step, under a Node that strips types — this one when it can (22.18 and later), otherwise
// the project's pinned Node 24 (the `node` dev dependency) — with the condition that resolves the
// package to its sources. Either way it runs with Node's module compile cache on (in NODE_COMPILE_CACHE,
// or Node's default directory under the system's temporary one): a host starts the command for every
// session, and every start after the first reads the compiled modules back instead of compiling them.
// NODE_DISABLE_COMPILE_CACHE=1 turns it off.
import { spawn } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import * as Module from "node:module"
import { tmpdir } from "node:os"
import { dirname, join, sep } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const sources = join(root, "src", "cli", "main.ts")
const built = join(root, "dist", "cli", "main.js")
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number)
const stripsTypes = major > 22 || (major === 22 && minor >= 18)
const pinned = join(root, "node_modules", "node", "bin", "node")

const fail = (sentence) => {
  process.stderr.write(`${sentence}\n`)
  process.exit(1)
}

// Node strips no types under node_modules, so an installed copy runs its build.
const installed = root.split(sep).includes("node_modules")

if (installed || !existsSync(sources)) {
  // The Node the package declares (`engines`), said before anything that needs it is loaded.
  const { engines } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
  const [needMajor = 0, needMinor = 0] = (/(\d+)(?:\.(\d+))?/.exec(engines?.node ?? "") ?? []).slice(1).map((n) =>
    Number(n ?? 0)
  )
  if (major < needMajor || (major === needMajor && minor < needMinor)) {
    fail(`effect-surface needs Node ${needMajor}.${needMinor} or later; this is ${process.version}.`)
  }
  if (!existsSync(built)) {
    fail(
      installed
        ? `effect-surface: this installed copy has no build (${built} is missing); ` +
          "install a tarball made by npm pack or the repository's git URL, which both build it"
        : `effect-surface: neither the sources (${sources}) nor a build (${built}) is here`
    )
  }
  // Before the build is imported, so its modules are compiled through the cache (Node 22.1 and later).
  Module.enableCompileCache?.()
  await import(pathToFileURL(built).href)
} else {
  const node = stripsTypes ? process.execPath : existsSync(pinned) ? pinned : undefined
  if (node === undefined) {
    fail(
      `effect-surface: running from source needs Node 22.18 or later (this is ${process.version}); ` +
        "run npm install (it brings the project's Node 24), or use a newer node"
    )
  }
  // The child is a fresh Node: its cache is switched on through its environment.
  const env = { NODE_COMPILE_CACHE: join(tmpdir(), "node-compile-cache"), ...process.env }
  const child = spawn(node, ["--conditions=effect-surface-source", sources, ...process.argv.slice(2)], {
    stdio: "inherit",
    env
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
