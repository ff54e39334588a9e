// A procedure's advertised output schema describes every structured answer the JSON codec can
// write — the `null` of an absent optional, the "NaN" of a number, a union of objects and scalars —
// so a validating client never refuses an answer the procedure was allowed to give.
import { assert, describe, it } from "@effect/vitest"
import { Ajv2020 } from "ajv/dist/2020.js"
import { Schema } from "effect"
import { outputSchema } from "../../src/core/internal/outputSchema.ts"
import * as ToolResult from "../../src/core/ToolResult.ts"

class Gone extends Schema.TaggedError<Gone>()("Gone", { id: Schema.String }) {}

const ajv = new Ajv2020({ strict: false })

const cases: ReadonlyArray<readonly [string, Schema.Codec<unknown, unknown>, ReadonlyArray<unknown>]> = [
  ["a number, NaN and infinities included", Schema.Number, [1.5, Number.NaN, Number.POSITIVE_INFINITY]],
  ["an optional field left undefined", Schema.Struct({ a: Schema.optional(Schema.Number) }), [{ a: undefined }, {}]],
  ["a date", Schema.Struct({ at: Schema.Date }), [{ at: new Date(0) }]],
  ["a union of an object and a string", Schema.Union([Schema.Struct({ n: Schema.Int }), Schema.String]), [
    { n: 1 },
    "x"
  ]],
  ["an array", Schema.Array(Schema.String), [[], ["a"]]],
  ["void", Schema.Void, [undefined]]
]

describe("outputSchema", () => {
  it("is an object schema whose every structured answer validates", () => {
    for (const [what, schema, values] of cases) {
      const declared = outputSchema(schema, undefined)
      assert.strictEqual(declared["type"], "object", what)
      const validate = ajv.compile(declared)
      for (const value of values) {
        const answer = ToolResult.ok(Schema.encodeUnknownSync(Schema.toCodecJson(schema))(value))
        assert.isTrue(
          validate(answer.structuredContent),
          `${what}: ${JSON.stringify(answer)} ${JSON.stringify(validate.errors)}`
        )
      }
    }
  })

  it("holds a declared failure's detail beside the output, and refuses what is neither", () => {
    const declared = outputSchema(Schema.Struct({ id: Schema.String }), Gone)
    const validate = ajv.compile(declared)
    assert.isTrue(validate({ id: "t1" }))
    assert.isTrue(validate(Schema.encodeUnknownSync(Schema.toCodecJson(Gone))(new Gone({ id: "t2" }))))
    assert.isFalse(validate({ value: 3 }))
    assert.isFalse(validate({ _tag: "Other" }))
  })

  it("a missing output answers nothing: null under value", () => {
    assert.deepStrictEqual(outputSchema(undefined, undefined), {
      type: "object",
      properties: { value: { type: "null" } },
      required: ["value"]
    })
  })
})
