/**
 * What a handler asks a person for, declared as an Effect Schema and sent as a form schema.
 *
 * A protocol's elicitation (MCP's `elicitation/create`, and ACP's after it) takes a deliberately small JSON Schema — a flat object of strings, numbers,
 * booleans and enums, with defaults (SEP-1034) and titled or multi-select enums (SEP-1330) — so a
 * client can draw a form without a general schema engine. A handler should still declare what it
 * wants once, as the Effect Schema it will decode the answer with; this module derives the
 * requested schema from that declaration, refusing by field name anything a form cannot ask, so
 * the question sent and the answer decoded can never disagree.
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import type * as Json from "./Json.ts"
import * as SchemaBridge from "./SchemaBridge.ts"

/**
 * A schema a form cannot ask: not a struct, or a field that is not a string, number, integer,
 * boolean, string enum or array of string enum.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Elicitation } from "effect-surface"
 * Elicitation.requestedSchema(Schema.Struct({ at: Schema.Struct({ x: Schema.Finite }) }))
 * // Failure: field "at" cannot be asked in a form: ...
 * ```
 *
 * @since 0.1.0
 */
export class UnsupportedElicitationSchema
  extends Schema.TaggedError<UnsupportedElicitationSchema>()("UnsupportedElicitationSchema", {
    field: Schema.UndefinedOr(Schema.String),
    reason: Schema.String
  })
{
  override get message(): string {
    return this.field === undefined
      ? `the schema cannot be asked in a form: ${this.reason}`
      : `field "${this.field}" cannot be asked in a form: ${this.reason}`
  }
}

/**
 * The answer to an elicitation: accepted with content decoded by the schema, declined, or cancelled
 * (dismissed without a choice).
 *
 * @example
 * ```ts
 * import type { Elicitation } from "effect-surface"
 * const answer: Elicitation.Answer<{ readonly name: string }> = { _tag: "Accept", content: { name: "Ada" } }
 * ```
 *
 * @since 0.1.0
 */
export type Answer<A> =
  | { readonly _tag: "Accept"; readonly content: A }
  | { readonly _tag: "Decline" }
  | { readonly _tag: "Cancel" }

/**
 * The `requestedSchema` of an `elicitation/create`: a flat object of primitive fields.
 *
 * @example
 * ```ts
 * import type { Elicitation } from "effect-surface"
 * const schema: Elicitation.RequestedSchema = { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
 * ```
 *
 * @since 0.1.0
 */
export interface RequestedSchema {
  readonly type: "object"
  readonly properties: { readonly [field: string]: Json.JsonObject }
  readonly required?: ReadonlyArray<string>
}

type JsonRecord = { readonly [key: string]: Json.Json }

const isRecord = (u: Json.Json | undefined): u is JsonRecord => typeof u === "object" && u !== null && !Array.isArray(u)
const isStringArray = (u: Json.Json | undefined): u is ReadonlyArray<string> =>
  Array.isArray(u) && u.every((x) => typeof x === "string")
const FORMATS = new Set(["date", "uri", "email", "date-time"])

// Copy only the listed keys that are present, so the result carries nothing a client's validator rejects.
const pick = (from: JsonRecord, keys: ReadonlyArray<string>): JsonRecord =>
  Object.fromEntries(keys.flatMap((key) => from[key] === undefined ? [] : [[key, from[key]]]))

// One choice of a titled enum, from Effect's `{ type: "string", enum: [v], title }` or a `const`.
const choiceOf = (member: Json.Json): { readonly const: string; readonly title: string } | undefined => {
  if (!isRecord(member)) return undefined
  const value = typeof member["const"] === "string"
    ? member["const"]
    : isStringArray(member["enum"]) && member["enum"].length === 1 ? member["enum"][0] : undefined
  if (value === undefined) return undefined
  return { const: value, title: typeof member["title"] === "string" ? member["title"] : value }
}

const choicesOf = (members: Json.Json | undefined) => {
  if (!Array.isArray(members) || members.length === 0) return undefined
  const choices = members.map(choiceOf)
  return choices.every((c) => c !== undefined) ? choices : undefined
}

// `Schema.optional(X)` advertises `X or null`: the null arm is the optionality, not a choice.
const withoutNull = (property: JsonRecord): JsonRecord => {
  const members = property["anyOf"]
  if (!Array.isArray(members)) return property
  const rest = members.filter((m) => !(isRecord(m) && m["type"] === "null"))
  if (rest.length === members.length) return property
  const { anyOf: _anyOf, ...outer } = property
  const only = rest.length === 1 ? rest[0] : undefined
  return isRecord(only) ? { ...only, ...outer } : { ...outer, anyOf: rest }
}

const SAFE = Number.MAX_SAFE_INTEGER

// `Schema.Int` advertises the safe-integer range; as a form's bounds it says nothing, so it is dropped.
const bounds = (property: JsonRecord): JsonRecord =>
  pick(property, ["minimum", "maximum"].filter((key) => Math.abs(Number(property[key])) !== SAFE))

const primitive = (
  field: string,
  given: JsonRecord,
  enumNames: ReadonlyArray<string> | undefined
): Result.Result<JsonRecord, UnsupportedElicitationSchema> => {
  const property = withoutNull(given)
  const doc = pick(property, ["title", "description", "default"])
  const refuse = (reason: string) => Result.fail(new UnsupportedElicitationSchema({ field, reason }))
  const titled = choicesOf(property["anyOf"] ?? property["oneOf"])
  if (titled !== undefined) return Result.succeed({ type: "string", ...doc, oneOf: titled })
  switch (property["type"]) {
    case "string": {
      if (isStringArray(property["enum"])) {
        const names = enumNames !== undefined && enumNames.length === property["enum"].length ? { enumNames } : {}
        return Result.succeed({ type: "string", ...doc, enum: property["enum"], ...names })
      }
      const format = typeof property["format"] === "string" && FORMATS.has(property["format"])
        ? { format: property["format"] } : {}
      return Result.succeed({ type: "string", ...doc, ...pick(property, ["minLength", "maxLength"]), ...format })
    }
    case "number":
    case "integer":
      return Result.succeed({ type: property["type"], ...doc, ...bounds(property) })
    case "boolean":
      return Result.succeed({ type: "boolean", ...doc })
    case "array": {
      const items = property["items"]
      const counts = pick(property, ["minItems", "maxItems"])
      if (isRecord(items) && isStringArray(items["enum"])) {
        return Result.succeed({ type: "array", ...doc, ...counts, items: { type: "string", enum: items["enum"] } })
      }
      const choices = isRecord(items) ? choicesOf(items["anyOf"] ?? items["oneOf"]) : undefined
      if (choices !== undefined) return Result.succeed({ type: "array", ...doc, ...counts, items: { anyOf: choices } })
      return refuse("an array must be of string enum values (a multi-select)")
    }
    default:
      return refuse(
        `it is ${JSON.stringify(given)}; a form asks only strings, numbers, integers, booleans and enums of strings`
      )
  }
}

// SEP-1330's legacy titled enum carries `enumNames`, which Effect's JSON Schema does not emit: it is
// read from the field's own annotation (`Schema.Literals([...]).annotate({ enumNames: [...] })`).
const enumNamesOf = (ast: SchemaAST.AST, field: string): ReadonlyArray<string> | undefined => {
  if (!SchemaAST.isObjects(ast)) return undefined
  const type = ast.propertySignatures.find((p) => p.name === field)?.type
  const candidates = type === undefined ? [] : SchemaAST.isUnion(type) ? [type, ...type.types] : [type]
  for (const candidate of candidates) {
    const names: unknown = candidate.annotations?.["enumNames"]
    if (Array.isArray(names) && names.every((n) => typeof n === "string")) return names
  }
  return undefined
}

/**
 * The `requestedSchema` for a struct: each field as the primitive a form draws — a string (with
 * length bounds and a `date`/`uri`/`email`/`date-time` format), a number or integer (with bounds), a
 * boolean, a string enum (`Schema.Literals`, untitled; a union of `Schema.Literal(v).annotate({ title })`,
 * titled via `oneOf`; an `enumNames` annotation, the legacy titled form) or an array of such enums (a
 * multi-select) — carrying `title`, `description` and `default` annotations. Optional fields are left
 * out of `required`. Anything else is refused, naming the field.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Elicitation } from "effect-surface"
 * Elicitation.requestedSchema(Schema.Struct({
 *   name: Schema.String.annotate({ default: "John Doe" }),
 *   status: Schema.Literals(["active", "inactive"]).annotate({ default: "active" })
 * }))
 * // Success: { type: "object", properties: { name: { type: "string", default: "John Doe" }, status: { type: "string", default: "active", enum: [...] } }, required: [...] }
 * ```
 *
 * @since 0.1.0
 */
export const requestedSchema = (schema: Schema.Top): Result.Result<RequestedSchema, UnsupportedElicitationSchema> =>
  Result.gen(function*() {
    const compiled = yield* Result.try({
      try: () => SchemaBridge.compile(schema),
      catch: (e) =>
        new UnsupportedElicitationSchema({ field: undefined, reason: e instanceof Error ? e.message : String(e) })
    })
    const properties = compiled.jsonSchema["properties"]
    if (compiled.wrapped || !isRecord(properties)) {
      return yield* Result.fail(
        new UnsupportedElicitationSchema({ field: undefined, reason: "it is not a struct of fields" })
      )
    }
    const out: Record<string, Json.JsonObject> = {}
    for (const [field, property] of Object.entries(properties)) {
      if (!isRecord(property))
        return yield* Result.fail(new UnsupportedElicitationSchema({ field, reason: "it has no JSON Schema" }))
      out[field] = yield* primitive(field, property, enumNamesOf(schema.ast, field))
    }
    const required = compiled.jsonSchema["required"]
    return {
      type: "object" as const,
      properties: out,
      ...(isStringArray(required) && required.length > 0 ? { required } : {})
    }
  })
