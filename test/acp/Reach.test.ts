// The surface travels in the Effect context: a forked fiber, a service three calls deep, and a fiber
// still running after its turn ended all reach the editor and session their turn had.
import type * as Acp from "@agentclientprotocol/sdk"
import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Effect, Fiber, Layer } from "effect"
import { AcpAgent, AcpChecks, AcpSurface, ScriptedEditor } from "effect-surface/acp"
import { editorFor, isRequest } from "./harness.ts"

const reads: ScriptedEditor.Script = {
  "fs/read_text_file": (params) => ScriptedEditor.answer({ content: `contents of ${params.path}` })
}

const sessionsOf = (requests: ReadonlyArray<{ readonly params: unknown }>) =>
  requests.map((r) => (r.params as { sessionId: string }).sessionId)

const textOf = (request: Acp.PromptRequest) => request.prompt[0]?.type === "text" ? request.prompt[0].text : ""

// A service built once, outside any turn, that asks the editor two helpers down.
class Notes
  extends Context.Service<Notes, { readonly read: (path: string) => Effect.Effect<string, unknown> }>()("test/Notes")
{
  static readonly layer = Layer.succeed(Notes, {
    read: (path) => Notes.normalize(path)
  })
  static normalize(path: string) {
    return Notes.fetch(path.startsWith("/") ? path : `/${path}`)
  }
  static fetch(path: string) {
    return Effect.map(AcpSurface.request("fs/read_text_file", { path }), (answer) => answer.content)
  }
}

describe("AcpSurface reach", () => {
  it.effect("a fiber the turn forks reaches the same editor and session", () =>
    Effect.gen(function*() {
      const handler = () =>
        Effect.gen(function*() {
          const fiber = yield* Effect.forkChild(AcpSurface.request("fs/read_text_file", { path: "/forked" }))
          yield* Fiber.join(fiber)
        }).pipe(Effect.orDie)
      const editor = yield* editorFor(handler, { script: reads })
      const session = yield* editor.newSession()
      yield* editor.prompt(session, "go")
      assert.deepStrictEqual(sessionsOf(yield* editor.requests("fs/read_text_file")), [session])
    }))

  it.effect("a service three calls deep, built outside the turn, asks through the surface of the turn calling it", () =>
    Effect.gen(function*() {
      const answers: Array<string> = []
      const handler = (request: Acp.PromptRequest) =>
        Effect.gen(function*() {
          const notes = yield* Notes
          answers.push(yield* notes.read(textOf(request)))
        }).pipe(Effect.orDie)
      const editor = yield* ScriptedEditor.make({ script: reads }).pipe(
        Effect.provide(
          Layer.effect(AcpAgent.AcpAgent, AcpAgent.make(handler)).pipe(Layer.provide([AcpChecks.layer, Notes.layer]))
        )
      )
      const first = yield* editor.newSession()
      const second = yield* editor.newSession()
      yield* editor.prompt(first, "a.md")
      yield* editor.prompt(second, "b.md")
      assert.deepStrictEqual(answers, ["contents of /a.md", "contents of /b.md"])
      assert.deepStrictEqual(sessionsOf(yield* editor.requests("fs/read_text_file")), [first, second])
    }))

  it.effect("a fiber still running after its turn ended still reaches that turn's session", () =>
    Effect.gen(function*() {
      const go = yield* Deferred.make<void>()
      const answered = yield* Deferred.make<string>()
      const handler = () =>
        Effect.asVoid(Effect.forkDetach(
          Effect.gen(function*() {
            yield* Deferred.await(go)
            const { content } = yield* AcpSurface.request("fs/read_text_file", { path: "/later" })
            yield* Deferred.succeed(answered, content)
          }).pipe(Effect.orDie)
        ))
      const editor = yield* editorFor(handler, { script: reads })
      const first = yield* editor.newSession()
      assert.strictEqual((yield* editor.prompt(first, "go")).stopReason, "end_turn")
      // Another session's turn runs meanwhile; the old fiber keeps the surface it had.
      const second = yield* editor.newSession()
      yield* editor.prompt(second, "other")
      yield* Deferred.succeed(go, undefined)
      assert.strictEqual(yield* Deferred.await(answered), "contents of /later")
      const request = yield* editor.waitFor(isRequest("fs/read_text_file"))
      assert.strictEqual("params" in request ? (request.params as { sessionId: string }).sessionId : "", first)
    }))

  it.effect("turns of two sessions running at once each reach their own session", () =>
    Effect.gen(function*() {
      const both = yield* Deferred.make<void>()
      const started: Array<string> = []
      const handler = (request: Acp.PromptRequest) =>
        Effect.gen(function*() {
          started.push(request.sessionId)
          if (started.length === 2) yield* Deferred.succeed(both, undefined)
          yield* Deferred.await(both)
          yield* AcpSurface.request("fs/read_text_file", { path: `/${textOf(request)}` })
        }).pipe(Effect.orDie)
      const editor = yield* editorFor(handler, { script: reads })
      const a = yield* editor.newSession()
      const b = yield* editor.newSession()
      yield* Effect.all([editor.prompt(a, "a"), editor.prompt(b, "b")], { concurrency: 2 })
      const requests = yield* editor.requests("fs/read_text_file")
      for (const r of requests) {
        const { path, sessionId } = r.params as { path: string; sessionId: string }
        assert.strictEqual(sessionId, path === "/a" ? a : b)
      }
      assert.strictEqual(requests.length, 2)
    }))
})
