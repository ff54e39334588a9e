// The example board's command line, spawned as a person runs it: `npm -s run board -- …`.
import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { fromSdk, modulesLoadedBy } from "../moduleLoads.ts"

const root = fileURLToPath(new URL("../../", import.meta.url))

// npm runs the script; under `npm test` its own CLI is in npm_execpath, run by this Node.
const npm = (args: ReadonlyArray<string>) => {
  const execPath = process.env["npm_execpath"]
  const [command, prefix] = execPath === undefined ? ["npm", []] : [process.execPath, [execPath]]
  return spawnSync(command, [...prefix, "-s", "run", "board", "--", ...args], { cwd: root, encoding: "utf8" })
}

describe("the example board's command line", () => {
  it("npm -s run board -- tasks add --title … prints the new task's id on stdout, as tasks_add answers over MCP", () => {
    const added = npm(["tasks", "add", "--title", "write the docs"])
    assert.strictEqual(added.status, 0, added.stderr)
    assert.strictEqual(added.stdout, `{"id":"t1"}\n`)
    // The board's own log line went to stderr, leaving stdout to the answer.
    assert.include(added.stderr, "added task t1")
  })

  it("a refused call prints its sentence on stderr, nothing on stdout, and exits non-zero", () => {
    const refused = npm(["tasks", "complete", "--value", "t9"])
    assert.notStrictEqual(refused.status, 0)
    assert.strictEqual(refused.stdout, "")
    assert.strictEqual(refused.stderr, `effect-surface: there is no task t9 on the board\n`)
  })

  it("--help lists the verbs and loads no module of the MCP SDK", () => {
    const help = modulesLoadedBy(new URL("../../examples/board/cli.ts", import.meta.url).href, ["--help"])
    assert.strictEqual(help.status, 0, help.stderr)
    assert.include(help.stdout, "tasks")
    assert.include(help.stdout, "add, complete, open")
    // The hook saw the whole graph: the CLI face and effect/cli are in it.
    assert.isTrue(help.urls.some((url) => url.endsWith("/src/cli/Cli.ts")))
    assert.isTrue(help.urls.some((url) => url.includes("/node_modules/effect/dist/cli/")))
    assert.deepStrictEqual(fromSdk(help.urls), [])
  })
})
