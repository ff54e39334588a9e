// The scripted editor as a user puts it in their own tests: `ScriptedEditor.layer` over
// `AcpAgent.layer`, each step a script can take, and computed steps that see the call.
import type * as Acp from "@agentclientprotocol/sdk"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { AcpAgent, AcpSurface, ScriptedEditor } from "effect-surface/acp"
import { isCancelRequest, isRequest } from "./harness.ts"

const pathOf = (request: Acp.PromptRequest) => request.prompt[0]?.type === "text" ? request.prompt[0].text : ""

// What each turn saw, in order (the editor may no longer be there to be told).
const outcomes: Array<string> = []

// Each prompt reads the path it names and tells what happened.
const handler = (request: Acp.PromptRequest) =>
  AcpSurface.request("fs/read_text_file", { path: pathOf(request) }).pipe(
    Effect.map((answer) => `read ${answer.content}`),
    Effect.catch((error) => Effect.succeed(`failed ${error._tag}`)),
    Effect.tap((text) => Effect.sync(() => outcomes.push(text))),
    Effect.flatMap((text) =>
      Effect.ignore(AcpSurface.notify({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } }))
    )
  )

const script: ScriptedEditor.Script = {
  "fs/read_text_file": (params, call) => {
    switch (params.path) {
      case "/answer":
        return ScriptedEditor.answer({ content: `call ${call.index}` })
      case "/refuse":
        return ScriptedEditor.refuse("no such file")
      case "/malformed":
        return ScriptedEditor.malformed({ content: ["not", "text"] })
      case "/hang":
        // Answers only once the agent has cancelled it (which it never hears: it stopped waiting).
        return Effect.as(call.cancelled, ScriptedEditor.answer({ content: "too late" }))
      default:
        return ScriptedEditor.drop
    }
  }
}

const EditorLive = ScriptedEditor.layer({ script }).pipe(Layer.provide(AcpAgent.layer(handler)))

const said = (updates: ReadonlyArray<Acp.SessionUpdate>) =>
  updates.flatMap((
    u
  ) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? [u.content.text] : []))

layer(EditorLive)("ScriptedEditor.layer", (it) => {
  describe("each step a script takes reaches the turn as that ending", () => {
    it.effect("answer, refuse, malformed, and a computed answer that counts its calls", () =>
      Effect.gen(function*() {
        const editor = yield* ScriptedEditor.ScriptedEditor
        const session = yield* editor.newSession()
        for (const path of ["/answer", "/refuse", "/malformed", "/answer"]) yield* editor.prompt(session, path)
        assert.deepStrictEqual(said(yield* editor.updates), [
          "read call 0",
          "failed Refused",
          "failed MalformedAnswer",
          "read call 3"
        ])
      }))

    it.effect("hang: the call waits until the turn is cancelled, and the editor hears the cancel of the call", () =>
      Effect.gen(function*() {
        const editor = yield* ScriptedEditor.ScriptedEditor
        const session = yield* editor.newSession()
        const prompt = yield* Effect.forkChild(editor.prompt(session, "/hang"))
        // The log is the connection's, shared by this block's tests: wait for this call's request.
        yield* editor.waitFor((m) =>
          isRequest("fs/read_text_file")(m) && "params" in m && (m.params as { path: string }).path === "/hang"
        )
        yield* editor.cancel(session)
        assert.strictEqual((yield* Fiber.join(prompt)).stopReason, "cancelled")
        yield* editor.waitFor(isCancelRequest)
      }))
  })
})

layer(EditorLive)("ScriptedEditor.layer, dropping the connection", (it) => {
  it.effect("drop: the editor goes away mid-call, the turn's call is Disconnected, and nothing more reaches the editor", () =>
    Effect.gen(function*() {
      const editor = yield* ScriptedEditor.ScriptedEditor
      const session = yield* editor.newSession()
      outcomes.length = 0
      yield* Effect.forkChild(editor.prompt(session, "/drop"))
      yield* editor.waitFor(isRequest("fs/read_text_file"))
      for (let i = 0; i < 100 && outcomes.length === 0; i++)
        yield* Effect.promise(() => new Promise((r) => setTimeout(r, 10)))
      assert.deepStrictEqual(outcomes, ["failed Disconnected"])
      assert.deepStrictEqual(yield* editor.updates, [])
    }))
})
