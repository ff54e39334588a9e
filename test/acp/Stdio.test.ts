// The example agent as an editor runs it: `npm -s start -- --acp` in a child process, driven over
// its real stdin and stdout by the SDK's client app (the scripted editor).
import * as Acp from "@agentclientprotocol/sdk"
import { assert, describe, it } from "@effect/vitest"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { Readable, Writable } from "node:stream"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import { ScriptedEditor } from "effect-surface/acp"

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
        assert.deepInclude(initialized !== undefined && "result" in initialized ? initialized.result : {}, {
          agentInfo: { name: "effect-surface-example", title: "effect-surface example agent", version: "0.1.0" }
        })
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
    "the agent exits once its editor closes the connection, leaving no process behind",
    () =>
      Effect.gen(function*() {
        const { child, editor } = yield* start(process.execPath, [
          "--conditions=effect-surface-source",
          "examples/main.ts",
          "--acp"
        ])
        yield* editor.newSession()
        yield* editor.drop
        const code = yield* exited(child).pipe(Effect.timeout("10 seconds"))
        assert.strictEqual(code, 0)
      }),
    { timeout: 60_000 }
  )
})
