// Behaviour 4, stdio containment: the child's environment is an allowlist, a configured root confines
// command and cwd through realpath (a symlink escaping it is refused with a diagnostic while the other
// servers load, and a bare name is found on PATH and held inside the root the same way; with no root
// nothing is confined), and the child's stderr goes to the log, never to our stdout.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { McpCallResult, McpToolset, McpTransports } from "effect-surface/client"
import { execFile } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { entry, everythingStdio, tempDir } from "./servers.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))

/** A plugin directory: `bin/server` (a script starting server-memory) inside it, and two ways out. */
const plugin = Effect.gen(function*() {
  const dir = yield* tempDir
  const inside = Path.join(dir, "plugin")
  const outside = Path.join(dir, "elsewhere")
  Fs.mkdirSync(Path.join(inside, "bin"), { recursive: true })
  Fs.mkdirSync(outside)
  const script = `#!/bin/sh\nexec "${process.execPath}" "${entry("server-memory")}" "$@"\n`
  for (const at of [Path.join(inside, "bin", "server"), Path.join(outside, "server")]) {
    Fs.writeFileSync(at, script)
    Fs.chmodSync(at, 0o755)
  }
  Fs.symlinkSync(Path.join(outside, "server"), Path.join(inside, "bin", "escape"))
  Fs.symlinkSync(Path.join(outside, "server"), Path.join(inside, "server"))
  Fs.symlinkSync(outside, Path.join(inside, "out"))
  return { dir, inside, outside }
})

describe("stdio containment", () => {
  it.live(
    "the child's environment is the entry's env plus the few variables a process needs to start; nothing else of ours passes",
    () =>
      Effect.gen(function*() {
        process.env["TOOLSET_TEST_SECRET"] = "must-not-pass"
        yield* Effect.addFinalizer(() => Effect.sync(() => delete process.env["TOOLSET_TEST_SECRET"]))
        const toolset = yield* McpToolset.make([{ ...everythingStdio(), env: { GIVEN: "yes" } }])
        const env = JSON.parse(McpCallResult.textOf(yield* toolset.call("everything__get-env", {}))) as Record<
          string,
          string
        >
        assert.strictEqual(env["GIVEN"], "yes")
        assert.isUndefined(env["TOOLSET_TEST_SECRET"])
        const expected = [...McpTransports.INHERITED_ENV.filter((key) => process.env[key] !== undefined), "GIVEN"]
        assert.sameMembers(Object.keys(env), expected)
      }),
    { timeout: 60_000 }
  )

  it.live(
    "under a root, a command that is a symlink out of it and a cwd that escapes it are refused with diagnostics, while the server inside loads",
    () =>
      Effect.gen(function*() {
        const { inside, outside } = yield* plugin
        const memory = { MEMORY_FILE_PATH: Path.join(inside, "memory.jsonl") }
        const toolset = yield* McpToolset.make([
          { name: "inside", type: "stdio", command: "bin/server", env: memory },
          { name: "escape", type: "stdio", command: "bin/escape", env: memory },
          { name: "wanders", type: "stdio", command: "./server", cwd: "out", env: memory }
        ], { stdio: { root: inside } })
        const servers = new Set([...(yield* toolset.tools).values()].map((tool) => tool.server))
        assert.deepStrictEqual([...servers], ["inside"])
        yield* toolset.call("inside__read_graph", {})
        const refused = new Map(
          (yield* toolset.diagnostics).flatMap((d) => d.kind === "stdio-refused" ? [[d.server, d.reason] as const] : [])
        )
        assert.sameMembers([...refused.keys()], ["escape", "wanders"])
        assert.strictEqual(
          refused.get("escape"),
          `the command ${Path.join(inside, "bin", "escape")} resolves to ${
            Path.join(outside, "server")
          }, outside the root ${inside}`
        )
        assert.strictEqual(
          refused.get("wanders"),
          `the working directory ${Path.join(inside, "out")} resolves to ${outside}, outside the root ${inside}`
        )
      }),
    { timeout: 60_000 }
  )

  it.live(
    "under a root, a bare command name is found on PATH as the spawn would find it and held inside the root: an empty PATH entry or a PATH outside the root runs nothing outside it",
    () =>
      Effect.gen(function*() {
        const { inside, outside } = yield* plugin
        const memory = { MEMORY_FILE_PATH: Path.join(inside, "memory.jsonl") }
        // An empty entry is the working directory: the root, where `server` is a symlink out of it.
        const emptyEntry = `${Path.delimiter}${process.env["PATH"] ?? ""}`
        const toolset = yield* McpToolset.make([
          { name: "own", type: "stdio", command: "server", cwd: "bin", env: { ...memory, PATH: emptyEntry } },
          { name: "escape", type: "stdio", command: "server", env: { ...memory, PATH: emptyEntry } },
          { name: "system", type: "stdio", command: "sh", args: ["-c", "exit 1"] }
        ], { stdio: { root: inside } })
        const servers = new Set([...(yield* toolset.tools).values()].map((tool) => tool.server))
        assert.deepStrictEqual([...servers], ["own"], "the plugin's own program, found on PATH inside the root, runs")
        const refused = new Map(
          (yield* toolset.diagnostics).flatMap((d) => d.kind === "stdio-refused" ? [[d.server, d.reason] as const] : [])
        )
        assert.sameMembers([...refused.keys()], ["escape", "system"])
        assert.strictEqual(
          refused.get("escape"),
          `the command server is found on PATH at ${Path.join(inside, "server")}, which resolves to ${
            Path.join(outside, "server")
          }, outside the root ${inside}`
        )
        assert.include(refused.get("system") ?? "", "the command sh is found on PATH at")
        assert.include(refused.get("system") ?? "", `outside the root ${inside}`)
      }),
    { timeout: 60_000 }
  )

  it.live(
    "with no root configured nothing is confined: the same symlinked command starts",
    () =>
      Effect.gen(function*() {
        const { inside } = yield* plugin
        const toolset = yield* McpToolset.make([
          {
            name: "escape",
            type: "stdio",
            command: Path.join(inside, "bin", "escape"),
            env: { MEMORY_FILE_PATH: Path.join(inside, "m.jsonl") }
          }
        ])
        assert.isTrue((yield* toolset.tools).has("escape__read_graph"))
        assert.deepStrictEqual(yield* toolset.diagnostics, [])
      }),
    { timeout: 60_000 }
  )

  it.live(
    "the child's stderr goes to the log, annotated with the server, and never to stdout",
    () =>
      Effect.gen(function*() {
        const { stderr, stdout } = yield* Effect.promise(() =>
          new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
            execFile(
              process.execPath,
              ["--conditions=effect-surface-source", "test/client/fixtures/stderr-to-log.ts"],
              { cwd: root },
              (error, stdout, stderr) => error === null ? resolve({ stdout, stderr }) : reject(error)
            )
          )
        )
        assert.strictEqual(stdout, "MARKER\n")
        const banner = stderr.split("\n").find((line) => line.includes("Starting default (STDIO) server"))
        assert.isDefined(banner, stderr)
        assert.include(banner, "DEBUG")
        assert.include(stderr, "mcp.server")
      }),
    { timeout: 60_000 }
  )
})
