// Every way a call to the editor can fail has its own tagged error, raised where the issue says.
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Schedule } from "effect"
import { TestClock } from "effect/testing"
import { AcpChecks, AcpError, AcpSurface, ScriptedEditor } from "effect-surface/acp"
import { editorFor, isCancelRequest, isRequest, methodsOf, settle } from "./harness.ts"

// A handler that runs `body` and hands its outcome to the test, whatever it is.
const reporting = <A, E>(body: Effect.Effect<A, E, AcpSurface.AcpSurface>) =>
  Effect.gen(function*() {
    const outcome = yield* Deferred.make<Effect.Effect<A, E>>()
    const handler = () =>
      Effect.asVoid(
        Effect.flatMap(Effect.result(body), (result) => Deferred.succeed(outcome, Effect.fromResult(result)))
      )
    return { handler, outcome: Effect.flatten(Deferred.await(outcome)) }
  })

describe("AcpSurface errors", () => {
  it.effect("NotAdvertised: a method the editor did not advertise is refused before it is sent", () =>
    Effect.gen(function*() {
      const { handler, outcome } = yield* reporting(AcpSurface.request("terminal/create", { command: "ls" }))
      const editor = yield* editorFor(handler, {
        capabilities: { fs: { readTextFile: true, writeTextFile: false }, terminal: false },
        script: { "terminal/create": ScriptedEditor.answer({ terminalId: "t1" }) }
      })
      yield* editor.prompt(yield* editor.newSession(), "go")
      const error = yield* Effect.flip(outcome)
      assert.strictEqual(error._tag, "NotAdvertised")
      assert.deepStrictEqual([error.method, error._tag === "NotAdvertised" ? error.capability : ""], [
        "terminal/create",
        "terminal"
      ])
      assert.deepStrictEqual(yield* methodsOf(editor), [])
    }))

  it.effect("NotAdvertised: elicitation is checked against the mode it asks for", () =>
    Effect.gen(function*() {
      const { handler, outcome } = yield* reporting(AcpSurface.request("elicitation/create", {
        mode: "url",
        message: "sign in",
        elicitationId: "e1",
        url: "https://example.com"
      }))
      const editor = yield* editorFor(handler, {
        capabilities: { elicitation: { form: {} } },
        script: { "elicitation/create": ScriptedEditor.answer({ action: "accept" }) }
      })
      yield* editor.prompt(yield* editor.newSession(), "go")
      const error = yield* Effect.flip(outcome)
      assert.strictEqual(
        error.message,
        "the editor did not advertise elicitation.url, so elicitation/create was not sent"
      )
    }))

  it.effect("Disconnected: a call outstanding when the editor goes away settles at once, and a later call is never sent", () =>
    Effect.gen(function*() {
      const later = yield* Deferred.make<AcpError.RequestError | AcpError.NoSurface | "answered">()
      const body = Effect.gen(function*() {
        const first = yield* Effect.flip(AcpSurface.request("fs/read_text_file", { path: "/a" }))
        const second = yield* AcpSurface.request("fs/read_text_file", { path: "/b" }).pipe(
          Effect.as("answered" as const),
          Effect.catch(Effect.succeed)
        )
        yield* Deferred.succeed(later, second)
        return first
      })
      const { handler, outcome } = yield* reporting(body)
      const editor = yield* editorFor(handler, { script: { "fs/read_text_file": ScriptedEditor.drop } })
      const session = yield* editor.newSession()
      yield* Effect.forkChild(editor.prompt(session, "go"))
      const first = yield* outcome
      assert.strictEqual(first._tag, "Disconnected")
      assert.isTrue(first._tag === "Disconnected" && first.sent)
      const second = yield* Deferred.await(later)
      assert.isTrue(second !== "answered" && second._tag === "Disconnected" && !second.sent)
      assert.deepStrictEqual(
        (yield* editor.requests("fs/read_text_file")).map((r) => (r.params as { path: string }).path),
        ["/a"]
      )
    }))

  it.effect("Disconnected is told apart from a refusal: an editor that hangs and then drops is not an answer", () =>
    Effect.gen(function*() {
      const { handler, outcome } = yield* reporting(AcpSurface.request("fs/read_text_file", { path: "/a" }))
      const editor = yield* editorFor(handler, { script: { "fs/read_text_file": ScriptedEditor.hang } })
      yield* Effect.forkChild(editor.prompt(yield* editor.newSession(), "go"))
      yield* editor.waitFor(isRequest("fs/read_text_file"))
      yield* editor.drop
      const error = yield* Effect.flip(outcome)
      assert.strictEqual(error._tag, "Disconnected")
    }))

  it.effect("Cancelled: an outstanding call is cancelled at the editor without waiting, and a later call is refused unsent", () =>
    Effect.gen(function*() {
      const results = yield* Deferred.make<ReadonlyArray<AcpError.RequestError | AcpError.NoSurface>>()
      const started = yield* Deferred.make<void>()
      // Work the turn started keeps running after the stop (here, a fiber of its own).
      const handler = () =>
        Effect.gen(function*() {
          const work = Effect.gen(function*() {
            const first = yield* Effect.flip(AcpSurface.request("terminal/wait_for_exit", { terminalId: "t1" }))
            const second = yield* Effect.flip(AcpSurface.request("terminal/output", { terminalId: "t1" }))
            yield* Deferred.succeed(results, [first, second])
          })
          yield* Effect.forkDetach(work)
          yield* Deferred.succeed(started, undefined)
          return yield* Effect.never
        })
      const editor = yield* editorFor(handler, {
        script: {
          "terminal/wait_for_exit": ScriptedEditor.hang,
          "terminal/output": ScriptedEditor.answer({ output: "", truncated: false })
        }
      })
      const session = yield* editor.newSession()
      const prompt = yield* Effect.forkChild(editor.prompt(session, "go"))
      yield* editor.waitFor(isRequest("terminal/wait_for_exit"))
      yield* editor.cancel(session)
      assert.strictEqual((yield* Fiber.join(prompt)).stopReason, "cancelled")
      const [first, second] = yield* Deferred.await(results)
      assert.deepStrictEqual([first?._tag, first?._tag === "Cancelled" && first.sent], ["Cancelled", true])
      assert.deepStrictEqual([second?._tag, second?._tag === "Cancelled" && second.sent], ["Cancelled", false])
      yield* editor.waitFor(isCancelRequest)
      assert.deepStrictEqual(yield* methodsOf(editor), ["terminal/wait_for_exit"])
    }))

  it.effect("Cancelled is decided when a call runs, not when it was built: calls made through the service before the cancel are refused unsent after it", () =>
    Effect.gen(function*() {
      const released = yield* Deferred.make<ReadonlyArray<string>>()
      const polled = yield* Deferred.make<AcpError.RequestError>()
      const answeredOnce = yield* Deferred.make<void>()
      const handler = () =>
        Effect.gen(function*() {
          const surface = yield* AcpSurface.AcpSurface
          // Built while the turn runs; run after the stop, by a finalizer and by a repeat that outlives the turn.
          const release = surface.request("terminal/release", { terminalId: "t1" })
          const tell = surface.notify({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "bye" } })
          const poll = surface.request("terminal/output", { terminalId: "t1" })
          yield* Effect.forkDetach(
            poll.pipe(
              Effect.andThen(Deferred.succeed(answeredOnce, undefined)),
              Effect.repeat(Schedule.spaced("1 second")),
              Effect.flip,
              Effect.flatMap((error) => Deferred.succeed(polled, error))
            )
          )
          const outcomes = Effect.all([Effect.flip(release), Effect.flip(tell)]).pipe(
            Effect.map((errors) => errors.map((error) => `${error._tag} sent=${"sent" in error && error.sent}`)),
            Effect.catch(() => Effect.succeed(["reached the editor"])),
            Effect.flatMap((outcome) => Deferred.succeed(released, outcome))
          )
          return yield* Effect.never.pipe(Effect.ensuring(outcomes))
        })
      const editor = yield* editorFor(handler, {
        script: {
          "terminal/release": ScriptedEditor.answer({}),
          "terminal/output": ScriptedEditor.answer({ output: "", truncated: false })
        }
      })
      const session = yield* editor.newSession()
      const prompt = yield* Effect.forkChild(editor.prompt(session, "go"))
      yield* Deferred.await(answeredOnce)
      yield* editor.cancel(session)
      assert.strictEqual((yield* Fiber.join(prompt)).stopReason, "cancelled")
      yield* TestClock.adjust("3 seconds")
      yield* settle
      assert.deepStrictEqual(yield* methodsOf(editor), ["terminal/output"])
      assert.deepStrictEqual(yield* editor.updates, [])
      assert.deepStrictEqual(yield* Deferred.await(released), ["Cancelled sent=false", "Cancelled sent=false"])
      const error = yield* Deferred.await(polled)
      assert.deepStrictEqual([error._tag, error._tag === "Cancelled" && error.sent], ["Cancelled", false])
    }))

  it.effect("interrupting the caller cancels its call at the editor and stops waiting for it", () =>
    Effect.gen(function*() {
      const { handler, outcome } = yield* reporting(
        AcpSurface.request("fs/read_text_file", { path: "/slow" }).pipe(Effect.timeoutOption("1 second"))
      )
      const editor = yield* editorFor(handler, { script: { "fs/read_text_file": ScriptedEditor.hang } })
      yield* Effect.forkChild(editor.prompt(yield* editor.newSession(), "go"))
      yield* editor.waitFor(isRequest("fs/read_text_file"))
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* outcome)._tag, "None")
      const cancel = yield* editor.waitFor(isCancelRequest)
      assert.deepStrictEqual("params" in cancel ? cancel.params : undefined, { requestId: 0 })
    }))

  it.effect("Refused: the editor's JSON-RPC error arrives with its code, reason and data", () =>
    Effect.gen(function*() {
      const { handler, outcome } = yield* reporting(
        AcpSurface.request("fs/write_text_file", { path: "/a", content: "x" })
      )
      const editor = yield* editorFor(handler, {
        script: { "fs/write_text_file": ScriptedEditor.refuse("read-only file", -32000, { path: "/a" }) }
      })
      yield* editor.prompt(yield* editor.newSession(), "go")
      const error = yield* Effect.flip(outcome)
      assert.strictEqual(error._tag, "Refused")
      if (error._tag !== "Refused") return
      assert.deepStrictEqual([error.code, error.reason, error.data], [-32000, "read-only file", { path: "/a" }])
      assert.strictEqual(error.message, "the editor refused fs/write_text_file: read-only file (code -32000)")
    }))

  it.effect("MalformedAnswer: an answer that fails the schema never reaches the turn, and names what is wrong", () =>
    Effect.gen(function*() {
      const { handler, outcome } = yield* reporting(AcpSurface.request("fs/read_text_file", { path: "/a" }))
      const editor = yield* editorFor(handler, {
        script: { "fs/read_text_file": ScriptedEditor.malformed({ content: 42 }) }
      })
      yield* editor.prompt(yield* editor.newSession(), "go")
      const error = yield* Effect.flip(outcome)
      assert.strictEqual(error._tag, "MalformedAnswer")
      if (error._tag !== "MalformedAnswer") return
      assert.deepStrictEqual(error.issues, [{ path: ["content"], message: "expected a string, got 42" }])
      assert.strictEqual(
        error.message,
        "the editor's answer to fs/read_text_file does not fit the protocol: value at \"content\": expected a string, got 42"
      )
    }))

  it.effect("InvalidUpdate: an update that fails the schema is never sent", () =>
    Effect.gen(function*() {
      const { handler, outcome } = yield* reporting(
        AcpSurface.notify({ sessionUpdate: "agent_message_chunk", content: { type: "text" } } as never)
      )
      const editor = yield* editorFor(handler)
      yield* editor.prompt(yield* editor.newSession(), "go")
      const error = yield* Effect.flip(outcome)
      assert.strictEqual(error._tag, "InvalidUpdate")
      if (error._tag !== "InvalidUpdate") return
      assert.deepStrictEqual(error.issues, [{ path: ["update", "content", "text"], message: "missing required field" }])
      yield* settle
      assert.deepStrictEqual(yield* editor.updates, [])
    }))

  it.effect("NotAdvertised: an update the protocol gates on a capability is not sent to an editor without it", () =>
    Effect.gen(function*() {
      const { handler, outcome } = yield* reporting(
        AcpSurface.notify({ sessionUpdate: "notice", notice: { message: "heads up" } } as never)
      )
      const editor = yield* editorFor(handler)
      yield* editor.prompt(yield* editor.newSession(), "go")
      const error = yield* Effect.flip(outcome)
      assert.strictEqual(
        error.message,
        "the editor did not advertise session.notices, so session/update (notice) was not sent"
      )
    }))

  it.effect("SchemaMissing: a method the installed schema cannot check is refused before the editor is asked", () =>
    Effect.gen(function*() {
      const shipped = AcpChecks.shippedSchema() as { readonly $defs: Record<string, unknown> }
      const { ReadTextFileResponse: _dropped, ...defs } = shipped.$defs
      const { handler, outcome } = yield* reporting(AcpSurface.request("fs/read_text_file", { path: "/a" }))
      const editor = yield* editorFor(handler, {
        script: { "fs/read_text_file": ScriptedEditor.answer({ content: "x" }) }
      }, { schema: { ...shipped, $defs: defs } })
      yield* editor.prompt(yield* editor.newSession(), "go")
      const error = yield* Effect.flip(outcome)
      assert.strictEqual(error._tag, "SchemaMissing")
      assert.strictEqual(
        error.message,
        "the installed ACP SDK schema cannot check answers to fs/read_text_file (it has no answer schema for this method), so it was not sent"
      )
      assert.deepStrictEqual(yield* methodsOf(editor), [])
    }))

  it.effect("SchemaMissing: an answer schema the decoder cannot read is a configuration error, not the editor's", () =>
    Effect.gen(function*() {
      const shipped = AcpChecks.shippedSchema() as { readonly $defs: Record<string, unknown> }
      const broken = {
        ...shipped,
        $defs: {
          ...shipped.$defs,
          ReadTextFileResponse: { type: "object", required: 7, "x-side": "client", "x-method": "fs/read_text_file" }
        }
      }
      const checks = AcpChecks.make(broken)
      const error = checks.missing("fs/read_text_file")
      assert.strictEqual(error?._tag, "SchemaMissing")
      assert.include(error?.reason, "must be an array of strings")
    }))

  it.effect("NoSurface: asking without a turn fails with a tagged error, and `has` says so first", () =>
    Effect.gen(function*() {
      assert.isFalse(yield* AcpSurface.has)
      const error = yield* Effect.flip(AcpSurface.request("fs/read_text_file", { path: "/a" }))
      assert.strictEqual(error._tag, "NoSurface")
      assert.strictEqual(
        (yield* Effect.flip(
          AcpSurface.notify({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } })
        ))._tag,
        "NoSurface"
      )
    }))
})
