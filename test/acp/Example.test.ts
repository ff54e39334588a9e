// The example agent (examples/acp) against a scripted editor in process: each command is done
// through the editor and told back as agent_message_chunk updates, `write`, `run` and `call` ask
// first, and a capability the editor did not advertise is explained, not called.
import type * as Acp from "@agentclientprotocol/sdk"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import { AcpAgent, AcpChecks, ScriptedEditor } from "effect-surface/acp"
import { handler } from "../../examples/acp/agent.ts"
import { parse } from "../../examples/acp/commands.ts"
import * as SessionTools from "../../examples/acp/tools.ts"
import { isPromptAnswer, isRequest, methodsOf } from "./harness.ts"

const allow = ScriptedEditor.answer({ outcome: { outcome: "selected", optionId: "allow-once" } })
const reject = ScriptedEditor.answer({ outcome: { outcome: "selected", optionId: "reject-once" } })

const everything = (overrides?: ScriptedEditor.Script): ScriptedEditor.Script => ({
  "fs/read_text_file": (params) => ScriptedEditor.answer({ content: `contents of ${params.path}` }),
  "fs/write_text_file": ScriptedEditor.answer({}),
  "session/request_permission": allow,
  "terminal/create": ScriptedEditor.answer({ terminalId: "t1" }),
  "terminal/wait_for_exit": ScriptedEditor.answer({ exitCode: 0 }),
  "terminal/output": ScriptedEditor.answer({ output: "hi\n", truncated: false }),
  "terminal/kill": ScriptedEditor.answer({}),
  "terminal/release": ScriptedEditor.answer({}),
  ...overrides
})

const example = (options?: ScriptedEditor.Options) =>
  ScriptedEditor.make(options).pipe(
    Effect.provide(
      Layer.effect(AcpAgent.AcpAgent, AcpAgent.make(handler, { session: SessionTools.layer })).pipe(
        Layer.provide(AcpChecks.layer)
      )
    )
  )

const said = (updates: ReadonlyArray<Acp.SessionUpdate>) =>
  updates.flatMap((
    u
  ) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : [])).join("")

// Run one prompt in a fresh session at /repo; what the agent said, and what it asked of the editor.
const turn = (prompt: string, options?: ScriptedEditor.Options) =>
  Effect.gen(function*() {
    const editor = yield* example(options ?? { script: everything() })
    const answer = yield* editor.prompt(yield* editor.newSession({ cwd: "/repo" }), prompt)
    return { answer, text: said(yield* editor.updates), methods: yield* methodsOf(editor), editor }
  })

describe("the example ACP agent", () => {
  it.effect("read shows the file the editor read, its path resolved against the session's folder, as a tool call", () =>
    Effect.gen(function*() {
      const { answer, editor, methods, text } = yield* turn("read README.md")
      assert.strictEqual(answer.stopReason, "end_turn")
      assert.deepStrictEqual(methods, ["fs/read_text_file"])
      assert.deepStrictEqual((yield* editor.requests()).map((r) => (r.params as { path: string }).path), [
        "/repo/README.md"
      ])
      assert.include(text, "contents of /repo/README.md")
      const kinds = (yield* editor.updates).map((u) =>
        u.sessionUpdate === "tool_call_update" ? `update:${u.status}` : u.sessionUpdate
      )
      assert.deepStrictEqual(kinds, ["tool_call", "update:in_progress", "update:completed", "agent_message_chunk"])
    }))

  it.effect("a capability the editor did not advertise is explained to the person and never called", () =>
    Effect.gen(function*() {
      const { methods, text } = yield* turn("read README.md", { capabilities: {}, script: everything() })
      assert.deepStrictEqual(methods, [])
      assert.include(text, "your editor did not offer fs.readTextFile to agents")
    }))

  it.effect("write asks the person first, then writes through the editor", () =>
    Effect.gen(function*() {
      const { editor, methods, text } = yield* turn("write notes.md hello there")
      assert.deepStrictEqual(methods, ["session/request_permission", "fs/write_text_file"])
      const written = (yield* editor.requests("fs/write_text_file")).map((r) => r.params as Acp.WriteTextFileRequest)
      assert.deepStrictEqual(written.map(({ content, path }) => [path, content]), [["/repo/notes.md", "hello there"]])
      assert.include(text, "Wrote 11 characters to /repo/notes.md")
    }))

  it.effect("a person who says no gets nothing written", () =>
    Effect.gen(function*() {
      const { methods, text } = yield* turn("write notes.md hello", {
        script: everything({ "session/request_permission": reject })
      })
      assert.deepStrictEqual(methods, ["session/request_permission"])
      assert.include(text, "Not done: the person declined the call to write")
    }))

  it.effect("run asks, creates a terminal, waits for it, reads its output and releases it", () =>
    Effect.gen(function*() {
      const { methods, text } = yield* turn("run echo hi")
      assert.deepStrictEqual(methods, [
        "session/request_permission",
        "terminal/create",
        "terminal/wait_for_exit",
        "terminal/output",
        "terminal/release"
      ])
      assert.include(text, "`echo hi` exited with code 0")
      assert.include(text, "hi\n")
    }))

  it.effect("a command still running at the deadline is killed, then read and released", () =>
    Effect.gen(function*() {
      const editor = yield* example({ script: everything({ "terminal/wait_for_exit": ScriptedEditor.hang }) })
      const prompt = yield* Effect.forkChild(
        editor.prompt(yield* editor.newSession({ cwd: "/repo" }), "run sleep 1000")
      )
      yield* editor.waitFor(isRequest("terminal/wait_for_exit"))
      yield* TestClock.adjust("60 seconds")
      assert.strictEqual((yield* Fiber.join(prompt)).stopReason, "end_turn")
      assert.deepStrictEqual(yield* methodsOf(editor), [
        "session/request_permission",
        "terminal/create",
        "terminal/wait_for_exit",
        "terminal/kill",
        "terminal/output",
        "terminal/release"
      ])
      assert.include(said(yield* editor.updates), "was killed after 1m")
    }))

  it.effect("a run cancelled while waiting answers cancelled, then kills and releases its terminal", () =>
    Effect.gen(function*() {
      const editor = yield* example({ script: everything({ "terminal/wait_for_exit": ScriptedEditor.hang }) })
      const session = yield* editor.newSession({ cwd: "/repo" })
      const prompt = yield* Effect.forkChild(editor.prompt(session, "run sleep 1000"))
      yield* editor.waitFor(isRequest("terminal/wait_for_exit"))
      yield* editor.cancel(session)
      assert.strictEqual((yield* Fiber.join(prompt)).stopReason, "cancelled")
      yield* editor.waitFor(isRequest("terminal/release"))
      const log = yield* editor.log
      assert.isBelow(log.findIndex(isPromptAnswer), log.findIndex(isRequest("terminal/kill")))
      assert.deepStrictEqual(yield* methodsOf(editor), [
        "session/request_permission",
        "terminal/create",
        "terminal/wait_for_exit",
        "terminal/kill",
        "terminal/release"
      ])
    }))

  it.effect("tools in a session the editor gave no MCP servers says there are none", () =>
    Effect.gen(function*() {
      const { methods, text } = yield* turn("tools")
      assert.deepStrictEqual(methods, [])
      assert.include(text, "No tools: this session's MCP servers offer none")
    }))

  it.effect("call of a tool the session does not have asks nothing, sends nothing and says so", () =>
    Effect.gen(function*() {
      const { editor, methods, text } = yield* turn("call files__read {\"path\":\"/a\"}")
      assert.deepStrictEqual(methods, [])
      assert.include(text, "no tool is named \"files__read\" in this toolset")
      const statuses = (yield* editor.updates).flatMap((u) => u.sessionUpdate === "tool_call_update" ? [u.status] : [])
      assert.deepStrictEqual(statuses, ["in_progress", "failed"])
    }))

  it.effect("anything else is answered with the commands it understands", () =>
    Effect.gen(function*() {
      const { methods, text } = yield* turn("make me a sandwich")
      assert.deepStrictEqual(methods, [])
      assert.include(text, "\"make\" is not a command")
      assert.include(text, "read <path>")
    }))

  it.prop("any prompt parses to a command (help, at worst), never an exception", [Schema.String], ([prompt]) => {
    const command = parse(prompt)
    assert.include(["Read", "Write", "Run", "Tools", "Call", "Help"], command._tag)
  })

  it("quoted words keep their spaces, and write takes the rest of the line", () => {
    assert.deepStrictEqual(parse("run \"my tool\" --flag \"a b\""), {
      _tag: "Run",
      command: "my tool",
      args: ["--flag", "a b"]
    })
    assert.deepStrictEqual(parse("write \"my notes.md\" two  spaces"), {
      _tag: "Write",
      path: "my notes.md",
      text: "two  spaces"
    })
    assert.deepStrictEqual(parse("call t {\"a\": [1, 2]}"), { _tag: "Call", tool: "t", args: { a: [1, 2] } })
  })
})
