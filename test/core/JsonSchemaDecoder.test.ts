import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as SchemaBridge from "../../src/core/SchemaBridge.ts"

const messageOf = <A, E extends { readonly message: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.message)

const Shape = Schema.Union([
  Schema.TaggedStruct("Circle", { radius: Schema.Finite }),
  Schema.TaggedStruct("Square", { side: Schema.Finite })
])

describe("SchemaBridge.fromJsonSchema", () => {
  const check = (schema: unknown, input: unknown) =>
    Effect.flatMap(SchemaBridge.fromJsonSchema(schema, { trustPatterns: true }), (decode) => decode(input))

  it.effect("reads back a schema the bridge emitted and names the wrong field", () =>
    Effect.gen(function*() {
      const emitted = SchemaBridge.inputSchema(
        Schema.Struct({ user: Schema.Struct({ age: Schema.Finite }), shape: Shape })
      )
      const decode = yield* SchemaBridge.fromJsonSchema(emitted)
      assert.strictEqual(
        yield* messageOf(decode({ user: { age: "x" }, shape: { _tag: "Square", side: true } })),
        `value at "user.age": expected a number, got "x"; value at "shape.side": expected a number, got true`
      )
      assert.strictEqual(
        yield* messageOf(decode({ user: { age: 1 }, shape: { _tag: "Hexagon" } })),
        `value at "shape._tag": expected "Circle" or "Square", got "Hexagon"`
      )
      const good = { user: { age: 1 }, shape: { _tag: "Circle", radius: 2 } }
      assert.strictEqual(yield* decode(good), good)
    }))

  it.effect("checks the common draft 2020-12 vocabulary, naming the field each time", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [unknown, unknown, unknown, string]> = [
        [{ type: ["string", "null"] }, null, 1, "value: expected a string or null, got 1"],
        [{ type: "string", nullable: true }, null, 1, "value: expected a string or null, got 1"],
        [{ type: "integer", minimum: 1, exclusiveMaximum: 5 }, 4, 5, "value: expected a number less than 5, got 5"],
        [
          { type: "string", minLength: 2, maxLength: 3, pattern: "^a" },
          "ab",
          "b",
          "value: expected between 2 and 3 characters, got \"b\"; value: expected a string matching /^a/, got \"b\""
        ],
        [{ type: "string", minLength: 2 }, "ab", "b", "value: expected at least 2 characters, got \"b\""],
        [{ minimum: 1, maximum: 5 }, 5, 6, "value: expected a number between 1 and 5, got 6"],
        [{ type: "string", pattern: "^a" }, "ab", "ba", "value: expected a string matching /^a/, got \"ba\""],
        [{ enum: ["a", "b"] }, "a", "c", "value: expected \"a\" or \"b\", got \"c\""],
        [{ const: { k: 1 } }, { k: 1 }, { k: 2 }, "value: expected {\"k\":1}, got {\"k\":2}"],
        [
          { type: "array", items: { type: "number" }, minItems: 1 },
          [1],
          [1, "x"],
          "value at \"[1]\": expected a number, got \"x\""
        ],
        [{ type: "array", maxItems: 1 }, [], [1, 2], "value: expected at most 1 item, got 2"],
        [{ minProperties: 2 }, { a: 1, b: 2 }, { a: 1 }, "value: expected at least 2 fields, got 1"],
        [
          { prefixItems: [{ type: "string" }], items: false },
          ["a"],
          ["a", 1],
          "value at \"[1]\": no value is allowed here, got 1"
        ],
        [
          { properties: { a: {} }, required: ["a"], additionalProperties: false },
          { a: 1 },
          { b: 1 },
          "value at \"a\": missing required field; value at \"b\": unexpected field"
        ],
        [
          { additionalProperties: { type: "string" } },
          { x: "s" },
          { x: 1 },
          "value at \"x\": expected a string, got 1"
        ],
        [
          { anyOf: [{ type: "string" }, { type: "number" }] },
          1,
          true,
          "value: expected a string or a number, got true"
        ],
        [
          { oneOf: [{ type: "number" }, { type: "integer" }] },
          1.5,
          1,
          "value: matches 2 alternatives where exactly one is allowed, got 1"
        ],
        [{ allOf: [{ minimum: 1 }, { maximum: 2 }] }, 2, 3, "value: expected a number at most 2, got 3"]
      ]
      for (const [schema, good, bad, message] of cases) {
        assert.deepStrictEqual(yield* check(schema, good), good, JSON.stringify(schema))
        assert.strictEqual(yield* messageOf(check(schema, bad)), message, JSON.stringify(schema))
      }
    }))

  it.effect("follows $ref into #/$defs and #/definitions, recursion included", () =>
    Effect.gen(function*() {
      const list = {
        $defs: {
          Node: {
            type: "object",
            properties: { v: { type: "integer" }, next: { anyOf: [{ $ref: "#/$defs/Node" }, { type: "null" }] } },
            required: ["v"]
          }
        },
        $ref: "#/$defs/Node"
      }
      assert.strictEqual(
        yield* messageOf(check(list, { v: 1, next: { v: 2, next: { v: "3", next: null } } })),
        `value at "next.next.v": expected an integer, got "3"`
      )
      const draft07 = { definitions: { Age: { type: "number" } }, properties: { age: { $ref: "#/definitions/Age" } } }
      assert.strictEqual(yield* messageOf(check(draft07, { age: "x" })), `value at "age": expected a number, got "x"`)
    }))

  it.effect("ignores keywords it does not know, and external references it does not fetch", () =>
    Effect.gen(function*() {
      const schema = {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "string",
        format: "email",
        contains: {},
        "x-vendor": 1
      }
      assert.strictEqual(yield* check(schema, "not an email"), "not an email")
      assert.strictEqual(yield* check({ $ref: "https://example.com/schema.json" }, 1), 1)
    }))

  it.effect("refuses a malformed schema with InvalidJsonSchema naming where it is wrong, and never throws", () =>
    Effect.gen(function*() {
      const refusal = (schema: unknown) =>
        Effect.map(
          Effect.flip(SchemaBridge.fromJsonSchema(schema, { trustPatterns: true })),
          (e) => `${e._tag} ${e.message}`
        )
      assert.strictEqual(
        yield* refusal(42),
        `InvalidJsonSchema JSON Schema at "#": a schema must be an object or a boolean, got 42`
      )
      assert.strictEqual(
        yield* refusal({ properties: { a: { type: 5 } } }),
        `InvalidJsonSchema JSON Schema at "#/properties/a/type": must be a type name or an array of them, got 5`
      )
      assert.strictEqual(
        yield* refusal({ required: "a" }),
        `InvalidJsonSchema JSON Schema at "#/required": must be an array of strings`
      )
      assert.strictEqual(
        yield* refusal({ pattern: "(" }),
        `InvalidJsonSchema JSON Schema at "#/pattern": "(" is not a valid regular expression`
      )
      assert.strictEqual(
        yield* refusal({ $ref: "#/$defs/Missing" }),
        `InvalidJsonSchema JSON Schema at "#/$ref": $ref "#/$defs/Missing" points at nothing`
      )
      assert.include(
        yield* refusal({ $defs: { A: { anyOf: [{ $ref: "#/$defs/A" }] } }, $ref: "#/$defs/A" }),
        "refers back to itself"
      )
      let deep: unknown = {}
      for (let i = 0; i < 10_000; i++) deep = { not: deep }
      assert.include(yield* refusal(deep), "nests deeper than")
      // A loop first reached through a child slips past the schema check; checking a value still ends.
      const sneaky = {
        $defs: {
          N: { properties: { q: { $ref: "#/$defs/M" } }, anyOf: [{ $ref: "#/$defs/M" }] },
          M: { anyOf: [{ $ref: "#/$defs/N" }] }
        },
        $ref: "#/$defs/N"
      }
      assert.strictEqual((yield* Effect.flip(check(sneaky, { q: 1 })))._tag, "InputError")
    }))

  it.effect("refuses a value nested past the bound instead of overflowing the stack", () =>
    Effect.gen(function*() {
      let deep: unknown = 1
      for (let i = 0; i < 20_000; i++) deep = [deep]
      const nested = {
        $defs: { D: { anyOf: [{ type: "number" }, { type: "array", items: { $ref: "#/$defs/D" } }] } },
        $ref: "#/$defs/D"
      }
      assert.include(yield* messageOf(check(nested, deep)), "nests deeper than 128 levels")
    }))

  it.effect("withoutValues says where and what was expected, and none of the values the message quotes", () =>
    Effect.gen(function*() {
      const secret = "SECRET-7f3a"
      const schema = {
        type: "object",
        properties: {
          kind: { enum: ["a", "b"] },
          word: { type: "string", pattern: "^acct-", maxLength: 8 },
          n: { type: "number", maximum: 3 },
          either: { oneOf: [{ type: "string" }, { type: "string", minLength: 1 }] },
          never: { not: { type: "string" } },
          typed: { type: "integer" }
        },
        additionalProperties: false
      }
      const decode = yield* SchemaBridge.fromJsonSchema(schema, { trustPatterns: true })
      const error = yield* Effect.flip(decode({
        kind: secret,
        word: `${secret}-and-more`,
        n: 7_654_321,
        either: secret,
        never: secret,
        typed: secret,
        [secret]: 1
      }))
      assert.include(error.message, secret)
      const without = SchemaBridge.withoutValues(error)
      assert.notInclude(without.replace(`value at "${secret}": unexpected field`, ""), secret)
      assert.notInclude(without, "7654321")
      assert.notInclude(without, "got")
      assert.include(without, `value at "word": expected a string matching /^acct-/`)
      assert.include(without, `value at "typed": expected an integer`)
    }))
})

describe("SchemaBridge.fromJsonSchema: reading a stranger's schema", () => {
  const check = (schema: unknown, input: unknown, options?: SchemaBridge.FromJsonSchemaOptions) =>
    Effect.flatMap(SchemaBridge.fromJsonSchema(schema, options), (decode) => decode(input))
  const refusal = (schema: unknown) =>
    Effect.map(Effect.flip(SchemaBridge.fromJsonSchema(schema)), (e) => `${e._tag} ${e.message}`)

  it.effect("checks multipleOf exactly on the decimals written: 0.3 is a multiple of 0.1 and 1.15 of 0.01, 0.35 is not", () =>
    Effect.gen(function*() {
      const multiples: ReadonlyArray<readonly [number, number]> = [
        [0.1, 0.3],
        [0.01, 1.15],
        [0.1, -0.7],
        [0.05, 19.95],
        [1e-7, 3e-7],
        [0.5, 1e21],
        [2, 0]
      ]
      for (const [step, value] of multiples)
        assert.strictEqual(yield* check({ multipleOf: step }, value), value, `${value} of ${step}`)
      assert.strictEqual(
        yield* messageOf(check({ multipleOf: 0.1 }, 0.35)),
        "value: expected a number that is a multiple of 0.1, got 0.35"
      )
      assert.strictEqual(
        yield* messageOf(check({ multipleOf: 3 }, 10)),
        "value: expected a number that is a multiple of 3, got 10"
      )
    }))

  it.effect("reads a type name only as a JSON Schema type: an inherited name such as constructor or toString is an InvalidJsonSchema naming it", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* refusal({ type: "constructor" }),
        `InvalidJsonSchema JSON Schema at "#/type": unknown type "constructor"`
      )
      assert.strictEqual(
        yield* refusal({ type: ["string", "toString"] }),
        `InvalidJsonSchema JSON Schema at "#/type": unknown type "toString"`
      )
      assert.strictEqual(
        yield* refusal({ anyOf: [{ type: "__proto__" }, { type: "string" }] }),
        `InvalidJsonSchema JSON Schema at "#/anyOf/0/type": unknown type "__proto__"`
      )
      // Names a schema gives its fields and definitions are its own, not Object.prototype's.
      const named = {
        $defs: { toString: { type: "string" } },
        properties: { constructor: { $ref: "#/$defs/toString" } },
        required: ["valueOf"]
      }
      assert.strictEqual(
        yield* messageOf(check(named, { constructor: 1 })),
        `value at "valueOf": missing required field; value at "constructor": expected a string, got 1`
      )
      assert.strictEqual(
        yield* refusal({ $ref: "#/$defs/constructor", $defs: {} }),
        `InvalidJsonSchema JSON Schema at "#/$ref": $ref "#/$defs/constructor" points at nothing`
      )
    }))

  it.effect("never runs a remote pattern unless told to trust it, so a catastrophic pattern cannot block the event loop", () =>
    Effect.gen(function*() {
      const evil = "^(a+)+$"
      const schema = {
        properties: { s: { type: "string", pattern: evil } },
        patternProperties: { [evil]: { type: "number" } },
        additionalProperties: false
      }
      const slow = `${"a".repeat(27)}!`
      const input = { s: slow, [slow]: "not a number" }
      // Run, either pattern would refuse this input (after exponential backtracking): it is accepted.
      assert.strictEqual(yield* check(schema, input), input)
      // Untrusted, a pattern is a keyword that checks nothing, so one JavaScript cannot read refuses nothing either.
      assert.strictEqual(yield* check({ pattern: "(?i)^a" }, "b"), "b")
    }))

  it.effect("with trustPatterns, checks pattern and patternProperties and refuses a pattern that is not a regular expression", () =>
    Effect.gen(function*() {
      const trusted = { trustPatterns: true }
      assert.strictEqual(
        yield* messageOf(check({ type: "string", pattern: "^a" }, "ba", trusted)),
        `value: expected a string matching /^a/, got "ba"`
      )
      const byName = { patternProperties: { "^n_": { type: "number" } }, additionalProperties: false }
      assert.strictEqual(
        yield* messageOf(check(byName, { n_a: "x", b: 1 }, trusted)),
        `value at "n_a": expected a number, got "x"; value at "b": unexpected field`
      )
      const refused = yield* Effect.flip(SchemaBridge.fromJsonSchema({ pattern: "(" }, trusted))
      assert.strictEqual(refused.message, `JSON Schema at "#/pattern": "(" is not a valid regular expression`)
    }))
})
