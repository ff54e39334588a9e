// The commands the README gives hosts, run as a host runs them: from another directory, with the
// host's PATH (no project node_modules on it, so npm and the system node start them and the npm
// script must pin Node 24 itself), driven by the official SDK client over stdio. An argument the
// example does not know is refused at once instead of starting an HTTP server nobody asked for.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import * as ChildProcess from "node:child_process"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../..", import.meta.url))

/** The environment a host hands its server: this one without the project's bins or npm's own variables. */
const hostEnv = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.toLowerCase().startsWith("npm_")) env[key] = value
  }
  env["PATH"] = (process.env["PATH"] ?? "").split(Path.delimiter).filter((dir) => !dir.includes("node_modules")).join(
    Path.delimiter
  )
  env["NO_COLOR"] = "1"
  return env
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const hostCommands: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["the stdio script, with no bare --", ["-s", "--prefix", root, "run", "stdio"]]
]

describe("the commands a host runs", () => {
  for (const [label, args] of hostCommands) {
    it.live(
      `${label} serves the board over stdio to the SDK client and ends with its host`,
      () =>
        Effect.gen(function*() {
          const transport = new StdioClientTransport({
            command: "npm",
            args: [...args],
            cwd: Os.tmpdir(),
            env: hostEnv(),
            stderr: "pipe"
          })
          const stderr: Array<string> = []
          transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString()))
          const client = new Client({ name: "host-command", version: "1.0.0" })
          yield* Effect.promise(() => client.connect(transport))
          const pid = transport.pid ?? 0
          const { tools } = yield* Effect.promise(() => client.listTools())
          assert.include(tools.map((t) => t.name), "tasks_add", stderr.join(""))
          const added = (yield* Effect.promise(() =>
            client.callTool({ name: "tasks_add", arguments: { title: "from a host" } })
          )) as CallToolResult
          assert.deepStrictEqual(added.structuredContent, { id: "t1" })
          yield* Effect.promise(() =>
            client.close()
          )
          // Bounded wait: the host's child is gone within a few seconds of stdin closing.
          for (let i = 0; i < 50 && alive(pid); i++) yield* Effect.sleep("100 millis")
          assert.isFalse(alive(pid))
        }),
      { timeout: 60_000 }
    )
  }
})

/** Run a command to its end, with stdin closed, and report how it ended and what it wrote. */
const run = (command: string, args: ReadonlyArray<string>) =>
  Effect.callback<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resume) => {
    const child = ChildProcess.spawn(command, args, {
      cwd: Os.tmpdir(),
      env: hostEnv(),
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.once("close", (code) => resume(Effect.succeed({ code, stdout, stderr })))
    return Effect.sync(() => void child.kill("SIGKILL"))
  })

const node24 = Path.join(root, "node_modules", ".bin", "node")
const example = Path.join(root, "examples", "main.ts")

const refusals: ReadonlyArray<readonly [string, string, ReadonlyArray<string>, string]> = [
  [
    "an unknown argument",
    node24,
    ["--conditions=effect-surface-source", example, "--http"],
    "unknown argument \"--http\""
  ],
  [
    "a second argument through the stdio script",
    "npm",
    ["-s", "--prefix", root, "run", "stdio", "--", "--tour"],
    "second argument \"--tour\""
  ]
]

describe("arguments the example does not take", () => {
  for (const [label, command, args, named] of refusals) {
    it.live(
      `${label} is refused with a sentence naming it and the accepted ones, and a non-zero exit`,
      () =>
        Effect.gen(function*() {
          const ended = yield* run(command, args).pipe(Effect.timeout("30 seconds"))
          assert.notStrictEqual(ended.code, 0)
          assert.include(ended.stderr, named)
          for (const accepted of ["--stdio", "--tour", "nothing (serve over HTTP)"])
            assert.include(ended.stderr, accepted)
          assert.strictEqual(ended.stdout, "", "nothing reaches stdout, where a host expects protocol")
        }),
      { timeout: 60_000 }
    )
  }
})
