// Permission fails closed: a malformed answer, a selected option never offered, or an answer after
// the cancel all read as `{ outcome: { outcome: "cancelled" } }`, with a warning naming the issues;
// and the Approval the ACP face provides answers a policy's "ask" through it, failing closed too.
import type * as Acp from "@agentclientprotocol/sdk"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Result, Schema } from "effect"
import { Approval } from "effect-surface"
import { AcpApproval, AcpSurface, AcpToolCalls, ScriptedEditor } from "effect-surface/acp"
import { captureLogs, editorFor, isRequest, methodsOf, settle } from "./harness.ts"

const offered: ReadonlyArray<Acp.PermissionOption> = [
  { optionId: "allow", name: "Allow", kind: "allow_once" },
  { optionId: "deny", name: "Deny", kind: "reject_once" }
]

const ask = AcpSurface.request("session/request_permission", {
  toolCall: { toolCallId: "c1", title: "Write notes.md", status: "pending" },
  options: [...offered]
})

const dismissed = { outcome: { outcome: "cancelled" } }

// The permission answer a turn sees when the editor answers with `step`, and what was logged.
const permissionAnswer = (step: ScriptedEditor.Step<"session/request_permission">) =>
  Effect.gen(function*() {
    const logs = captureLogs()
    const seen = yield* Deferred.make<Result.Result<unknown, unknown>>()
    yield* Effect.gen(function*() {
      const editor = yield* editorFor(
        () => Effect.flatMap(Effect.result(ask), (r) => Deferred.succeed(seen, r)).pipe(Effect.asVoid),
        {
          script: { "session/request_permission": step }
        }
      )
      yield* editor.prompt(yield* editor.newSession(), "go")
    }).pipe(Effect.scoped, Effect.provide(logs.layer))
    return { answer: yield* Deferred.await(seen), logged: logs.lines }
  })

describe("session/request_permission fails closed", () => {
  it.effect("a selection among the options offered reaches the turn as the editor sent it", () =>
    Effect.gen(function*() {
      const { answer, logged } = yield* permissionAnswer(
        ScriptedEditor.answer({ outcome: { outcome: "selected", optionId: "allow" } })
      )
      assert.deepStrictEqual(answer, Result.succeed({ outcome: { outcome: "selected", optionId: "allow" } }))
      assert.deepStrictEqual(logged, [])
    }))

  it.effect("a malformed answer reads as dismissed, with a warning naming what was wrong", () =>
    Effect.gen(function*() {
      const { answer, logged } = yield* permissionAnswer(ScriptedEditor.malformed({ outcome: { outcome: "selected" } }))
      assert.deepStrictEqual(answer, Result.succeed(dismissed))
      assert.deepStrictEqual(logged, [
        "Warn ACP session/request_permission read as cancelled: the editor's answer to session/request_permission does not fit the protocol: value at \"outcome.optionId\": missing required field"
      ])
    }))

  it.effect("a selected option that was never offered reads as dismissed, with a warning naming it", () =>
    Effect.gen(function*() {
      const { answer, logged } = yield* permissionAnswer(
        ScriptedEditor.answer({ outcome: { outcome: "selected", optionId: "allow-always" } })
      )
      assert.deepStrictEqual(answer, Result.succeed(dismissed))
      assert.deepStrictEqual(logged, [
        "Warn ACP session/request_permission read as cancelled: value at \"outcome.optionId\": \"allow-always\" was never offered"
      ])
    }))

  it.effect("an editor refusing to ask is a Refused error, not an answer", () =>
    Effect.gen(function*() {
      const { answer } = yield* permissionAnswer(ScriptedEditor.refuse("no UI"))
      assert.isTrue(Result.isFailure(answer) && (answer.failure as { _tag: string })._tag === "Refused")
    }))

  it.effect("an answer arriving after the cancel reads as dismissed, and a permission asked after it is never sent", () =>
    Effect.gen(function*() {
      const results = yield* Deferred.make<ReadonlyArray<unknown>>()
      const ready = yield* Deferred.make<void>()
      const handler = () =>
        Effect.gen(function*() {
          // The asking outlives the turn, as a tool call the turn started would.
          yield* Effect.forkDetach(Effect.gen(function*() {
            const first = yield* ask
            const second = yield* Effect.flip(ask)
            yield* Deferred.succeed(results, [
              first,
              second._tag === "Cancelled" && !second.sent ? "refused unsent" : second
            ])
          }))
          yield* Deferred.succeed(ready, undefined)
          return yield* Effect.never
        })
      // The person clicks "allow" only once the agent has cancelled the request.
      const editor = yield* editorFor(handler, {
        script: {
          "session/request_permission": (_params, call) =>
            Effect.as(call.cancelled, ScriptedEditor.answer({ outcome: { outcome: "selected", optionId: "allow" } }))
        }
      })
      const session = yield* editor.newSession()
      const prompt = yield* Effect.forkChild(editor.prompt(session, "go"))
      yield* Deferred.await(ready)
      yield* editor.waitFor(isRequest("session/request_permission"))
      yield* editor.cancel(session)
      yield* Fiber.join(prompt)
      assert.deepStrictEqual(yield* Deferred.await(results), [dismissed, "refused unsent"])
      yield* settle
      assert.deepStrictEqual(yield* methodsOf(editor), ["session/request_permission"])
    }))

  it.effect.prop(
    "whatever the editor answers, the turn sees a selection among the options offered or a dismissal",
    {
      answer: Schema.Union([
        Schema.Json,
        Schema.Struct({
          outcome: Schema.Struct({
            outcome: Schema.Literals(["selected", "cancelled"]),
            optionId: Schema.optionalKey(Schema.Json)
          })
        })
      ])
    },
    ({ answer }) =>
      Effect.gen(function*() {
        const seen = yield* permissionAnswer(ScriptedEditor.malformed(answer))
        assert.isTrue(Result.isSuccess(seen.answer))
        const outcome = (seen.answer as Result.Success<Acp.RequestPermissionResponse, never>).success.outcome
        if (outcome.outcome === "selected") assert.include(offered.map((o) => o.optionId), outcome.optionId)
        else assert.strictEqual(outcome.outcome, "cancelled")
      }),
    { arbitrary: { runs: 40, size: 8 } }
  )
})

const request: Approval.Request = {
  toolName: "files__write_file",
  server: "files",
  tool: "write_file",
  args: { path: "/notes.md" }
}

// What Approval.ask decides in a turn whose editor answers the permission prompt with `step`.
const decided = (step: ScriptedEditor.Step<"session/request_permission">) =>
  Effect.gen(function*() {
    const decision = yield* Deferred.make<Approval.Decision>()
    const editor = yield* editorFor(
      () => Effect.flatMap(Approval.ask(request), (d) => Deferred.succeed(decision, d)).pipe(Effect.asVoid),
      {
        script: { "session/request_permission": step }
      }
    )
    yield* editor.prompt(yield* editor.newSession(), "go")
    return { decision: yield* Deferred.await(decision), asked: yield* editor.requests("session/request_permission") }
  })

describe("AcpApproval", () => {
  it.effect("a policy's ask reaches the editor's permission prompt, and the allowing option lets the call through", () =>
    Effect.gen(function*() {
      const { asked, decision } = yield* decided(
        ScriptedEditor.answer({ outcome: { outcome: "selected", optionId: "allow-once" } })
      )
      assert.deepStrictEqual(decision, Approval.allow)
      const params = asked[0]?.params as Acp.RequestPermissionRequest
      assert.deepStrictEqual(params.options, [...AcpApproval.options])
      assert.deepStrictEqual([params.toolCall.title, params.toolCall.rawInput], ["Call files__write_file", {
        path: "/notes.md"
      }])
    }))

  it.effect("every other ending is a Deny worded for the model: rejected, dismissed, malformed, unoffered, refused", () =>
    Effect.gen(function*() {
      const steps: ReadonlyArray<readonly [ScriptedEditor.Step<"session/request_permission">, string]> = [
        [
          ScriptedEditor.answer({ outcome: { outcome: "selected", optionId: "reject-once" } }),
          "the person declined the call to files__write_file"
        ],
        [
          ScriptedEditor.answer({ outcome: { outcome: "cancelled" } }),
          "the person dismissed the request to call files__write_file"
        ],
        [ScriptedEditor.malformed({ outcome: 1 }), "the person dismissed the request to call files__write_file"],
        [
          ScriptedEditor.answer({ outcome: { outcome: "selected", optionId: "allow-always" } }),
          "the person dismissed the request to call files__write_file"
        ],
        [
          ScriptedEditor.refuse("no UI"),
          "calling files__write_file needs the person's approval, and it was not given: the editor refused session/request_permission: no UI (code -32603)"
        ]
      ]
      for (const [step, reason] of steps) {
        const { decision } = yield* Effect.scoped(decided(step))
        assert.deepStrictEqual(decision, Approval.deny(reason))
      }
    }))

  it.effect("outside a turn there is no one to ask: Deny", () =>
    Effect.gen(function*() {
      const decision = yield* Approval.ask(request).pipe(Effect.provide(AcpApproval.layer))
      assert.deepStrictEqual(
        decision,
        Approval.deny(
          "calling files__write_file needs the person's approval, and it was not given: there is no editor to ask"
        )
      )
    }))

  it.effect("asked inside a reported tool call, the prompt names that call", () =>
    Effect.gen(function*() {
      const handler = () =>
        Effect.asVoid(AcpToolCalls.report({ title: "Write notes.md", kind: "edit" }, Approval.ask(request)))
      const editor = yield* editorFor(handler, {
        script: {
          "session/request_permission": ScriptedEditor.answer({
            outcome: { outcome: "selected", optionId: "allow-once" }
          })
        }
      })
      yield* editor.prompt(yield* editor.newSession(), "go")
      const started = (yield* editor.updates).flatMap((u) => (u.sessionUpdate === "tool_call" ? [u.toolCallId] : []))
      const asked = (yield* editor.requests("session/request_permission")).map((r) =>
        (r.params as Acp.RequestPermissionRequest).toolCall.toolCallId
      )
      assert.strictEqual(started.length, 1)
      assert.deepStrictEqual(asked, started)
    }))
})
