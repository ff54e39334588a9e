/**
 * The typed fields of a tool's object input: the one model argv flags are typed from and a served
 * schema is rebuilt from.
 *
 * A tool's JSON Schema reaches a shell as flags (`--title`, `--address.city`, a repeated `--tag`)
 * and a proxied tool's schema is served again after restrictions are applied. Both are readings of
 * the same few things — each field's type, description, enum, bounds, array item type, nesting and
 * requiredness — so they are read once, here, into a tree that goes back to the same JSON Schema.
 * Keywords the model does not type (`format`, `default`, `exclusiveMinimum`, vendor keys) ride
 * along verbatim on their node, and a node it cannot type at all (a union, a `$ref`, a type list)
 * is kept whole as `Opaque`: reading a schema never loses any of it.
 *
 * @since 0.1.0
 */
import type * as Json from "./Json.ts"

/**
 * What every typed field carries: its description, and the keywords the model does not type,
 * verbatim.
 *
 * @example
 * ```ts
 * import type { Fields } from "effect-surface"
 * const common: Fields.Common = { description: "When it is due", rest: { format: "date" } }
 * ```
 *
 * @since 0.1.0
 */
export interface Common {
  readonly description: string | undefined
  readonly rest: Json.JsonObject
}

/**
 * A string field.
 *
 * @example
 * ```ts
 * import type { Fields } from "effect-surface"
 * const item: Fields.Text = { _tag: "Text", description: "What to price", rest: {}, enum: ["tea", "cake"], maxLength: undefined, pattern: undefined }
 * ```
 *
 * @since 0.1.0
 */
export interface Text extends Common {
  readonly _tag: "Text"
  readonly enum: ReadonlyArray<string> | undefined
  readonly maxLength: number | undefined
  readonly pattern: string | undefined
}

/**
 * A number field; `integer` for JSON Schema's `"integer"`.
 *
 * @example
 * ```ts
 * import type { Fields } from "effect-surface"
 * const qty: Fields.Numeric = { _tag: "Numeric", integer: true, description: undefined, rest: {}, enum: undefined, minimum: 1, maximum: 10 }
 * ```
 *
 * @since 0.1.0
 */
export interface Numeric extends Common {
  readonly _tag: "Numeric"
  readonly integer: boolean
  readonly enum: ReadonlyArray<number> | undefined
  readonly minimum: number | undefined
  readonly maximum: number | undefined
}

/**
 * A boolean field.
 *
 * @example
 * ```ts
 * import type { Fields } from "effect-surface"
 * const done: Fields.Truth = { _tag: "Truth", description: "Whether it is done", rest: {} }
 * ```
 *
 * @since 0.1.0
 */
export interface Truth extends Common {
  readonly _tag: "Truth"
}

/**
 * An array field, with its item's field.
 *
 * @example
 * ```ts
 * import type { Fields } from "effect-surface"
 * const tags: Fields.List = { _tag: "List", description: undefined, rest: {}, items: { _tag: "Text", description: undefined, rest: {}, enum: undefined, maxLength: undefined, pattern: undefined } }
 * ```
 *
 * @since 0.1.0
 */
export interface List extends Common {
  readonly _tag: "List"
  readonly items: Field
}

/**
 * An object field: its properties in order, and which of them are required.
 *
 * @example
 * ```ts
 * import type { Fields } from "effect-surface"
 * const city: Fields.Field = { _tag: "Text", description: undefined, rest: {}, enum: undefined, maxLength: undefined, pattern: undefined }
 * const address: Fields.Group = { _tag: "Group", description: undefined, rest: {}, properties: [{ name: "city", field: city }], required: ["city"] }
 * ```
 *
 * @since 0.1.0
 */
export interface Group extends Common {
  readonly _tag: "Group"
  readonly properties: ReadonlyArray<Property>
  readonly required: ReadonlyArray<string>
}

/**
 * One property of a group.
 *
 * @example
 * ```ts
 * import type { Fields } from "effect-surface"
 * const title: Fields.Property = { name: "title", field: { _tag: "Truth", description: undefined, rest: {} } }
 * ```
 *
 * @since 0.1.0
 */
export interface Property {
  readonly name: string
  readonly field: Field
}

/**
 * A schema the model does not type (a union, a `$ref`, a list of types, `true`), kept whole.
 *
 * @example
 * ```ts
 * import type { Fields } from "effect-surface"
 * const either: Fields.Opaque = { _tag: "Opaque", schema: { anyOf: [{ type: "string" }, { type: "number" }] } }
 * ```
 *
 * @since 0.1.0
 */
export interface Opaque {
  readonly _tag: "Opaque"
  readonly schema: Json.Json
}

/**
 * Any field.
 *
 * @example
 * ```ts
 * import type { Fields } from "effect-surface"
 * const scalar = (field: Fields.Field) => field._tag === "Text" || field._tag === "Numeric" || field._tag === "Truth"
 * ```
 *
 * @since 0.1.0
 */
export type Field = Text | Numeric | Truth | List | Group | Opaque

const isNode = (json: Json.Json | undefined): json is Json.JsonObject =>
  typeof json === "object" && json !== null && !Array.isArray(json)

const isFiniteNumber = (json: Json.Json | undefined): json is number =>
  typeof json === "number" && Number.isFinite(json)

const isCount = (json: Json.Json | undefined): json is number =>
  isFiniteNumber(json) && Number.isInteger(json) && json >= 0

// Takes a keyword off `rest` when `accepts` it; otherwise it stays there, verbatim.
const take = <A extends Json.Json>(
  rest: Record<string, Json.Json>,
  key: string,
  accepts: (json: Json.Json) => json is A
): A | undefined => {
  const value = rest[key]
  if (value === undefined || !accepts(value)) return undefined
  delete rest[key]
  return value
}

const isString = (json: Json.Json): json is string => typeof json === "string"
const strings = (json: Json.Json): json is ReadonlyArray<string> =>
  Array.isArray(json) && json.length > 0 && json.every(isString)
const numbers = (json: Json.Json): json is ReadonlyArray<number> =>
  Array.isArray(json) && json.length > 0 && json.every(isFiniteNumber)

const group = (node: Json.JsonObject, rest: Record<string, Json.Json>): Field => {
  // An object that lists no properties is free-form: no field of it can be typed.
  const properties = node["properties"]
  const required = node["required"] ?? []
  if (!isNode(properties) || !strings(required) && !(Array.isArray(required) && required.length === 0))
    return { _tag: "Opaque", schema: node }
  const names = Object.keys(properties)
  if (!required.every((name) => names.includes(name))) return { _tag: "Opaque", schema: node }
  delete rest["properties"]
  delete rest["required"]
  const description = take(rest, "description", isString)
  return {
    _tag: "Group",
    description,
    rest,
    properties: names.map((name) => ({ name, field: fromJsonSchema(properties[name] ?? true) })),
    required
  }
}

/**
 * Read a JSON Schema into fields. A node whose `type` is one of `string`, `number`, `integer`,
 * `boolean`, `array` (with one `items` schema) or `object` (with `properties`, and a `required`
 * naming only them) is typed; anything else — a free-form object among them — is `Opaque`. Never
 * fails.
 *
 * @example
 * ```ts
 * import { Fields } from "effect-surface"
 * const fields = Fields.fromJsonSchema({ type: "object", properties: { qty: { type: "integer", minimum: 1 } }, required: ["qty"] })
 * // { _tag: "Group", properties: [{ name: "qty", field: { _tag: "Numeric", integer: true, minimum: 1, … } }], required: ["qty"], … }
 * ```
 *
 * @since 0.1.0
 */
export const fromJsonSchema = (schema: Json.Json): Field => {
  if (!isNode(schema)) return { _tag: "Opaque", schema }
  const { type, ...others } = schema
  const rest: Record<string, Json.Json> = { ...others }
  switch (type) {
    case "string": {
      const description = take(rest, "description", isString)
      return {
        _tag: "Text",
        description,
        enum: take(rest, "enum", strings),
        maxLength: take(rest, "maxLength", isCount),
        pattern: take(rest, "pattern", isString),
        rest
      }
    }
    case "number":
    case "integer": {
      const description = take(rest, "description", isString)
      const minimum = take(rest, "minimum", isFiniteNumber)
      const maximum = take(rest, "maximum", isFiniteNumber)
      return {
        _tag: "Numeric",
        integer: type === "integer",
        description,
        enum: take(rest, "enum", numbers),
        minimum,
        maximum,
        rest
      }
    }
    case "boolean":
      return { _tag: "Truth", description: take(rest, "description", isString), rest }
    case "array": {
      const items = rest["items"]
      if (!isNode(items)) return { _tag: "Opaque", schema }
      delete rest["items"]
      return { _tag: "List", description: take(rest, "description", isString), items: fromJsonSchema(items), rest }
    }
    case "object":
      return group(schema, rest)
    default:
      return { _tag: "Opaque", schema }
  }
}

const withCommon = (head: Json.JsonObject, field: Common, tail: Json.JsonObject = {}): Json.JsonObject => ({
  ...head,
  ...(field.description === undefined ? {} : { description: field.description }),
  ...tail,
  ...field.rest
})

const defined = (entries: Record<string, Json.Json | undefined>): Json.JsonObject =>
  Object.fromEntries(Object.entries(entries).filter((entry): entry is [string, Json.Json] => entry[1] !== undefined))

/**
 * Write fields back as the JSON Schema they describe: `fromJsonSchema`'s inverse, so a schema read
 * and written again says what it said.
 *
 * @example
 * ```ts
 * import { Fields } from "effect-surface"
 * const schema = { type: "object", properties: { tags: { type: "array", items: { type: "string" } } } }
 * Fields.toJsonSchema(Fields.fromJsonSchema(schema)) // the same schema
 * ```
 *
 * @since 0.1.0
 */
export const toJsonSchema = (field: Field): Json.Json => {
  switch (field._tag) {
    case "Opaque":
      return field.schema
    case "Text":
      return withCommon(
        { type: "string" },
        field,
        defined({ enum: field.enum, maxLength: field.maxLength, pattern: field.pattern })
      )
    case "Numeric":
      return withCommon(
        { type: field.integer ? "integer" : "number" },
        field,
        defined({ enum: field.enum, minimum: field.minimum, maximum: field.maximum })
      )
    case "Truth":
      return withCommon({ type: "boolean" }, field)
    case "List":
      return withCommon({ type: "array" }, field, { items: toJsonSchema(field.items) })
    case "Group":
      return withCommon({ type: "object" }, field, {
        properties: Object.fromEntries(field.properties.map((p) => [p.name, toJsonSchema(p.field)])),
        ...(field.required.length === 0 ? {} : { required: field.required })
      })
  }
}

/**
 * Whether a field is one value a single flag can carry: a string, a number or a boolean.
 *
 * @example
 * ```ts
 * import { Fields } from "effect-surface"
 * Fields.isScalar(Fields.fromJsonSchema({ type: "integer" })) // true
 * Fields.isScalar(Fields.fromJsonSchema({ type: "array", items: { type: "string" } })) // false
 * ```
 *
 * @since 0.1.0
 */
export const isScalar = (field: Field): field is Text | Numeric | Truth =>
  field._tag === "Text" || field._tag === "Numeric" || field._tag === "Truth"
