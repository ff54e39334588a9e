// The package's bin, spawned as a host runs it: from this clone with no build, under the Node this
// test runs on and under an older system Node (it re-runs the sources under the project's pinned
// Node 24), with a --help that loads no MCP SDK.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { binPath, root, runBin } from "../bin.ts"
import { fromSdk, modulesLoadedBy } from "../moduleLoads.ts"

// The first `node` on PATH outside node_modules whose major version cannot strip types.
const olderNode = (process.env["PATH"] ?? "").split(Path.delimiter)
  .filter((dir) => dir !== "" && !dir.split(Path.sep).includes("node_modules"))
  .map((dir) => Path.join(dir, "node"))
  .find((node) => {
    const version = spawnSync(node, ["--version"], { encoding: "utf8" }).stdout ?? ""
    const major = Number(/^v(\d+)\./.exec(version)?.[1] ?? "NaN")
    return major < 22
  })

/** A copy of the package as npm installs it (bin, manifest, sources), without its build. */
const installedWithoutBuild = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "installed-"))
    const pkg = Path.join(dir, "node_modules", "effect-surface")
    Fs.mkdirSync(Path.join(pkg, "bin"), { recursive: true })
    Fs.mkdirSync(Path.join(pkg, "src", "cli"), { recursive: true })
    Fs.copyFileSync(binPath, Path.join(pkg, "bin", "effect-surface.js"))
    Fs.copyFileSync(Path.join(root, "package.json"), Path.join(pkg, "package.json"))
    Fs.copyFileSync(Path.join(root, "src", "cli", "main.ts"), Path.join(pkg, "src", "cli", "main.ts"))
    return { dir, bin: Path.join(pkg, "bin", "effect-surface.js") }
  }),
  ({ dir }) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

const runAt = (node: string, bin: string, args: ReadonlyArray<string>) => {
  const { NODE_OPTIONS: _ignored, ...env } = process.env
  return spawnSync(node, [bin, ...args], { encoding: "utf8", env })
}

describe("the effect-surface bin", () => {
  it.live("runs from the sources under this Node: --version and --help", () =>
    Effect.gen(function*() {
      const version = yield* runBin(["--version"])
      assert.strictEqual(version.status, 0, version.stderr)
      assert.include(version.stdout, "0.1.0")
      const help = yield* runBin(["guard", "--help"])
      assert.strictEqual(help.status, 0, help.stderr)
      assert.match(help.stdout, /lock\s+Write the upstream's tool definitions/)
      assert.match(help.stdout, /serve\s+Serve exactly the granted tools/)
    }))

  it("runs with Node's compile cache on, by default under the temporary directory, so later starts read their modules compiled", () => {
    const tmp = Fs.mkdtempSync(Path.join(Os.tmpdir(), "compile-cache-"))
    try {
      const { NODE_OPTIONS: _ignored, NODE_COMPILE_CACHE: _unset, ...env } = process.env
      const ran = spawnSync(process.execPath, [binPath, "--version"], {
        encoding: "utf8",
        env: { ...env, TMPDIR: tmp }
      })
      assert.strictEqual(ran.status, 0, ran.stderr)
      // Node's default directory: one subdirectory per Node version and V8 flags, holding the modules.
      const cache = Path.join(tmp, "node-compile-cache")
      const written = Fs.readdirSync(cache).flatMap((version) => Fs.readdirSync(Path.join(cache, version)))
      assert.isAbove(written.length, 10)
    } finally {
      Fs.rmSync(tmp, { recursive: true, force: true })
    }
  })

  it.live.runIf(olderNode !== undefined)(
    "runs under an older system Node by re-running itself under the project's Node 24",
    () =>
      Effect.gen(function*() {
        const help = yield* runBin(["guard", "--help"], { node: olderNode ?? "" })
        assert.strictEqual(help.status, 0, help.stderr)
        assert.include(help.stdout, "An upstream MCP server behind grants")
        const refused = yield* runBin(["guard", "call"], { node: olderNode ?? "" })
        assert.strictEqual(refused.status, 1)
        assert.include(refused.stderr, "name a guard file and a tool")
      })
  )

  it.effect("an installed copy without a build says so, naming the missing build, though its sources are there", () =>
    Effect.gen(function*() {
      const { bin } = yield* installedWithoutBuild
      const ran = runAt(process.execPath, bin, ["--help"])
      assert.strictEqual(ran.status, 1)
      assert.match(
        ran.stderr,
        /^effect-surface: this installed copy has no build \(\S+dist\/cli\/main\.js is missing\); /
      )
      assert.notInclude(ran.stderr, "neither")
    }))

  it.effect.runIf(olderNode !== undefined)(
    "an installed copy under an older Node says, in one sentence, which Node it needs",
    () =>
      Effect.gen(function*() {
        const { bin } = yield* installedWithoutBuild
        const ran = runAt(olderNode ?? "", bin, ["--help"])
        assert.strictEqual(ran.status, 1)
        assert.strictEqual(ran.stdout, "")
        assert.match(ran.stderr, /^effect-surface needs Node 22\.19 or later; this is v\d+\.\d+\.\d+\.\n$/)
      })
  )

  it("its program's --help loads no node:sqlite (nor the warning Node 22 prints for it)", () => {
    const help = modulesLoadedBy(new URL("../../src/cli/main.ts", import.meta.url).href, ["guard", "--help"])
    assert.strictEqual(help.status, 0, help.stderr)
    assert.notInclude(help.urls, "node:sqlite")
  })

  it("its program's --help loads no module of the MCP SDK", () => {
    const help = modulesLoadedBy(new URL("../../src/cli/main.ts", import.meta.url).href, ["guard", "--help"])
    assert.strictEqual(help.status, 0, help.stderr)
    assert.include(help.stdout, "lock")
    assert.isTrue(help.urls.some((url) => url.endsWith("/src/cli/GuardCommands.ts")))
    assert.deepStrictEqual(fromSdk(help.urls), [])
  })
})
