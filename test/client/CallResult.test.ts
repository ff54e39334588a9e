// The one result adapter reads every answer the way the tool-result schema does: whatever a server
// sends, it is a result exactly when the schema accepts it (the usual answer is recognised without
// the decoder, and must agree with it), an `isError` result fails with the server's text, and
// anything else is a protocol error saying what was wrong.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result, Schema } from "effect"
import { McpCallResult } from "effect-surface/client"

// What a tool result is, as the MCP schema has it: the specification this test holds the adapter to.
const Spec = Schema.Struct({
  content: Schema.optionalKey(
    Schema.Array(
      Schema.StructWithRest(Schema.Struct({ type: Schema.String }), [Schema.Record(Schema.String, Schema.Unknown)])
    )
  ),
  structuredContent: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  isError: Schema.optionalKey(Schema.Boolean)
})
const spec = Schema.decodeUnknownResult(Spec)
const call = { name: "s__t", server: "s", tool: "t" }

const agrees = (raw: unknown) =>
  Effect.gen(function*() {
    const expected = spec(raw)
    const got = yield* Effect.result(McpCallResult.adapt(raw, call))
    if (Result.isFailure(expected)) {
      assert.isTrue(Result.isFailure(got) && got.failure._tag === "McpProtocolError", JSON.stringify(raw))
      return
    }
    const answer = expected.success
    if (answer.isError === true) {
      assert.isTrue(Result.isFailure(got) && got.failure._tag === "McpToolError", JSON.stringify(raw))
      return
    }
    assert.isTrue(Result.isSuccess(got), JSON.stringify(raw))
    if (Result.isSuccess(got)) {
      assert.deepStrictEqual(got.success.content, answer.content ?? [])
      assert.deepStrictEqual(got.success.structuredContent, answer.structuredContent)
    }
  })

describe("the result adapter", () => {
  it.effect.prop(
    "any JSON value is a result exactly when the tool-result schema accepts it",
    { raw: Schema.Json },
    ({ raw }) => agrees(raw)
  )

  it.effect.prop(
    "any value shaped like a tool result is read as the schema reads it",
    { raw: Spec },
    ({ raw }) => agrees(raw)
  )

  // Every slot of a result filled with any JSON: mostly near misses, each on one side of the line.
  const NearMiss = Schema.Struct({
    content: Schema.optionalKey(Schema.Array(Schema.Union([Schema.Json, Schema.Struct({ type: Schema.Json })]))),
    structuredContent: Schema.optionalKey(Schema.Json),
    isError: Schema.optionalKey(Schema.Json)
  })
  it.effect.prop(
    "a value with any JSON in a result's slots is read as the schema reads it",
    { raw: NearMiss },
    ({ raw }) => agrees(raw)
  )

  it.effect("edge cases: a key present but undefined, arrays for objects, a block without a type, a class instance", () =>
    Effect.forEach(
      [
        { content: undefined },
        { content: [{ type: "text", text: "a" }], structuredContent: [1, 2] },
        { content: [{ text: "no type" }] },
        { content: [{ type: 3 }] },
        { isError: "yes", content: [] },
        { content: [{ type: "text", text: "x" }], structuredContent: Object.create(null) },
        new (class Answer {
          content = [{ type: "text", text: "from a class" }]
        })(),
        [],
        null,
        "text"
      ],
      agrees,
      { discard: true }
    ))
})
