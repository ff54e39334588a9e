// Arbitrary tool inputs for the fidelity properties: a spec of each field (type, description, enum,
// bounds, item type, nesting, requiredness, and keywords the model does not type), the JSON Schema
// it stands for — written here, not by the code under test — and arbitrary values that schema accepts.
import { Arbitrary, Schema } from "effect"
import type { Json } from "effect-surface"

export type Spec =
  | {
    readonly kind: "string"
    readonly description?: string | undefined
    readonly enum?: ReadonlyArray<string> | undefined
    readonly maxLength?: number | undefined
    readonly format?: string | undefined
  }
  | {
    readonly kind: "integer" | "number"
    readonly description?: string | undefined
    readonly enum?: ReadonlyArray<number> | undefined
    readonly minimum?: number | undefined
    readonly maximum?: number | undefined
    readonly default?: number | undefined
  }
  | { readonly kind: "boolean"; readonly description?: string | undefined }
  | { readonly kind: "array"; readonly description?: string | undefined; readonly items: Spec }
  | { readonly kind: "object"; readonly description?: string | undefined; readonly properties: ReadonlyArray<Prop> }
  | { readonly kind: "opaque"; readonly schema: Json.Json }

export interface Prop {
  readonly name: string
  readonly spec: Spec
  readonly required: boolean
}

const int = (minimum: number, maximum: number) =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum, maximum })))

export const pick = <A>(values: ReadonlyArray<A>): Arbitrary.Arbitrary<A> =>
  Arbitrary.map(int(0, values.length - 1), (i) => values[i] as A) // i is within bounds

const maybe = <A>(arbitrary: Arbitrary.Arbitrary<A>): Arbitrary.Arbitrary<A | undefined> =>
  Arbitrary.flatMap(Arbitrary.schema(Schema.Boolean), (yes) => yes ? arbitrary : Arbitrary.Constant(undefined))

/** Keys whose `undefined` members are dropped, so a spec has no key it does not say. */
const compact = <A extends object>(record: A): A =>
  Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as A

const description = maybe(
  pick(["What needs doing", "How many", "When it is due (a date)", "Whether it is done", "Tags, any number"])
)
const words = ["tea", "cake", "low", "high", "a-b", "x y"]
const uniqueWords = Arbitrary.map(
  Arbitrary.array(pick(words), { minLength: 1, maxLength: 4 }),
  (ws) => [...new Set(ws)]
)

const text: Arbitrary.Arbitrary<Spec> = Arbitrary.flatMap(
  Arbitrary.schema(Schema.Boolean),
  (enumerated) =>
    Arbitrary.map(
      Arbitrary.all({
        description,
        enum: enumerated ? uniqueWords : Arbitrary.Constant(undefined),
        maxLength: enumerated ? Arbitrary.Constant(undefined) : maybe(pick([3, 8, 20])),
        format: maybe(Arbitrary.Constant("date"))
      }),
      (s): Spec => compact({ kind: "string", ...s })
    )
)

export const numeric: Arbitrary.Arbitrary<Spec> = Arbitrary.flatMap(
  Arbitrary.all([pick(["integer", "number"] as const), Arbitrary.schema(Schema.Boolean)]),
  ([kind, enumerated]) =>
    enumerated
      ? Arbitrary.map(
        Arbitrary.all({
          description,
          enum: Arbitrary.map(Arbitrary.array(int(-20, 20), { minLength: 1, maxLength: 4 }), (ns) => [...new Set(ns)])
        }),
        (s): Spec => compact({ kind, ...s })
      )
      : Arbitrary.map(
        Arbitrary.all({
          description,
          minimum: maybe(int(-50, 50)),
          span: int(0, 100),
          bounded: Arbitrary.schema(Schema.Boolean),
          default: maybe(int(0, 0))
        }),
        ({ bounded, span, ...s }): Spec =>
          compact({ kind, ...s, maximum: bounded ? (s.minimum ?? 0) + span : undefined })
      )
)

const truth: Arbitrary.Arbitrary<Spec> = Arbitrary.map(
  description,
  (d): Spec => compact({ kind: "boolean", description: d })
)

/** Schemas the model does not type, each with values they accept. */
export const opaques: ReadonlyArray<{ readonly schema: Json.Json; readonly values: ReadonlyArray<Json.Json> }> = [
  { schema: { anyOf: [{ type: "string" }, { type: "integer" }] }, values: ["a", 3, "--x"] },
  { schema: { type: ["string", "null"] }, values: [null, "n"] },
  { schema: {}, values: [{ k: [1, 2] }, [true], "s", 0, []] },
  { schema: { type: "object" }, values: [{}, { free: "form" }] }
]

const opaque: Arbitrary.Arbitrary<Spec> = Arbitrary.map(
  pick(opaques),
  (o): Spec => ({ kind: "opaque", schema: o.schema })
)

const scalar = Arbitrary.flatMap(pick([text, numeric, truth]), (a) => a)

const names = ["title", "dueDate", "qty", "tags", "city", "zip_code", "note", "level"]

const group = (child: Arbitrary.Arbitrary<Spec>, minLength = 0): Arbitrary.Arbitrary<Spec> =>
  Arbitrary.map(
    Arbitrary.all({
      description,
      props: Arbitrary.array(Arbitrary.all([pick(names), child, Arbitrary.schema(Schema.Boolean)]), {
        minLength,
        maxLength: 4
      })
    }),
    ({ description: d, props }): Spec => {
      const seen = new Set<string>()
      const properties = props.filter(([name]) => !seen.has(name) && seen.add(name) !== undefined).map((
        [name, spec, required]
      ) => ({ name, spec, required }))
      return compact({ kind: "object", description: d, properties })
    }
  )

const list = (items: Arbitrary.Arbitrary<Spec>): Arbitrary.Arbitrary<Spec> =>
  Arbitrary.map(Arbitrary.all({ description, items }), (s): Spec => compact({ kind: "array", ...s }))

const level1 = Arbitrary.flatMap(pick([scalar, scalar, list(scalar), group(scalar, 1), opaque]), (a) => a)
const level2 = Arbitrary.flatMap(pick([scalar, level1, list(group(scalar, 1)), group(level1, 1)]), (a) => a)

/** A tool's input: an object of fields nested up to three levels. */
export const input: Arbitrary.Arbitrary<Spec> = group(level2)

const clean = (record: Readonly<Record<string, Json.Json | undefined>>): Json.JsonObject =>
  Object.fromEntries(Object.entries(record).filter((entry): entry is [string, Json.Json] => entry[1] !== undefined))

/** The JSON Schema a spec stands for. */
export const schemaOf = (spec: Spec): Json.Json => {
  switch (spec.kind) {
    case "opaque":
      return spec.schema
    case "array":
      return clean({ type: "array", description: spec.description, items: schemaOf(spec.items) })
    case "object": {
      const required = spec.properties.filter((p) => p.required).map((p) => p.name)
      return clean({
        type: "object",
        description: spec.description,
        properties: Object.fromEntries(spec.properties.map((p) => [p.name, schemaOf(p.spec)])),
        required: required.length === 0 ? undefined : required
      })
    }
    case "string":
      return clean({
        type: "string",
        description: spec.description,
        enum: spec.enum,
        maxLength: spec.maxLength,
        format: spec.format
      })
    case "integer":
    case "number":
      return clean({
        type: spec.kind,
        description: spec.description,
        enum: spec.enum,
        minimum: spec.minimum,
        maximum: spec.maximum,
        default: spec.default
      })
    case "boolean":
      return clean({ type: "boolean", description: spec.description })
  }
}

const ascii = " abcxyzABC019-_=.,:\"'{}[]éß"
const someText = (maxLength: number) =>
  Arbitrary.map(
    Arbitrary.schema(Schema.String),
    (s) => [...s].map((c) => ascii[(c.codePointAt(0) ?? 0) % ascii.length] ?? "").join("").slice(0, maxLength)
  )

/** Values the spec's schema accepts. */
export const valueOf = (spec: Spec): Arbitrary.Arbitrary<Json.Json> => {
  switch (spec.kind) {
    case "string":
      return spec.enum === undefined ? someText(spec.maxLength ?? 12) : pick(spec.enum)
    case "integer":
    case "number": {
      if (spec.enum !== undefined) return pick(spec.enum)
      const bounds = { minimum: spec.minimum ?? -1000, maximum: spec.maximum ?? 1000 }
      if (spec.kind === "integer") return int(bounds.minimum, bounds.maximum)
      return Arbitrary.schema(Schema.Finite.check(Schema.isBetween(bounds)))
    }
    case "boolean":
      return Arbitrary.schema(Schema.Boolean)
    case "array":
      return Arbitrary.array(valueOf(spec.items), { maxLength: 3 })
    case "object":
      return Arbitrary.map(
        Arbitrary.all(spec.properties.map((p) => p.required ? valueOf(p.spec) : maybe(valueOf(p.spec)))),
        (values): Json.Json =>
          Object.fromEntries(spec.properties.flatMap((p, i) => values[i] === undefined ? [] : [[p.name, values[i]]]))
      )
    case "opaque":
      return pick(opaques.find((o) => o.schema === spec.schema)?.values ?? [null])
  }
}

/**
 * What a command line can say of a value. A list of plain values given no times, or a nested object
 * given none of its fields, says nothing (a shell has no words for "an empty list"): when it is
 * required it is there empty, wherever the object holding it is said; when optional, it is absent.
 */
export const sayable = (spec: Spec, value: Json.Json): Json.Json | undefined => said(spec, value, true)?.value

const said = (
  spec: Spec,
  value: Json.Json,
  required: boolean
): { readonly value: Json.Json; readonly said: boolean } | undefined => {
  const plainItems = spec.kind === "array" && ["string", "integer", "number", "boolean"].includes(spec.items.kind)
  if (plainItems && Array.isArray(value) && value.length === 0) return required ? { value, said: false } : undefined
  if (
    spec.kind !== "object" || spec.properties.length === 0 || typeof value !== "object" || value === null ||
    Array.isArray(value)
  ) {
    return { value, said: true }
  }
  const object = value as Json.JsonObject
  const children = spec.properties.flatMap((p) => {
    const inner = Object.hasOwn(object, p.name) ? said(p.spec, object[p.name] ?? null, p.required) : undefined
    return inner === undefined ? [] : [[p.name, inner] as const]
  })
  const anything = children.some(([, child]) => child.said)
  if (!anything && !required) return undefined
  return { value: Object.fromEntries(children.map(([name, child]) => [name, child.value])), said: anything }
}
