// The example agent as an editor runs it: `npm -s start -- --acp` in a child process, driven over
// its real stdin and stdout by the SDK's client app (the scripted editor).
import * as Acp from "@agentclientprotocol/sdk"
import { assert, describe, it } from "@effect/vitest"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { Readable, Writable } from "node:stream"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import { ScriptedEditor } from "effect-surface/acp"
import { entry, eventually, tempDir } from "../client/servers.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))

const allow = ScriptedEditor.answer({ outcome: { outcome: "selected", optionId: "allow-once" } })

const script: ScriptedEditor.Script = {
  "fs/read_text_file": (params) => ScriptedEditor.answer({ content: `contents of ${params.path}` }),
  "session/request_permission": allow,
  "terminal/create": ScriptedEditor.answer({ terminalId: "t1" }),
  "terminal/wait_for_exit": ScriptedEditor.answer({ exitCode: 0 }),
  "terminal/output": ScriptedEditor.answer({ output: "hi\n", truncated: false }),
  "terminal/release": ScriptedEditor.answer({})
}

const exited = (child: ChildProcessWithoutNullStreams) =>
  Effect.callback<number | null>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.succeed(child.exitCode))
    child.once("exit", (code) => resume(Effect.succeed(code)))
  })

/** The example started as the README says, its stdout recorded raw beside the protocol stream. */
const start = (command: string, args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => spawn(command, [...args], { cwd: root, env: { ...process.env, NO_COLOR: "1" } })),
      (child) => Effect.sync(() => child.kill())
    )
    const stdout: Array<string> = []
    const stderr: Array<string> = []
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk.toString()))
    const stream = Acp.ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>
    )
    const editor = yield* ScriptedEditor.connect(stream, { script }, Effect.sync(() => child.stdin.end()))
    return { child, editor, stdout, stderr }
  })

/** server-memory as an editor sends it; `marker` (an argument it ignores) finds its process. */
const memory = (file: string, marker: string): Acp.McpServer => ({
  name: "memory",
  command: process.execPath,
  args: [entry("server-memory"), marker],
  env: [{ name: "MEMORY_FILE_PATH", value: file }]
})

/** The pids of every live process on the machine whose command line mentions `marker`. */
const processesMentioning = (marker: string): ReadonlyArray<number> =>
  Fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name)).flatMap((name) => {
    try {
      const stat = Fs.readFileSync(`/proc/${name}/stat`, "utf8")
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return []
      return Fs.readFileSync(`/proc/${name}/cmdline`, "utf8").includes(marker) ? [Number(name)] : []
    } catch {
      return [] // gone meanwhile
    }
  })

const said = (updates: ReadonlyArray<Acp.SessionUpdate>) =>
  updates.flatMap((
    u
  ) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : [])).join("")

describe("the example ACP agent over stdio", () => {
  it.live(
    "an editor starts it, opens a session and has it read a file and run a command through the editor",
    () =>
      Effect.gen(function*() {
        const { editor, stdout } = yield* start("npm", ["-s", "start", "--", "--acp"])
        const [initialized] = yield* editor.log
        const result = initialized !== undefined && "result" in initialized
          ? initialized.result as Acp.InitializeResponse : undefined
        assert.deepStrictEqual(result?.agentInfo, {
          name: "effect-surface-example",
          title: "effect-surface example agent",
          version: "0.1.0"
        })
        assert.deepStrictEqual(result?.agentCapabilities?.mcpCapabilities, { http: true, sse: true })
        const session = yield* editor.newSession({ cwd: "/repo" })
        assert.strictEqual((yield* editor.prompt(session, "read README.md")).stopReason, "end_turn")
        assert.strictEqual((yield* editor.prompt(session, "run echo hi")).stopReason, "end_turn")
        const text = said(yield* editor.updates)
        assert.include(text, "contents of /repo/README.md")
        assert.include(text, "`echo hi` exited with code 0")
        assert.deepStrictEqual((yield* editor.requests()).map((r) => r.method), [
          "fs/read_text_file",
          "session/request_permission",
          "terminal/create",
          "terminal/wait_for_exit",
          "terminal/output",
          "terminal/release"
        ])
        // Nothing but protocol on stdout: every line is one JSON-RPC message.
        for (const line of stdout.join("").split("\n").filter((l) => l !== ""))
          assert.strictEqual(JSON.parse(line).jsonrpc, "2.0")
      }),
    { timeout: 60_000 }
  )

  it.live(
    "a session's MCP server runs under the agent: tools lists it, and an allowed call reaches it",
    () =>
      Effect.gen(function*() {
        const { editor } = yield* start("npm", ["-s", "start", "--", "--acp"])
        const file = Path.join(yield* tempDir, "memory.jsonl")
        const session = yield* editor.newSession({
          cwd: Path.dirname(file),
          mcpServers: [memory(file, "--stdio-test")]
        })
        yield* editor.prompt(session, "tools")
        assert.include(said(yield* editor.updates), "- memory__create_entities: ")
        const entities = {
          entities: [{ name: "Ada", entityType: "person", observations: ["wrote the first program"] }]
        }
        yield* editor.prompt(session, `call memory__create_entities ${JSON.stringify(entities)}`)
        assert.deepStrictEqual((yield* editor.requests()).map((r) => r.method), ["session/request_permission"])
        assert.include(Fs.readFileSync(file, "utf8"), "wrote the first program")
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "the agent exits once its editor closes the connection, leaving no process behind, its sessions' MCP servers included",
    () =>
      Effect.gen(function*() {
        const { child, editor } = yield* start(process.execPath, [
          "--conditions=effect-surface-source",
          "examples/main.ts",
          "--acp"
        ])
        const marker = `--marker-${crypto.randomUUID()}`
        const file = Path.join(yield* tempDir, "memory.jsonl")
        yield* editor.newSession({ mcpServers: [memory(file, marker)] })
        assert.strictEqual(processesMentioning(marker).length, 1)
        yield* editor.drop
        const code = yield* exited(child).pipe(Effect.timeout("10 seconds"))
        assert.strictEqual(code, 0)
        yield* eventually(() => processesMentioning(marker).length === 0, "the session's MCP server has exited")
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
