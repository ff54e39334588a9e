import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import * as Json from "../../src/core/Json.ts"
import * as SchemaBridge from "../../src/core/SchemaBridge.ts"

interface Tree {
  readonly value: number
  readonly children: ReadonlyArray<Tree>
}
const Tree: Schema.Codec<Tree> = Schema.Struct({
  value: Schema.Finite,
  children: Schema.Array(Schema.suspend((): Schema.Codec<Tree> => Tree))
}).annotate({ identifier: "Tree" })

const Shape = Schema.Union([
  Schema.TaggedStruct("Circle", { radius: Schema.Finite }),
  Schema.TaggedStruct("Square", { side: Schema.Finite })
])

const Search = Schema.Struct({
  query: Schema.String.annotate({ description: "what to look for" }),
  limit: Schema.optionalKey(Schema.Int.annotate({ default: 10 })),
  note: Schema.optional(Schema.String)
}).annotate({ title: "Search", description: "Search the index" })

// The fixture: one representative schema per problem the bridge fixes. Changing what any of them
// emits must be a decision, so the JSON is compared byte for byte with the committed file.
const representative = {
  "struct with optionalKey, default and optional": Search,
  "Number": Schema.Number,
  "Finite": Schema.Finite,
  "Int": Schema.Int,
  "Date": Schema.Date,
  "Void": Schema.Void,
  "Struct({})": Schema.Struct({}),
  "union": Schema.Union([Schema.String, Schema.Finite]),
  "array": Schema.Array(Schema.String),
  "literal union": Schema.Literals(["low", "high"]),
  "recursive": Tree,
  "nested struct": Schema.Struct({ user: Schema.Struct({ name: Schema.String, age: Schema.Int }) }),
  "tagged union": Shape
}

const fixture = new URL("./fixtures/input-schemas.json", import.meta.url)

const isObject = (json: Json.Json | undefined): json is Json.JsonObject =>
  typeof json === "object" && json !== null && !Array.isArray(json)

/** Every object node in a JSON Schema, with the keyword path that leads to it. */
const nodes = (json: Json.Json, at = "#"): Array<readonly [string, Json.JsonObject]> => {
  if (Array.isArray(json)) return json.flatMap((item, i) => nodes(item, `${at}/${i}`))
  if (!isObject(json)) return []
  return [[at, json] as const, ...Object.entries(json).flatMap(([k, v]) => nodes(v, `${at}/${k}`))]
}

/** `json.a.b.c`, or undefined as soon as a step is not an object. */
const dig = (json: Json.Json | undefined, ...keys: ReadonlyArray<string>): Json.Json | undefined =>
  keys.reduce<Json.Json | undefined>((node, key) => isObject(node) ? node[key] : undefined, json)

const messageOf = <A, E extends { readonly message: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.message)

describe("SchemaBridge.inputSchema", () => {
  it("emits JSON Schema byte-for-byte equal to the committed fixture", () => {
    const actual = `${JSON.stringify(Object.fromEntries(Object.entries(representative).map(([name, schema]) => [name, SchemaBridge.inputSchema(schema)])), null, 2)}\n`
    // After reading a diff by eye and agreeing with it: WRITE_INPUT_SCHEMAS=1 npx vitest run <this file>
    if (process.env["WRITE_INPUT_SCHEMAS"] === "1") writeFileSync(fixture, actual)
    assert.strictEqual(actual, readFileSync(fixture, "utf8"))
  })

  it("reopens every object: no boolean additionalProperties survives, while a record keeps its value schema", () => {
    for (const schema of [...Object.values(representative), Schema.Struct({ shape: Shape, tree: Tree })]) {
      for (const [at, node] of nodes(SchemaBridge.inputSchema(schema))) {
        assert.notStrictEqual(typeof node["additionalProperties"], "boolean", at)
      }
    }
    assert.deepStrictEqual(SchemaBridge.inputSchema(Schema.Record(Schema.String, Schema.Finite)), {
      type: "object",
      additionalProperties: { type: "number" },
      properties: {}
    })
  })

  it("advertises Schema.Number as a plain number, keeping its bounds and description", () => {
    const schema = Schema.Struct({ n: Schema.Number.annotate({ description: "how many" }).check(Schema.isGreaterThan(0)) })
    assert.deepStrictEqual(SchemaBridge.inputSchema(schema).properties, {
      n: { type: "number", description: "how many", exclusiveMinimum: 0 }
    })
    assert.deepStrictEqual(SchemaBridge.inputSchema(Schema.Struct({ u: Schema.Union([Schema.String, Schema.Number]) })).properties, {
      u: { anyOf: [{ type: "string" }, { type: "number" }] }
    })
  })

  it("advertises Schema.Void, Schema.Undefined, Schema.Struct({}) and no schema as an empty object", () => {
    for (const schema of [Schema.Void, Schema.Undefined, Schema.Struct({}), undefined]) {
      assert.deepStrictEqual(SchemaBridge.inputSchema(schema), { type: "object", properties: {} })
    }
  })

  it("leaves optionalKey and optional fields out of required, and advertises null only where the schema accepts it", () => {
    const schema = Schema.Struct({
      a: Schema.String,
      b: Schema.optionalKey(Schema.String),
      c: Schema.optional(Schema.String),
      d: Schema.optional(Schema.NullOr(Schema.String))
    })
    const out = SchemaBridge.inputSchema(schema)
    assert.deepStrictEqual(out.required, ["a"])
    assert.deepStrictEqual(out.properties, {
      a: { type: "string" },
      b: { type: "string" },
      c: { type: "string" },
      d: { anyOf: [{ type: "string" }, { type: "null" }] }
    })
  })

  it("keeps a default declared on the encoded side inside optionalKey, and cannot see one behind withDecodingDefaultKey", () => {
    const out = SchemaBridge.inputSchema(Schema.Struct({
      inside: Schema.optionalKey(Schema.Finite.annotate({ default: 3 })),
      behind: Schema.Finite.pipe(Schema.withDecodingDefaultKey(Effect.succeed(3)))
    }))
    assert.deepStrictEqual(out.properties, { inside: { type: "number", default: 3 }, behind: { type: "number" } })
    assert.deepStrictEqual(out.required, undefined)
  })

  it("inlines every $ref, so no $ref or $defs is left for a host to follow", () => {
    const Named = Schema.Struct({ a: Schema.String }).annotate({ identifier: "Named" })
    class Person extends Schema.Class<Person>("Person")({ name: Schema.String }) {}
    const out = SchemaBridge.inputSchema(Schema.Struct({ x: Named, y: Named, p: Person, t: Tree }))
    const text = JSON.stringify(out)
    assert.notInclude(text, "$ref")
    assert.notInclude(text, "$defs")
    assert.deepStrictEqual(dig(out, "properties", "p"), { type: "object", properties: { name: { type: "string" } }, required: ["name"] })
  })

  it("bounds a recursive schema: inlined RECURSION_DEPTH times along a path, then an open {}", () => {
    let node: Json.Json | undefined = SchemaBridge.inputSchema(Tree)
    let levels = 0
    for (; dig(node, "properties") !== undefined; levels++) node = dig(node, "properties", "children", "items")
    assert.strictEqual(levels, SchemaBridge.RECURSION_DEPTH)
    assert.deepStrictEqual(node, {})
  })

  it("wraps a scalar, array or union input under a required value property", () => {
    const wrapped = (value: Json.Json) => ({ type: "object", properties: { value }, required: ["value"] })
    assert.deepStrictEqual(SchemaBridge.inputSchema(Schema.Finite), wrapped({ type: "number" }))
    assert.deepStrictEqual(SchemaBridge.inputSchema(Schema.Array(Schema.Int)), wrapped({ type: "array", items: { type: "integer" } }))
    assert.deepStrictEqual(SchemaBridge.inputSchema(Schema.NullOr(Schema.String)), wrapped({ anyOf: [{ type: "string" }, { type: "null" }] }))
    assert.strictEqual(SchemaBridge.compile(Shape).wrapped, true)
  })

  it("keeps top-level titles and descriptions, including a Class's, and writes no $schema", () => {
    class Person extends Schema.Class<Person>("Person")({ name: Schema.String }, { title: "Person", description: "someone" }) {}
    for (const schema of [Search, Person]) {
      const out = SchemaBridge.inputSchema(schema)
      assert.isString(out.title)
      assert.isString(out.description)
      assert.notProperty(out, "$schema")
    }
  })
})

describe("SchemaBridge.compile", () => {
  it.effect("decodes what the host sends with the JSON codec the document describes", () =>
    Effect.gen(function*() {
      const tool = SchemaBridge.compile(Schema.Struct({ at: Schema.Date, note: Schema.optional(Schema.String) }))
      const out = yield* tool.decode({ at: "1970-01-01T00:00:00.000Z", note: null })
      assert.strictEqual(out.at.getTime(), 0)
      assert.strictEqual(out.note, undefined)
    }))

  it.effect("unwraps { value } before decoding a wrapped input", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* SchemaBridge.decoder(Schema.Finite)({ value: 42 }), 42)
      assert.deepStrictEqual(yield* SchemaBridge.decoder(Shape)({ value: { _tag: "Circle", radius: 1 } }), { _tag: "Circle", radius: 1 })
    }))

  it.effect("names the path of every wrong field in the InputError message", () =>
    Effect.gen(function*() {
      const tool = SchemaBridge.compile(Schema.Struct({ user: Schema.Struct({ age: Schema.Finite, tags: Schema.Array(Schema.String) }) }))
      const error = yield* Effect.flip(tool.decode({ user: { age: "x", tags: ["a", 1] } }))
      assert.strictEqual(error._tag, "InputError")
      assert.strictEqual(error.message, `value at "user.age": expected a number, got "x"; value at "user.tags[1]": expected a string, got 1`)
      assert.deepStrictEqual(error.issues.map((i) => i.path), [["user", "age"], ["user", "tags", 1]])
      assert.strictEqual(yield* messageOf(SchemaBridge.decoder(Schema.Finite)({ value: "x" })), `value at "value": expected a number, got "x"`)
      assert.strictEqual(yield* messageOf(tool.decode({})), `value at "user": missing required field`)
    }))

  it.effect("refuses a wrapped input that is not an object with a value field", () =>
    Effect.gen(function*() {
      const decode = SchemaBridge.decoder(Schema.Finite)
      assert.strictEqual(yield* messageOf(decode(42)), `value: expected an object with a "value" field, got 42`)
      assert.strictEqual(yield* messageOf(decode({})), `value at "value": missing required field`)
    }))

  it.effect("treats omitted arguments as {}, and a tool without input ignores whatever arrives", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* SchemaBridge.decoder(Schema.Struct({ a: Schema.optionalKey(Schema.String) }))(undefined), {})
      assert.deepStrictEqual(yield* SchemaBridge.decoder(Schema.Struct({}))(undefined), {})
      assert.strictEqual(yield* SchemaBridge.decoder(Schema.Void)({ stray: 1 }), undefined)
      assert.strictEqual(yield* SchemaBridge.compile().decode({ stray: 1 }), undefined)
    }))

  it("compiles a schema value once: the same schema yields the same compiled tool", () => {
    assert.strictEqual(SchemaBridge.compile(Search), SchemaBridge.compile(Search))
  })

  it.effect("refuses input nested past the bound instead of overflowing the stack", () =>
    Effect.gen(function*() {
      let deep: unknown = { value: 1, children: [] }
      for (let i = 0; i < 20_000; i++) deep = { value: i, children: [deep] }
      assert.include(yield* messageOf(SchemaBridge.decoder(Tree)(deep)), "nests deeper than")
    }))
})

describe("SchemaBridge.fromJsonSchema", () => {
  const check = (schema: unknown, input: unknown) =>
    Effect.flatMap(SchemaBridge.fromJsonSchema(schema), (decode) => decode(input))

  it.effect("reads back a schema the bridge emitted and names the wrong field", () =>
    Effect.gen(function*() {
      const emitted = SchemaBridge.inputSchema(Schema.Struct({ user: Schema.Struct({ age: Schema.Finite }), shape: Shape }))
      const decode = yield* SchemaBridge.fromJsonSchema(emitted)
      assert.strictEqual(
        yield* messageOf(decode({ user: { age: "x" }, shape: { _tag: "Square", side: true } })),
        `value at "user.age": expected a number, got "x"; value at "shape.side": expected a number, got true`
      )
      assert.strictEqual(yield* messageOf(decode({ user: { age: 1 }, shape: { _tag: "Hexagon" } })), `value at "shape._tag": expected "Circle" or "Square", got "Hexagon"`)
      const good = { user: { age: 1 }, shape: { _tag: "Circle", radius: 2 } }
      assert.strictEqual(yield* decode(good), good)
    }))

  it.effect("checks the common draft 2020-12 vocabulary, naming the field each time", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [unknown, unknown, unknown, string]> = [
        [{ type: ["string", "null"] }, null, 1, "value: expected a string or null, got 1"],
        [{ type: "string", nullable: true }, null, 1, "value: expected a string or null, got 1"],
        [{ type: "integer", minimum: 1, exclusiveMaximum: 5 }, 4, 5, "value: expected a number less than 5, got 5"],
        [{ type: "string", minLength: 2, maxLength: 3, pattern: "^a" }, "ab", "b", "value: expected at least 2 characters, got \"b\"; value: expected a string matching /^a/, got \"b\""],
        [{ type: "string", pattern: "^a" }, "ab", "ba", "value: expected a string matching /^a/, got \"ba\""],
        [{ enum: ["a", "b"] }, "a", "c", "value: expected one of \"a\", \"b\", got \"c\""],
        [{ const: { k: 1 } }, { k: 1 }, { k: 2 }, "value: expected {\"k\":1}, got {\"k\":2}"],
        [{ type: "array", items: { type: "number" }, minItems: 1 }, [1], [1, "x"], "value at \"[1]\": expected a number, got \"x\""],
        [{ type: "array", maxItems: 1 }, [], [1, 2], "value: expected at most 1 items, got 2"],
        [{ prefixItems: [{ type: "string" }], items: false }, ["a"], ["a", 1], "value at \"[1]\": no value is allowed here, got 1"],
        [{ properties: { a: {} }, required: ["a"], additionalProperties: false }, { a: 1 }, { b: 1 }, "value at \"a\": missing required field; value at \"b\": unexpected field"],
        [{ additionalProperties: { type: "string" } }, { x: "s" }, { x: 1 }, "value at \"x\": expected a string, got 1"],
        [{ anyOf: [{ type: "string" }, { type: "number" }] }, 1, true, "value: expected a string or a number, got true"],
        [{ oneOf: [{ type: "number" }, { type: "integer" }] }, 1.5, 1, "value: matches 2 alternatives where exactly one is allowed, got 1"],
        [{ allOf: [{ minimum: 1 }, { maximum: 2 }] }, 2, 3, "value: expected a number at most 2, got 3"]
      ]
      for (const [schema, good, bad, message] of cases) {
        assert.deepStrictEqual(yield* check(schema, good), good, JSON.stringify(schema))
        assert.strictEqual(yield* messageOf(check(schema, bad)), message, JSON.stringify(schema))
      }
    }))

  it.effect("follows $ref into #/$defs and #/definitions, recursion included", () =>
    Effect.gen(function*() {
      const list = { $defs: { Node: { type: "object", properties: { v: { type: "integer" }, next: { anyOf: [{ $ref: "#/$defs/Node" }, { type: "null" }] } }, required: ["v"] } }, $ref: "#/$defs/Node" }
      assert.strictEqual(yield* messageOf(check(list, { v: 1, next: { v: 2, next: { v: "3", next: null } } })), `value at "next.next.v": expected an integer, got "3"`)
      const draft07 = { definitions: { Age: { type: "number" } }, properties: { age: { $ref: "#/definitions/Age" } } }
      assert.strictEqual(yield* messageOf(check(draft07, { age: "x" })), `value at "age": expected a number, got "x"`)
    }))

  it.effect("ignores keywords it does not know, and external references it does not fetch", () =>
    Effect.gen(function*() {
      const schema = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "string", format: "email", contains: {}, "x-vendor": 1 }
      assert.strictEqual(yield* check(schema, "not an email"), "not an email")
      assert.strictEqual(yield* check({ $ref: "https://example.com/schema.json" }, 1), 1)
    }))

  it.effect("refuses a malformed schema with InvalidJsonSchema naming where it is wrong, and never throws", () =>
    Effect.gen(function*() {
      const refusal = (schema: unknown) => Effect.map(Effect.flip(SchemaBridge.fromJsonSchema(schema)), (e) => `${e._tag} ${e.message}`)
      assert.strictEqual(yield* refusal(42), `InvalidJsonSchema JSON Schema at "#": a schema must be an object or a boolean, got 42`)
      assert.strictEqual(yield* refusal({ properties: { a: { type: 5 } } }), `InvalidJsonSchema JSON Schema at "#/properties/a/type": must be a type name or an array of them, got 5`)
      assert.strictEqual(yield* refusal({ required: "a" }), `InvalidJsonSchema JSON Schema at "#/required": must be an array of strings`)
      assert.strictEqual(yield* refusal({ pattern: "(" }), `InvalidJsonSchema JSON Schema at "#/pattern": "(" is not a valid regular expression`)
      assert.strictEqual(yield* refusal({ $ref: "#/$defs/Missing" }), `InvalidJsonSchema JSON Schema at "#/$ref": $ref "#/$defs/Missing" points at nothing`)
      assert.include(yield* refusal({ $defs: { A: { anyOf: [{ $ref: "#/$defs/A" }] } }, $ref: "#/$defs/A" }), "refers back to itself")
      let deep: unknown = {}
      for (let i = 0; i < 10_000; i++) deep = { not: deep }
      assert.include(yield* refusal(deep), "nests deeper than")
      // A loop first reached through a child slips past the schema check; checking a value still ends.
      const sneaky = { $defs: { N: { properties: { q: { $ref: "#/$defs/M" } }, anyOf: [{ $ref: "#/$defs/M" }] }, M: { anyOf: [{ $ref: "#/$defs/N" }] } }, $ref: "#/$defs/N" }
      assert.strictEqual((yield* Effect.flip(check(sneaky, { q: 1 })))._tag, "InputError")
    }))

  it.effect("refuses a value nested past the bound instead of overflowing the stack", () =>
    Effect.gen(function*() {
      let deep: unknown = 1
      for (let i = 0; i < 20_000; i++) deep = [deep]
      const nested = { $defs: { D: { anyOf: [{ type: "number" }, { type: "array", items: { $ref: "#/$defs/D" } }] } }, $ref: "#/$defs/D" }
      assert.include(yield* messageOf(check(nested, deep)), "nests deeper than 128 levels")
    }))
})

// The emitted document must accept every value the Effect Schema can produce, as a host sends it.
// Two deliberate gaps between the codec and the advertised schema are respected, not tested away:
// a key holding `undefined` is sent by leaving it out (the codec would write `null`, which the
// decoder still accepts but the document does not advertise), and Schema.Number is not used, since
// its NaN and Infinity travel as strings the document deliberately omits.
const omitUndefined = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(omitUndefined)
  // Dates are the only class instances these schemas hold, and they encode themselves.
  if (typeof value !== "object" || value === null || value instanceof Date) return value
  return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => v === undefined ? [] : [[k, omitUndefined(v)]]))
}

describe("emitted JSON Schema accepts every encoded value of its Effect Schema", () => {
  const properties = {
    "a struct with optional fields": Search,
    "a tagged union": Shape,
    "a recursive tree": Tree,
    "a struct of dates, tuples and literals": Schema.Struct({
      at: Schema.Date,
      pair: Schema.Tuple([Schema.String.check(Schema.isMinLength(3)), Schema.optionalKey(Schema.Int)]),
      level: Schema.optional(Schema.NullOr(Schema.Literals(["low", "high"])))
    })
  }
  for (const [name, schema] of Object.entries(properties)) {
    const tool = SchemaBridge.compile(schema)
    const encode = Schema.encodeUnknownSync(Schema.toCodecJson(schema))
    it.effect.prop(`for ${name}, the reverse decoder and the forward decoder both accept it`, [schema], ([value]) =>
      Effect.gen(function*() {
        const encoded: unknown = encode(omitUndefined(value))
        const wire: unknown = JSON.parse(JSON.stringify(tool.wrapped ? { value: encoded } : encoded))
        const reverse = yield* SchemaBridge.fromJsonSchema(tool.jsonSchema)
        yield* reverse(wire)
        yield* tool.decode(wire)
      }), { arbitrary: { runs: 200 } })
  }
})

describe("SchemaBridge service", () => {
  layer(SchemaBridge.SchemaBridge.layer)("the live layer", (it) => {
    it.effect("serves the module's pure functions", () =>
      Effect.gen(function*() {
        const bridge = yield* SchemaBridge.SchemaBridge
        assert.strictEqual(bridge.inputSchema, SchemaBridge.inputSchema)
        assert.deepStrictEqual(bridge.inputSchema(Schema.Finite), SchemaBridge.inputSchema(Schema.Finite))
      }))
  })

  it.effect("can be swapped for a test double", () =>
    Effect.gen(function*() {
      const bridge = yield* SchemaBridge.SchemaBridge
      assert.deepStrictEqual(bridge.inputSchema(Schema.Finite), { type: "object", properties: {} })
    }).pipe(Effect.provide(Layer.succeed(SchemaBridge.SchemaBridge, SchemaBridge.SchemaBridge.of({
      inputSchema: () => ({ type: "object", properties: {} }),
      compile: SchemaBridge.compile,
      decoder: SchemaBridge.decoder,
      fromJsonSchema: SchemaBridge.fromJsonSchema,
      serialize: SchemaBridge.serialize
    })))))
})
