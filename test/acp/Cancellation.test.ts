// The cancellation contract, on the TestClock: cleanup registered with onCancel is sent only on a
// cancel, after session/prompt has answered `cancelled` and the turn has settled (at most 10 s), in
// order, each call under 5 s, failures logged and never raised; a turn that ends otherwise sends nothing.
import type * as Acp from "@agentclientprotocol/sdk"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { AcpError, type AcpProtocol, AcpSurface, ScriptedEditor } from "effect-surface/acp"
import { captureLogs, editorFor, isPromptAnswer, isRequest, methodsOf, settle } from "./harness.ts"

const terminalScript = (overrides?: ScriptedEditor.Script): ScriptedEditor.Script => ({
  "terminal/create": ScriptedEditor.answer({ terminalId: "t1" }),
  "terminal/kill": ScriptedEditor.answer({}),
  "terminal/release": ScriptedEditor.answer({}),
  "terminal/output": ScriptedEditor.answer({ output: "", truncated: false }),
  ...overrides
})

const kill = { method: "terminal/kill", params: { terminalId: "t1" } } as const
const release = { method: "terminal/release", params: { terminalId: "t1" } } as const
const output = { method: "terminal/output", params: { terminalId: "t1" } } as const

// A turn that creates a terminal, registers `registrations` (each its own onCancel), says it is
// ready, and waits to be stopped.
const registering =
  (ready: Deferred.Deferred<void>, ...registrations: ReadonlyArray<ReadonlyArray<AcpProtocol.CleanupRequest>>) => () =>
    Effect.gen(function*() {
      yield* AcpSurface.request("terminal/create", { command: "sleep", args: ["100"] })
      for (const requests of registrations) yield* AcpSurface.onCancel(requests)
      yield* Deferred.succeed(ready, undefined)
      return yield* Effect.never
    }).pipe(Effect.scoped, Effect.orDie)

const indexOf = (log: ReadonlyArray<Acp.AnyMessage>, predicate: (m: Acp.AnyMessage) => boolean) =>
  log.findIndex(predicate)

// Open a session, prompt, wait until the turn is ready, cancel; the prompt's answer.
const promptThenCancel = (editor: ScriptedEditor.Editor, ready: Deferred.Deferred<void>) =>
  Effect.gen(function*() {
    const session = yield* editor.newSession()
    const prompt = yield* Effect.forkChild(editor.prompt(session, "run"))
    yield* Deferred.await(ready)
    yield* editor.cancel(session)
    return yield* Fiber.join(prompt)
  })

describe("AcpSurface.onCancel", () => {
  it.effect("a cancelled turn's cleanup is sent after session/prompt answered cancelled, in the order registered", () =>
    Effect.gen(function*() {
      const ready = yield* Deferred.make<void>()
      const editor = yield* editorFor(registering(ready, [kill, release], [output]), { script: terminalScript() })
      const answer = yield* promptThenCancel(editor, ready)
      assert.strictEqual(answer.stopReason, "cancelled")
      yield* editor.waitFor(isRequest("terminal/output"))
      const log = yield* editor.log
      const answered = indexOf(log, isPromptAnswer)
      const sent = ["terminal/kill", "terminal/release", "terminal/output"].map((method) =>
        indexOf(log, isRequest(method))
      )
      assert.isAbove(sent[0]!, answered)
      assert.deepStrictEqual([...sent].sort((a, b) => a - b), sent)
      assert.deepStrictEqual(yield* methodsOf(editor), [
        "terminal/create",
        "terminal/kill",
        "terminal/release",
        "terminal/output"
      ])
    }))

  it.effect("each cleanup call has 5 seconds: one the editor never answers is logged, and the next is sent", () =>
    Effect.gen(function*() {
      const logs = captureLogs()
      yield* Effect.gen(function*() {
        const ready = yield* Deferred.make<void>()
        const editor = yield* editorFor(registering(ready, [kill, release]), {
          script: terminalScript({ "terminal/kill": ScriptedEditor.hang })
        })
        yield* promptThenCancel(editor, ready)
        yield* editor.waitFor(isRequest("terminal/kill"))
        yield* TestClock.adjust("4999 millis")
        yield* settle
        assert.deepStrictEqual(yield* methodsOf(editor), ["terminal/create", "terminal/kill"])
        yield* TestClock.adjust("1 millis")
        yield* editor.waitFor(isRequest("terminal/release"))
      }).pipe(Effect.provide(logs.layer))
      assert.deepStrictEqual(logs.lines, [
        "Warn ACP cleanup terminal/kill after a cancelled turn failed: no answer within 5s"
      ])
    }))

  it.effect("a cleanup call the editor refuses is logged, not raised, and the rest still go", () =>
    Effect.gen(function*() {
      const logs = captureLogs()
      yield* Effect.gen(function*() {
        const ready = yield* Deferred.make<void>()
        const editor = yield* editorFor(registering(ready, [kill, release]), {
          script: terminalScript({ "terminal/kill": ScriptedEditor.refuse("already exited") })
        })
        yield* promptThenCancel(editor, ready)
        yield* editor.waitFor(isRequest("terminal/release"))
      }).pipe(Effect.provide(logs.layer))
      assert.deepStrictEqual(logs.lines, [
        "Warn ACP cleanup terminal/kill after a cancelled turn failed: the editor refused terminal/kill: already exited (code -32603)"
      ])
    }))

  it.effect("the cleanup waits for the cancelled turn to settle, but never more than 10 seconds", () =>
    Effect.gen(function*() {
      const ready = yield* Deferred.make<void>()
      // The turn's own unwinding takes a minute: the cleanup does not wait for all of it.
      const handler = () =>
        Effect.gen(function*() {
          yield* Effect.acquireRelease(Effect.void, () => Effect.sleep("1 minute"))
          return yield* registering(ready, [kill])()
        }).pipe(Effect.scoped)
      const editor = yield* editorFor(handler, { script: terminalScript() })
      assert.strictEqual((yield* promptThenCancel(editor, ready)).stopReason, "cancelled")
      yield* settle
      yield* TestClock.adjust("9 seconds")
      yield* settle
      assert.deepStrictEqual(yield* methodsOf(editor), ["terminal/create"])
      yield* TestClock.adjust("1 second")
      yield* editor.waitFor(isRequest("terminal/kill"))
      // The turn's minute of unwinding ends too, so the test's scope can close.
      yield* TestClock.adjust("50 seconds")
    }))

  it.effect("a turn that ends any other way sends nothing, then or on a later cancel", () =>
    Effect.gen(function*() {
      const handler = (request: Acp.PromptRequest) =>
        Effect.gen(function*() {
          yield* AcpSurface.request("terminal/create", { command: "true" })
          yield* AcpSurface.onCancel([kill, release])
          if (request.prompt[0]?.type === "text" && request.prompt[0].text === "fail")
            return yield* Effect.fail("the model gave up")
        }).pipe(Effect.scoped, Effect.catchTag("NoSurface", Effect.die))
      const editor = yield* editorFor(handler, { script: terminalScript() })
      const session = yield* editor.newSession()
      assert.strictEqual((yield* editor.prompt(session, "done")).stopReason, "end_turn")
      const failed = yield* Effect.flip(editor.prompt(session, "fail"))
      assert.include(failed.message, "the model gave up")
      yield* editor.cancel(session)
      yield* settle
      assert.deepStrictEqual(yield* methodsOf(editor), ["terminal/create", "terminal/create"])
    }))

  it.effect("a withdrawn registration is not sent, nor one whose scope closed; one still standing is", () =>
    Effect.gen(function*() {
      const ready = yield* Deferred.make<void>()
      const handler = () =>
        Effect.gen(function*() {
          const withdraw = yield* AcpSurface.onCancel([kill])
          yield* withdraw
          yield* Effect.scoped(AcpSurface.onCancel([output]))
          yield* AcpSurface.onCancel([release])
          yield* Deferred.succeed(ready, undefined)
          return yield* Effect.never
        }).pipe(Effect.scoped, Effect.orDie)
      const editor = yield* editorFor(handler, { script: terminalScript() })
      yield* promptThenCancel(editor, ready)
      yield* editor.waitFor(isRequest("terminal/release"))
      yield* settle
      assert.deepStrictEqual(yield* methodsOf(editor), ["terminal/release"])
    }))

  it.effect("a registration is checked when made: one naming a method the editor did not advertise is refused", () =>
    Effect.gen(function*() {
      const refused = yield* Deferred.make<AcpError.RequestError | AcpError.NoSurface>()
      const handler = () =>
        Effect.flip(AcpSurface.onCancel([kill])).pipe(
          Effect.flatMap((error) => Deferred.succeed(refused, error)),
          Effect.scoped,
          Effect.asVoid
        )
      const editor = yield* editorFor(handler, {
        script: { "fs/read_text_file": ScriptedEditor.answer({ content: "" }) }
      })
      yield* editor.prompt(yield* editor.newSession(), "go")
      const error = yield* Deferred.await(refused)
      assert.strictEqual(error.message, "the editor did not advertise terminal, so terminal/kill was not sent")
    }))

  it.effect("after the cancel there is no grace: a registration made then is refused as Cancelled", () =>
    Effect.gen(function*() {
      const ready = yield* Deferred.make<void>()
      const late = yield* Deferred.make<string>()
      const handler = () =>
        Effect.gen(function*() {
          const surface = yield* AcpSurface.AcpSurface
          // A fiber that outlives the turn registers only once the turn has been cancelled.
          yield* Effect.forkDetach(
            Effect.gen(function*() {
              yield* Effect.sleep("1 second")
              const error = yield* Effect.flip(Effect.scoped(surface.onCancel([kill])))
              yield* Deferred.succeed(late, error._tag)
            })
          )
          yield* Deferred.succeed(ready, undefined)
          return yield* Effect.never
        })
      const editor = yield* editorFor(handler, { script: terminalScript() })
      yield* promptThenCancel(editor, ready)
      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* Deferred.await(late), "Cancelled")
      yield* settle
      assert.deepStrictEqual(yield* methodsOf(editor), [])
    }))

  it.effect("a new prompt on a busy session cancels the turn before it, whose cleanup is sent", () =>
    Effect.gen(function*() {
      const ready = yield* Deferred.make<void>()
      const handler = (request: Acp.PromptRequest) =>
        request.prompt[0]?.type === "text" && request.prompt[0].text === "second" ? Effect.void
          : registering(ready, [kill])()
      const editor = yield* editorFor(handler, { script: terminalScript() })
      const session = yield* editor.newSession()
      const first = yield* Effect.forkChild(editor.prompt(session, "first"))
      yield* Deferred.await(ready)
      assert.strictEqual((yield* editor.prompt(session, "second")).stopReason, "end_turn")
      assert.strictEqual((yield* Fiber.join(first)).stopReason, "cancelled")
      yield* editor.waitFor(isRequest("terminal/kill"))
    }))
})
