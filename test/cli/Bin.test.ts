// The package's bin, spawned as a host runs it: from this clone with no build, under the Node this
// test runs on and under an older system Node (it re-runs the sources under the project's pinned
// Node 24), with a --help that loads no MCP SDK.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import * as Path from "node:path"
import { runBin } from "../bin.ts"
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

  it("its program's --help loads no module of the MCP SDK", () => {
    const help = modulesLoadedBy(new URL("../../src/cli/main.ts", import.meta.url).href, ["guard", "--help"])
    assert.strictEqual(help.status, 0, help.stderr)
    assert.include(help.stdout, "lock")
    assert.isTrue(help.urls.some((url) => url.endsWith("/src/cli/GuardCommands.ts")))
    assert.deepStrictEqual(fromSdk(help.urls), [])
  })
})
