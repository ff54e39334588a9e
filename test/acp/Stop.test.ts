// A graceful stop of the agent (its connection's scope closing, or `close`): running turns are
// interrupted and unwind while the editor is still connected, so what their finalizers send reaches
// it, each prompt is answered, and only then does the connection close — waiting 10 seconds at most.
import * as Acp from "@agentclientprotocol/sdk"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { AcpAgent, AcpChecks, AcpSurface, ScriptedEditor } from "effect-surface/acp"
import { captureLogs, settle } from "./harness.ts"

const script: ScriptedEditor.Script = {
  "terminal/create": ScriptedEditor.answer({ terminalId: "t1" }),
  "terminal/release": ScriptedEditor.answer({})
}

// The agent's connection and the editor on scopes of their own order: the test stops the agent
// while the editor stays.
const served = <E, R>(handler: AcpAgent.Handler<E, R>) =>
  Effect.gen(function*() {
    const toEditor = new TransformStream<Uint8Array, Uint8Array>()
    const toAgent = new TransformStream<Uint8Array, Uint8Array>()
    const agent = yield* AcpAgent.make(handler).pipe(Effect.provide(AcpChecks.layer))
    const connection = yield* agent.connect(Acp.ndJsonStream(toEditor.writable, toAgent.readable))
    const editor = yield* ScriptedEditor.connect(Acp.ndJsonStream(toAgent.writable, toEditor.readable), { script })
    return { connection, editor }
  })

// A turn that creates a terminal, says so, and runs until stopped, releasing the terminal on its way
// out (after `unwinding`): what the release answered goes to `released`.
const holding = (
  started: Deferred.Deferred<void>,
  released: Deferred.Deferred<string>,
  unwinding: Effect.Effect<void> = Effect.void
) =>
() =>
  Effect.gen(function*() {
    const { terminalId } = yield* AcpSurface.request("terminal/create", { command: "sleep", args: ["100"] })
    const release = unwinding.pipe(
      Effect.andThen(AcpSurface.request("terminal/release", { terminalId })),
      Effect.as("released"),
      Effect.catch((error) => Effect.succeed(error._tag)),
      Effect.flatMap((outcome) => Deferred.succeed(released, outcome))
    )
    yield* Deferred.succeed(started, undefined)
    return yield* Effect.never.pipe(Effect.ensuring(release))
  }).pipe(Effect.orDie)

describe("AcpAgent: a graceful stop", () => {
  it.effect("lets a running turn unwind while the editor is still connected: its ensuring(terminal/release) reaches the editor, and its prompt is answered", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const released = yield* Deferred.make<string>()
      const { connection, editor } = yield* served(holding(started, released))
      const prompt = yield* Effect.forkChild(editor.prompt(yield* editor.newSession(), "go"))
      yield* Deferred.await(started)
      yield* connection.close
      // Done by the time the stop is: the release was answered before the connection closed.
      assert.isTrue(yield* Deferred.isDone(released))
      assert.strictEqual(yield* Deferred.await(released), "released")
      assert.deepStrictEqual((yield* editor.requests()).map((r) => r.method), ["terminal/create", "terminal/release"])
      const answer = yield* Fiber.await(prompt)
      assert.isTrue(Exit.isFailure(answer))
      assert.include(String(Exit.isFailure(answer) ? answer.cause : ""), "the agent stopped before the turn ended")
    }))

  it.effect("waits 10 seconds at most: a turn still unwinding then is logged, and finds the connection closed", () =>
    Effect.gen(function*() {
      const logs = captureLogs()
      const released = yield* Deferred.make<string>()
      yield* Effect.gen(function*() {
        const started = yield* Deferred.make<void>()
        const { connection, editor } = yield* served(holding(started, released, Effect.sleep("1 minute")))
        yield* Effect.forkChild(editor.prompt(yield* editor.newSession(), "go"))
        yield* Deferred.await(started)
        const stopping = yield* Effect.forkChild(connection.close)
        yield* settle
        yield* TestClock.adjust("9 seconds")
        yield* settle
        assert.deepStrictEqual(logs.lines, [])
        yield* TestClock.adjust("1 second")
        yield* settle
        assert.deepStrictEqual(logs.lines, [
          "Warn ACP agent stopping: 1 turn(s) still unwinding, 1 prompt(s) unanswered after 10s; closing the connection"
        ])
        yield* TestClock.adjust("50 seconds")
        yield* Fiber.join(stopping)
      }).pipe(Effect.provide(logs.layer))
      assert.strictEqual(yield* Deferred.await(released), "Disconnected")
    }))
})
