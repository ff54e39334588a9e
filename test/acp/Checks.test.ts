// The answer checks built from the SDK's shipped schema: strict where the SDK is strict, lenient
// exactly where its own parser is, and what the SDK would drop is dropped, so the value a turn sees
// is the one its types describe. Also the compile-time rule that a turn never names a session.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import { SchemaBridge } from "effect-surface"
import { AcpChecks, type AcpProtocol, AcpSurface } from "effect-surface/acp"

const shipped = AcpChecks.shippedSchema() as {
  readonly $defs: Readonly<Record<string, { readonly "x-side"?: string; readonly "x-method"?: string }>>
}
const checks = AcpChecks.make(shipped)

// The oracle: the raw (unloosened) definition, checked strictly by the core decoder.
const strictly = (name: string) =>
  Result.getOrThrow(SchemaBridge.compileJsonSchema({ $defs: shipped.$defs, $ref: `#/$defs/${name}` }))

const answers = Object.entries(shipped.$defs).flatMap(([name, def]) =>
  def["x-side"] === "client" && name.endsWith("Response") && typeof def["x-method"] === "string"
    ? [[def["x-method"], name] as const] : []
)

describe("AcpChecks", () => {
  it("every client method the SDK types has an answer check built from the shipped schema", () => {
    const methods: ReadonlyArray<AcpProtocol.Method> = [
      "fs/read_text_file",
      "fs/write_text_file",
      "session/request_permission",
      "terminal/create",
      "terminal/output",
      "terminal/wait_for_exit",
      "terminal/kill",
      "terminal/release",
      "elicitation/create"
    ]
    assert.deepStrictEqual(methods.map((m) => checks.missing(m)), methods.map(() => undefined))
    assert.deepStrictEqual(answers.map(([m]) => m).sort(), [...methods].sort())
  })

  it.effect("`_meta` is never checked: whatever it holds, a valid answer is accepted and the malformed `_meta` dropped", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* checks.answer("fs/read_text_file", { content: "x", _meta: 42 }), { content: "x" })
      assert.deepStrictEqual(yield* checks.answer("fs/read_text_file", { content: "x", _meta: { trace: 1 } }), {
        content: "x",
        _meta: { trace: 1 }
      })
    }))

  it.effect("a field the SDK defaults on error is accepted whatever it holds, and dropped as the SDK drops it", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* checks.answer("terminal/wait_for_exit", { exitCode: "0", signal: 9 }), {})
      assert.deepStrictEqual(
        yield* checks.answer("terminal/output", {
          output: "ok",
          truncated: false,
          exitStatus: { exitCode: -1, signal: "TERM" }
        }),
        { output: "ok", truncated: false, exitStatus: { signal: "TERM" } }
      )
      assert.deepStrictEqual(
        yield* checks.answer("terminal/output", { output: "ok", truncated: false, exitStatus: "done" }),
        { output: "ok", truncated: false }
      )
    }))

  it.effect("a required field is still required, even where its value is forgiven", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(checks.answer("terminal/output", { output: "ok" }))
      assert.deepStrictEqual(error._tag === "MalformedAnswer" ? error.issues : [], [{
        path: ["truncated"],
        message: "missing required field"
      }])
    }))

  it.effect("elicitation answers are checked too, their custom actions included (the `not` clause the importer cannot read)", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* checks.answer("elicitation/create", { action: "_vendor", extra: 1 }), {
        action: "_vendor",
        extra: 1
      })
      assert.strictEqual(
        (yield* Effect.flip(checks.answer("elicitation/create", { action: 3 })))._tag,
        "MalformedAnswer"
      )
    }))

  it.effect("an outgoing update is checked, its gated leniencies included", () =>
    Effect.gen(function*() {
      // The SDK reads an unknown kind, or plan entries that do not parse, as their defaults.
      yield* checks.update({
        sessionId: "s",
        update: { sessionUpdate: "tool_call", toolCallId: "t", title: "x", kind: "nonsense" }
      })
      yield* checks.update({ sessionId: "s", update: { sessionUpdate: "plan", entries: 3 } })
      const error = yield* Effect.flip(
        checks.update({ sessionId: "s", update: { sessionUpdate: "tool_call", title: "x" } })
      )
      assert.deepStrictEqual(error._tag === "InvalidUpdate" ? error.issues : [], [{
        path: ["update", "toolCallId"],
        message: "missing required field"
      }])
    }))

  it.effect.prop(
    "for any JSON a method can be answered with, the check never fails otherwise than MalformedAnswer, and what it accepts fits the strict schema",
    { value: Schema.Json },
    ({ value }) =>
      Effect.gen(function*() {
        for (const [method, name] of answers) {
          const result = yield* Effect.result(checks.answer(method, value))
          if (Result.isFailure(result)) {
            assert.strictEqual(result.failure._tag, "MalformedAnswer")
            continue
          }
          assert.isTrue(
            Result.isSuccess(yield* Effect.result(strictly(name)(result.success))),
            `${method}: ${JSON.stringify(result.success)}`
          )
        }
      }),
    { arbitrary: { runs: 200 } }
  )

  it.effect.prop(
    "a valid read answer with any `_meta` and any extra fields is accepted, and its content kept",
    { meta: Schema.Json, extra: Schema.Record(Schema.String, Schema.Json) },
    ({ extra, meta }) =>
      Effect.gen(function*() {
        const answer = yield* checks.answer("fs/read_text_file", { ...extra, content: "kept", _meta: meta })
        assert.strictEqual((answer as { content: string }).content, "kept")
        const kept = (answer as { _meta?: unknown })._meta
        assert.isTrue(kept === undefined || kept === null || (typeof kept === "object" && !Array.isArray(kept)))
      }),
    { arbitrary: { runs: 100 } }
  )

  it("params of a turn's call never name a session: the turn's is filled in", () => {
    const read = () => AcpSurface.request("fs/read_text_file", { path: "/a" })
    // @ts-expect-error a turn cannot address another conversation's editor
    const other = () => AcpSurface.request("fs/read_text_file", { path: "/a", sessionId: "someone-else" })
    // @ts-expect-error nor through a terminal
    const terminal = () => AcpSurface.request("terminal/create", { command: "ls", sessionId: "someone-else" })
    const elicit = { mode: "form", message: "m", requestedSchema: {}, requestId: 1 } as const
    // @ts-expect-error nor through an elicitation scoped to another request
    const scoped = () => AcpSurface.request("elicitation/create", elicit)
    const release = { method: "terminal/release", params: { terminalId: "t", sessionId: "x" } } as const
    // @ts-expect-error nor through a cleanup registration
    const cleanup = () => AcpSurface.onCancel([release])
    // @ts-expect-error a method the SDK never had does not compile
    const unknown = () => AcpSurface.request("fs/delete_file", { path: "/a" })
    assert.strictEqual([read, other, terminal, scoped, cleanup, unknown].length, 6)
  })
})
