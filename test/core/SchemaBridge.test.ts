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

// Three definitions that each reach all three: recursion a per-definition bound multiplies out.
interface Mutual {
  readonly a?: ReadonlyArray<Mutual>
  readonly b?: ReadonlyArray<Mutual>
  readonly c?: ReadonlyArray<Mutual>
}
const mutual = (names: ReadonlyArray<string>): ReadonlyArray<Schema.Codec<Mutual>> => {
  const out: Array<Schema.Codec<Mutual>> = []
  const field = (i: number) =>
    Schema.optionalKey(Schema.Array(Schema.suspend((): Schema.Codec<Mutual> => out[i % names.length]!)))
  for (const [i, name] of names.entries()) {
    out.push(Schema.Struct({ a: field(i + 1), b: field(i + 2), c: field(i + 3) }).annotate({ identifier: name }))
  }
  return out
}

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
  "tagged union": Shape,
  "Option of a struct with an optional field": Schema.Option(
    Schema.Struct({ a: Schema.String, b: Schema.optional(Schema.String) })
  ),
  "struct with a Never field": Schema.Struct({ gone: Schema.optionalKey(Schema.Never) })
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
    const actual = `${
      JSON.stringify(
        Object.fromEntries(
          Object.entries(representative).map(([name, schema]) => [name, SchemaBridge.inputSchema(schema)])
        ),
        null,
        2
      )
    }\n`
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
    const schema = Schema.Struct({
      n: Schema.Number.annotate({ description: "how many" }).check(Schema.isGreaterThan(0))
    })
    assert.deepStrictEqual(SchemaBridge.inputSchema(schema).properties, {
      n: { type: "number", description: "how many", exclusiveMinimum: 0 }
    })
    assert.deepStrictEqual(
      SchemaBridge.inputSchema(Schema.Struct({ u: Schema.Union([Schema.String, Schema.Number]) })).properties,
      {
        u: { anyOf: [{ type: "string" }, { type: "number" }] }
      }
    )
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
    assert.deepStrictEqual(dig(out, "properties", "p"), {
      type: "object",
      properties: { name: { type: "string" } },
      required: ["name"]
    })
  })

  it("bounds a recursive schema: inlined RECURSION_DEPTH times along a path, then an open {}", () => {
    let node: Json.Json | undefined = SchemaBridge.inputSchema(Tree)
    let levels = 0
    for (; dig(node, "properties") !== undefined; levels++) node = dig(node, "properties", "children", "items")
    assert.strictEqual(levels, SchemaBridge.RECURSION_DEPTH)
    assert.deepStrictEqual(node, {})
  })

  it("bounds recursion by the $ref depth along a path, so three mutually recursive definitions with fan-out 3 stay small", () => {
    const [First] = mutual(["MA", "MB", "MC"])
    const out = SchemaBridge.inputSchema(First!)
    const text = JSON.stringify(out)
    assert.isBelow(text.length, 4_000)
    assert.notInclude(text, "$ref")
    // The first RECURSION_DEPTH levels are shown in full, whichever definitions they pass through.
    let node: Json.Json | undefined = out
    let levels = 0
    for (; dig(node, "properties") !== undefined; levels++) node = dig(node, "properties", "b", "items")
    assert.strictEqual(levels, SchemaBridge.RECURSION_DEPTH)
    assert.deepStrictEqual(node, {})
  })

  it("keeps a wide recursive schema within the size budget by showing fewer levels", () => {
    // An expression tree: thirteen node kinds, twelve of them with two sub-expressions each.
    const kinds = ["Add", "Sub", "Mul", "Div", "Mod", "Pow", "And", "Or", "Eq", "Lt", "Gt", "If"]
    const Expr: Schema.Codec<unknown> = Schema.Union([
      Schema.TaggedStruct("Num", { n: Schema.Finite }),
      ...kinds.map((kind) =>
        Schema.TaggedStruct(kind, { left: Schema.suspend(() => Expr), right: Schema.suspend(() => Expr) })
      )
    ]).annotate({ identifier: "Expr" })
    const out = SchemaBridge.inputSchema(Schema.Struct({ e: Expr }))
    assert.isBelow(JSON.stringify(out).length, 16_000)
    // The top level is still shown in full: every kind, with its fields.
    const arms = dig(out, "properties", "e", "anyOf")
    assert.isTrue(Array.isArray(arms) && arms.length === 13)
    assert.deepStrictEqual(Array.isArray(arms) ? dig(arms[1], "properties", "_tag") : undefined, {
      type: "string",
      enum: ["Add"]
    })
  })

  it("advertises optional fields inside a Declaration such as Schema.Option(Struct) as not required and not null", () => {
    const out = SchemaBridge.inputSchema(Schema.Struct({
      o: Schema.Option(Schema.Struct({ a: Schema.String, b: Schema.optional(Schema.String), n: Schema.Number }))
    }))
    const some = dig(out, "properties", "o", "anyOf")
    assert.isTrue(Array.isArray(some))
    assert.deepStrictEqual(dig(Array.isArray(some) ? some[0] : null, "properties", "value"), {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "string" }, n: { type: "number" } },
      required: ["a", "n"]
    })
  })

  it("advertises Schema.Never without the not keyword hosts reject, and drops it from a union", () => {
    const out = SchemaBridge.inputSchema(Schema.Struct({
      gone: Schema.optionalKey(Schema.Never),
      either: Schema.Union([Schema.String, Schema.Never]),
      said: Schema.optionalKey(Schema.Never.annotate({ description: "reserved" }))
    }))
    assert.notInclude(JSON.stringify(out), `"not"`)
    assert.deepStrictEqual(out.properties, {
      gone: { description: "no value is accepted here" },
      either: { type: "string" },
      said: { description: "reserved (no value is accepted here)" }
    })
    assert.notInclude(JSON.stringify(SchemaBridge.inputSchema(Schema.Never)), `"not"`)
  })

  it("wraps a scalar, array or union input under a required value property", () => {
    const wrapped = (value: Json.Json) => ({ type: "object", properties: { value }, required: ["value"] })
    assert.deepStrictEqual(SchemaBridge.inputSchema(Schema.Finite), wrapped({ type: "number" }))
    assert.deepStrictEqual(
      SchemaBridge.inputSchema(Schema.Array(Schema.Int)),
      wrapped({ type: "array", items: { type: "integer" } })
    )
    assert.deepStrictEqual(
      SchemaBridge.inputSchema(Schema.NullOr(Schema.String)),
      wrapped({ anyOf: [{ type: "string" }, { type: "null" }] })
    )
    assert.strictEqual(SchemaBridge.compile(Shape).wrapped, true)
  })

  it("keeps top-level titles and descriptions, including a Class's, and writes no $schema", () => {
    class Person
      extends Schema.Class<Person>("Person")({ name: Schema.String }, { title: "Person", description: "someone" })
    {}
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
      assert.deepStrictEqual(yield* SchemaBridge.decoder(Shape)({ value: { _tag: "Circle", radius: 1 } }), {
        _tag: "Circle",
        radius: 1
      })
    }))

  it.effect("names the path of every wrong field in the InputError message", () =>
    Effect.gen(function*() {
      const tool = SchemaBridge.compile(
        Schema.Struct({ user: Schema.Struct({ age: Schema.Finite, tags: Schema.Array(Schema.String) }) })
      )
      const error = yield* Effect.flip(tool.decode({ user: { age: "x", tags: ["a", 1] } }))
      assert.strictEqual(error._tag, "InputError")
      assert.strictEqual(
        error.message,
        `value at "user.age": expected a number, got "x"; value at "user.tags[1]": expected a string, got 1`
      )
      assert.deepStrictEqual(error.issues.map((i) => i.path), [["user", "age"], ["user", "tags", 1]])
      assert.strictEqual(
        yield* messageOf(SchemaBridge.decoder(Schema.Finite)({ value: "x" })),
        `value at "value": expected a number, got "x"`
      )
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
      assert.deepStrictEqual(
        yield* SchemaBridge.decoder(Schema.Struct({ a: Schema.optionalKey(Schema.String) }))(undefined),
        {}
      )
      assert.deepStrictEqual(yield* SchemaBridge.decoder(Schema.Struct({}))(undefined), {})
      assert.strictEqual(yield* SchemaBridge.decoder(Schema.Void)({ stray: 1 }), undefined)
      assert.strictEqual(yield* SchemaBridge.compile().decode({ stray: 1 }), undefined)
    }))

  it.effect("refuses null arguments for an object tool, naming each missing field, while absent arguments still read as {}", () =>
    Effect.gen(function*() {
      const required = SchemaBridge.decoder(Schema.Struct({ a: Schema.String, b: Schema.optionalKey(Schema.String) }))
      assert.strictEqual(
        yield* messageOf(required(null)),
        `value: expected an object, got null; value at "a": missing required field`
      )
      const optional = SchemaBridge.decoder(Schema.Struct({ b: Schema.optionalKey(Schema.String) }))
      assert.strictEqual(yield* messageOf(optional(null)), `value: expected an object, got null`)
      assert.deepStrictEqual(yield* optional(undefined), {})
      assert.strictEqual(yield* SchemaBridge.decoder(Schema.Void)(null), undefined)
      assert.deepStrictEqual(yield* SchemaBridge.decoder(Schema.Struct({}))(null), {})
    }))

  it.effect("decode never throws: a throwing getter or Proxy in the input fails the Effect with an InputError", () =>
    Effect.gen(function*() {
      const getter = Object.defineProperty({}, "a", {
        enumerable: true,
        get: () => {
          throw new Error("boom")
        }
      })
      const proxy = new Proxy({}, {
        ownKeys: () => {
          throw new Error("trap")
        }
      })
      for (
        const [schema, input] of [
          [Schema.Struct({ a: Schema.String }), getter],
          [Schema.Struct({ a: Schema.String }), { nested: proxy }],
          [Schema.Finite, { value: proxy }],
          [
            Schema.Finite,
            new Proxy({}, {
              getOwnPropertyDescriptor: () => {
                throw new Error("trap")
              }
            })
          ]
        ] as const
      ) {
        const decode = SchemaBridge.decoder(schema)
        const effect = (() => {
          try {
            return decode(input)
          } catch (cause) {
            return assert.fail(`decode threw synchronously: ${String(cause)}`)
          }
        })()
        const error = yield* Effect.flip(effect)
        assert.strictEqual(error._tag, "InputError")
        assert.include(error.message, "could not be read (Error: ")
      }
    }))

  it.effect("words the common failures as the reverse decoder does: literal unions, tagged unions by their _tag, lengths and bounds", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Schema.Codec<unknown, unknown>, unknown, string]> = [
        [Schema.Literals(["x", "y"]), "z", `expected "x" or "y", got "z"`],
        [Shape, { _tag: "Hexagon" }, `value at "s._tag": expected "Circle" or "Square", got "Hexagon"`],
        [Shape, { radius: 1 }, `value at "s._tag": expected "Circle" or "Square", got nothing`],
        [Shape, { _tag: "Square", side: "x" }, `value at "s.side": expected a number, got "x"`],
        [Shape, 3, `expected an object, got 3`],
        [Schema.Option(Schema.Finite), { _tag: "Maybe" }, `value at "s._tag": expected "Some" or "None", got "Maybe"`],
        [Schema.String.check(Schema.isMaxLength(3)), "abcd", `expected at most 3 characters, got "abcd"`],
        [Schema.NonEmptyString, "", `expected at least 1 character, got ""`],
        [Schema.Array(Schema.String).check(Schema.isMinLength(2)), ["a"], `expected at least 2 items, got 1`],
        [Schema.Finite.check(Schema.isGreaterThan(3)), 1, `expected a number greater than 3, got 1`],
        [Schema.Finite.check(Schema.isLessThanOrEqualTo(3)), 4, `expected a number at most 3, got 4`],
        [
          Schema.Finite.check(Schema.isBetween({ minimum: 1, maximum: 5 })),
          9,
          `expected a number between 1 and 5, got 9`
        ],
        [Schema.Int, 1.5, `expected an integer, got 1.5`],
        [Schema.Number, "abc", `expected a number, got "abc"`],
        [Schema.Finite.check(Schema.isMultipleOf(0.5)), 0.3, `expected a number that is a multiple of 0.5, got 0.3`],
        [Schema.Union([Schema.String, Schema.Finite]), true, `expected a string or a number, got true`],
        [Schema.NullOr(Schema.String), 1, `expected a string or null, got 1`],
        [Schema.Struct({ a: Schema.String }), {}, `value at "s.a": missing required field`]
      ]
      for (const [field, input, wanted] of cases) {
        const schema = Schema.Struct({ s: field })
        const message = wanted.startsWith("value at") ? wanted : `value at "s": ${wanted}`
        const reverse = yield* SchemaBridge.fromJsonSchema(SchemaBridge.inputSchema(schema))
        assert.strictEqual(yield* messageOf(SchemaBridge.decoder(schema)({ s: input })), message, `forward: ${message}`)
        assert.strictEqual(yield* messageOf(reverse({ s: input })), message, `reverse: ${message}`)
      }
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
    it.effect.prop(
      `for ${name}, the reverse decoder and the forward decoder both accept it`,
      [schema],
      ([value]) =>
        Effect.gen(function*() {
          const encoded: unknown = encode(omitUndefined(value))
          const wire: unknown = JSON.parse(JSON.stringify(tool.wrapped ? { value: encoded } : encoded))
          const reverse = yield* SchemaBridge.fromJsonSchema(tool.jsonSchema)
          yield* reverse(wire)
          yield* tool.decode(wire)
        }),
      { arbitrary: { runs: 200 } }
    )
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
    }).pipe(Effect.provide(Layer.succeed(
      SchemaBridge.SchemaBridge,
      SchemaBridge.SchemaBridge.of({
        inputSchema: () => ({ type: "object", properties: {} }),
        compile: SchemaBridge.compile,
        decoder: SchemaBridge.decoder,
        fromJsonSchema: SchemaBridge.fromJsonSchema,
        serialize: SchemaBridge.serialize
      })
    ))))
})
