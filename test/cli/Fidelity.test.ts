// Schema fidelity, property-tested both ways: a tool's schema read into fields (what the flags are
// typed from) and written back says what it said — type, description, enum, bounds, item type,
// nesting, requiredness, and every keyword the model does not type — and a value said as flags is
// parsed back by effect/cli into the same arguments, which the schema accepts.
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Effect, Ref, Result } from "effect"
import { Command } from "effect/cli"
import { Fields, type Json, SchemaBridge } from "effect-surface"
import { CliFlags } from "effect-surface/cli"
import { input, schemaOf, sayable, type Spec, valueOf } from "./specs.ts"

const options = { arbitrary: { runs: 200 } }

const leavesOf = (schema: Json.Json) => Result.getOrThrow(CliFlags.leaves(Fields.fromJsonSchema(schema)))

/** Each typed field says what its spec said, and a flag's help tells its enum, bounds and requiredness. */
const checkFields = (spec: Spec, field: Fields.Field, path: string): void => {
  const where = `at ${path || "the top"}`
  switch (spec.kind) {
    case "opaque":
      return assert.deepStrictEqual(field, { _tag: "Opaque", schema: spec.schema }, where)
    case "string":
      assert.strictEqual(field._tag, "Text", where)
      if (field._tag === "Text") {
        assert.deepStrictEqual([field.description, field.enum, field.maxLength], [
          spec.description,
          spec.enum,
          spec.maxLength
        ], where)
      }
      return
    case "integer":
    case "number":
      assert.strictEqual(field._tag, "Numeric", where)
      if (field._tag === "Numeric") {
        assert.deepStrictEqual([field.integer, field.description, field.enum, field.minimum, field.maximum], [
          spec.kind === "integer",
          spec.description,
          spec.enum,
          spec.minimum,
          spec.maximum
        ], where)
      }
      return
    case "boolean":
      return assert.deepStrictEqual([field._tag, field._tag === "Truth" ? field.description : undefined], [
        "Truth",
        spec.description
      ], where)
    case "array":
      assert.strictEqual(field._tag, "List", where)
      if (field._tag === "List") checkFields(spec.items, field.items, `${path}[]`)
      return
    case "object":
      assert.strictEqual(field._tag, "Group", where)
      if (field._tag !== "Group") return
      assert.deepStrictEqual(field.properties.map((p) => p.name), spec.properties.map((p) => p.name), where)
      assert.deepStrictEqual(field.required, spec.properties.filter((p) => p.required).map((p) => p.name), where)
      spec.properties.forEach((p, i) => {
        const property = field.properties[i]
        if (property !== undefined) checkFields(p.spec, property.field, path === "" ? p.name : `${path}.${p.name}`)
      })
  }
}

const helpTells = (leaf: CliFlags.Leaf): void => {
  const words = CliFlags.constraints(leaf).join("; ")
  const field = leaf.kind === "repeated" && leaf.field._tag === "List" ? leaf.field.items : leaf.field
  if (leaf.required) assert.include(words, "required")
  if ((field._tag === "Text" || field._tag === "Numeric") && field.enum !== undefined) {
    for (const value of field.enum) assert.include(words, String(value))
  }
  if (field._tag === "Numeric" && field.minimum !== undefined) assert.include(words, `at least ${field.minimum}`)
  if (field._tag === "Numeric" && field.maximum !== undefined) assert.include(words, `at most ${field.maximum}`)
}

/** Parse `argv` with the leaves' effect/cli flags, and answer the arguments they make. */
const parse = (leaves: ReadonlyArray<CliFlags.Leaf>, argv: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const got = yield* Ref.make<Json.Json | undefined>(undefined)
    const command = Command.make(
      "tool",
      CliFlags.config(leaves),
      (parsed) => Ref.set(got, CliFlags.args(leaves, parsed))
    )
    yield* Command.runWith(command, { version: "0.0.0" })(argv)
    return yield* Ref.get(got)
  }).pipe(Effect.provide(NodeServices.layer))

const withValue = Arbitrary.flatMap(input, (spec) => Arbitrary.map(valueOf(spec), (value) => ({ spec, value })))

describe("schema fidelity through fields and flags", () => {
  it.prop("a schema read into fields and written back says exactly what it said", { spec: input }, ({ spec }) => {
    const schema = schemaOf(spec)
    assert.deepStrictEqual(Fields.toJsonSchema(Fields.fromJsonSchema(schema)), schema)
  }, options)

  it.prop("fields written as a schema and read back are the same fields", { spec: input }, ({ spec }) => {
    const fields = Fields.fromJsonSchema(schemaOf(spec))
    assert.deepStrictEqual(Fields.fromJsonSchema(Fields.toJsonSchema(fields)), fields)
  }, options)

  it.prop(
    "the fields carry each field's type, description, enum, bounds, item type, nesting and requiredness, and --help tells them",
    { spec: input },
    ({ spec }) => {
      const schema = schemaOf(spec)
      checkFields(spec, Fields.fromJsonSchema(schema), "")
      for (const leaf of leavesOf(schema)) helpTells(leaf)
    },
    options
  )

  it.effect.prop("a value said as flags is parsed back into the same arguments, and the schema accepts them", {
    case: withValue
  }, ({ case: { spec, value } }) =>
    Effect.gen(function*() {
      const schema = schemaOf(spec)
      const normal: Json.Json = JSON.parse(JSON.stringify(value)) // -0 is 0 on any wire
      const leaves = leavesOf(schema)
      const parsed = yield* parse(leaves, CliFlags.argv(leaves, normal))
      assert.deepStrictEqual(parsed, sayable(spec, normal) ?? {})
      const decode = yield* SchemaBridge.fromJsonSchema(schema)
      yield* decode(parsed)
    }), options)

  it("kebab-cases names for a shell and refuses two fields that would read as one flag", () => {
    const leaves = leavesOf({
      type: "object",
      properties: {
        dueDate: { type: "string" },
        address: { type: "object", properties: { zip_code: { type: "string" } } }
      }
    })
    assert.deepStrictEqual(leaves.map((leaf) => [leaf.flag, leaf.path]), [["due-date", ["dueDate"]], [
      "address.zip-code",
      ["address", "zip_code"]
    ]])
    const clash = CliFlags.leaves(
      Fields.fromJsonSchema({
        type: "object",
        properties: { dueDate: { type: "string" }, due_date: { type: "string" } }
      })
    )
    assert.isTrue(Result.isFailure(clash))
    assert.include(Result.isFailure(clash) ? clash.failure.message : "", "--due-date")
  })

  it("an input the model does not type is one --json flag carrying the arguments whole", () => {
    const leaves = leavesOf({ anyOf: [{ type: "object" }, { type: "string" }] })
    assert.deepStrictEqual(leaves.map((leaf) => [leaf.flag, leaf.kind, leaf.path]), [["json", "json", []]])
  })
})
