// The seam the faces meet at: services built at session/new are built with the session and the
// editor-backed Approval, so a policy's ask captured there reaches the person through the editor of
// whichever turn is calling, failing closed. (The client toolset itself on it: Toolset.test.ts.)
import type * as Acp from "@agentclientprotocol/sdk"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { Approval } from "effect-surface"
import { AcpAgent, AcpChecks, AcpSession, AcpToolCalls, ScriptedEditor } from "effect-surface/acp"

// A stand-in for a toolset: made once per session, it keeps the Approval it was made with (as the
// client toolset does) and asks it before every call.
class Tools extends Context.Service<Tools, {
  readonly servers: ReadonlyArray<string>
  readonly call: (name: string) => Effect.Effect<string>
}>()("test/Tools") {
  static readonly layer = Layer.effect(
    Tools,
    Effect.gen(function*() {
      const session = yield* AcpSession.AcpSession
      const approval = yield* Approval.Approval
      return Tools.of({
        servers: session.mcpServers.map((server) => server.name),
        call: (name) =>
          Effect.map(
            approval.decide({ toolName: name, server: "files", tool: name, args: {} }),
            (decision) => decision._tag === "Allow" ? `${name} ran` : `refused: ${decision.reason}`
          )
      })
    })
  )
}

const handler = (request: Acp.PromptRequest) =>
  Effect.gen(function*() {
    const tools = yield* Tools
    const name = request.prompt[0]?.type === "text" ? request.prompt[0].text : ""
    return yield* AcpToolCalls.report({ title: `Call ${name}`, rawInput: {} }, tools.call(name))
  }).pipe(Effect.asVoid)

const editorWith = (answer: ScriptedEditor.Step<"session/request_permission">) =>
  ScriptedEditor.make({ script: { "session/request_permission": answer } }).pipe(
    Effect.provide(
      Layer.effect(AcpAgent.AcpAgent, AcpAgent.make(handler, { session: () => Tools.layer })).pipe(
        Layer.provide(AcpChecks.layer)
      )
    )
  )

const servers: ReadonlyArray<Acp.McpServer> = [{ name: "files", command: "mcp-files", args: [], env: [] }]

describe("session services", () => {
  it.effect("are built from session/new, and their captured Approval asks the calling turn's editor, on its tool call", () =>
    Effect.gen(function*() {
      const editor = yield* editorWith(
        ScriptedEditor.answer({ outcome: { outcome: "selected", optionId: "allow-once" } })
      )
      const first = yield* editor.newSession({ mcpServers: [...servers] })
      const second = yield* editor.newSession({ mcpServers: [...servers] })
      yield* editor.prompt(first, "files__read")
      yield* editor.prompt(second, "files__write")
      const asked = (yield* editor.requests("session/request_permission")).map((r) =>
        r.params as Acp.RequestPermissionRequest
      )
      assert.deepStrictEqual(asked.map((p) => [p.sessionId, p.toolCall.title]), [[first, "Call files__read"], [
        second,
        "Call files__write"
      ]])
      const calls = (yield* editor.updates).flatMap((u) => (u.sessionUpdate === "tool_call" ? [u.toolCallId] : []))
      assert.deepStrictEqual(asked.map((p) => p.toolCall.toolCallId), calls)
      const completed = (yield* editor.updates).flatMap((u) =>
        u.sessionUpdate === "tool_call_update" && u.status === "completed" ? [u.content?.[0]] : []
      )
      assert.deepStrictEqual(completed, [
        { type: "content", content: { type: "text", text: "files__read ran" } },
        { type: "content", content: { type: "text", text: "files__write ran" } }
      ])
    }))

  it.effect("a doubtful answer to the captured ask is a no", () =>
    Effect.gen(function*() {
      const editor = yield* editorWith(ScriptedEditor.malformed({ outcome: { outcome: "selected", optionId: 7 } }))
      yield* editor.prompt(yield* editor.newSession({ mcpServers: [...servers] }), "files__write")
      const completed = (yield* editor.updates).flatMap((u) =>
        u.sessionUpdate === "tool_call_update" && u.status === "completed" ? [u.content?.[0]] : []
      )
      assert.deepStrictEqual(completed, [{
        type: "content",
        content: { type: "text", text: "refused: the person dismissed the request to call files__write" }
      }])
    }))
})
