/**
 * The one place a tool's Effect Schema meets the JSON Schema a host reads, and back.
 *
 * Effect ships the converter (`Schema.toJsonSchemaDocument`, draft 2020-12), so the engine is
 * bought; what this module owns is the glue hosts need, and it is load-bearing because Anthropic,
 * Gemini, Bedrock, Codex and Claude Desktop all read `tools/list`, and between them they reject
 * `additionalProperties`, `$ref`/`$defs`, `not`, a top level that is not an object. So the emitted
 * schema is reopened, dereferenced, bounded where recursive, free of `not`, and always an object at
 * the top, with a scalar, array or union wrapped under `value`. The decoder built beside it reads
 * the host's input with the very JSON codec that document describes, unwraps `value`, and words a
 * wrong field so a model can fix it. The reverse direction (a stranger's JSON Schema → a checker)
 * lives in `JsonSchemaDecoder.ts` and is re-exported here; both directions fail with one
 * `InputError`, worded alike (`expected "a" or "b", got "c"`, `expected at least 3 characters`).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { InputError, InvalidJsonSchema, type PathSegment, preview } from "./InputError.ts"
import * as Advertise from "./internal/advertise.ts"
import { toInputError } from "./internal/issues.ts"
import * as Words from "./internal/wording.ts"
import * as Json from "./Json.ts"
import { compileJsonSchema, type FromJsonSchemaOptions, fromJsonSchema } from "./JsonSchemaDecoder.ts"

/**
 * The refusal both directions fail with, and its helpers, re-exported from `InputError`.
 *
 * @example
 * ```ts
 * import { SchemaBridge } from "effect-surface"
 * SchemaBridge.formatPath(["user", "tags", 2]) // "user.tags[2]"
 * ```
 *
 * @since 0.1.0
 */
export {
  formatPath,
  InputError,
  InvalidJsonSchema,
  type Issue,
  type PathSegment,
  preview,
  withoutValues
} from "./InputError.ts"

/**
 * The reverse direction — a stranger's JSON Schema to a checker — re-exported from `JsonSchemaDecoder`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { SchemaBridge } from "effect-surface"
 * const program = Effect.gen(function*() {
 *   const decode = yield* SchemaBridge.fromJsonSchema({ type: "object", properties: { age: { type: "number" } } })
 *   return yield* decode({ age: 42 })
 * })
 * ```
 *
 * @since 0.1.0
 */
export { compileJsonSchema, fromJsonSchema, type FromJsonSchemaOptions, type JsonDecoder } from "./JsonSchemaDecoder.ts"

/**
 * How many recursive definitions are inlined along one path before the rest becomes `{}` (any
 * JSON). Hosts do not follow `$ref`, so recursion must be unrolled. The bound counts every
 * recursive definition entered along the path, whichever it is, so mutually recursive definitions
 * are bounded together rather than each on its own; and should the result still exceed a size
 * budget (a wide recursive type), fewer levels are shown. Values nested deeper are still checked
 * in full by the decoder.
 *
 * @example
 * ```ts
 * import { SchemaBridge } from "effect-surface"
 * const levels = SchemaBridge.RECURSION_DEPTH // 3: a tree advertises three levels of children, then `{}`
 * ```
 *
 * @since 0.1.0
 */
export const RECURSION_DEPTH = Advertise.RECURSION_DEPTH

/**
 * The JSON Schema (draft 2020-12) a host reads for a tool's input. Always an object at the top:
 * a scalar, array, union or other non-object input is advertised as `{ value: <schema> }`. Objects
 * are open, `$ref`s are inlined (recursion to `RECURSION_DEPTH`), `Schema.Number` is a plain number,
 * `Schema.optional` fields are not required and say `null` only if the inner schema accepts it (in
 * a `Schema.Option` too), and no input at all (`Schema.Void`, `Schema.Undefined`, omitted) is
 * `{"type":"object","properties":{}}`. `Schema.Never`, which Effect writes as `not: {}`, is
 * `{"description":"no value is accepted here"}`: a host that rejects `not` reads it, a model reads
 * the description, and the decoder still refuses any value; a union drops such an arm.
 *
 * There is no `$schema` key: MCP 2025-11-25 makes 2020-12 the default dialect for a schema without
 * one, and Gemini's function declarations refuse the keyword, so saying it only costs hosts.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SchemaBridge } from "effect-surface"
 * SchemaBridge.inputSchema(Schema.Finite)
 * // { type: "object", properties: { value: { type: "number" } }, required: ["value"] }
 * ```
 *
 * @since 0.1.0
 */
export const inputSchema = (schema?: Schema.Constraint): Json.JsonObject => Advertise.advertise(schema).jsonSchema

/**
 * A tool input compiled once: what to advertise, and how to read what the host sends back.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SchemaBridge } from "effect-surface"
 * const tool: SchemaBridge.Compiled<{ readonly name: string }> = SchemaBridge.compile(Schema.Struct({ name: Schema.String }))
 * tool.jsonSchema // { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
 * ```
 *
 * @since 0.1.0
 */
export interface Compiled<A, R = never> {
  readonly jsonSchema: Json.JsonObject
  /** the schema is advertised under `value`, and `decode` unwraps it */
  readonly wrapped: boolean
  readonly decode: (input: unknown) => Effect.Effect<A, InputError, R>
}

// Effect's parser recurses per level and overflows the stack on input nested some thousands deep;
// a host has no reason to send more than this, so it is refused as input rather than dying.
const MAX_INPUT_DEPTH = 128

// Recursive, but never deeper than the bound itself; every call's input passes through here.
const nestsTooDeep = (value: unknown, depth = 0): boolean => {
  if (typeof value !== "object" || value === null) return false
  if (depth >= MAX_INPUT_DEPTH) return true
  for (const child of Object.values(value)) {
    if (nestsTooDeep(child, depth + 1)) return true
  }
  return false
}

const inputError = (path: ReadonlyArray<PathSegment>, message: string): InputError =>
  new InputError({ issues: [{ path, message }] })

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

// Compiling walks the AST and the converter; a schema value is immutable, so once per schema is enough.
const compiled = new WeakMap<object, Compiled<unknown, unknown>>()

const sameJson = (a: Json.Json, b: Json.Json): boolean => JSON.stringify(a) === JSON.stringify(b)

const NOT_AN_OBJECT = { path: [], message: "expected an object, got null" } as const

const build = <S extends Schema.Constraint>(schema: S): Compiled<S["Type"], S["DecodingServices"]> => {
  const { jsonSchema, noInput, wrapped } = Advertise.advertise(schema)
  // `Schema.Struct({})` advertises exactly what a tool without input does, and is read like one.
  const { title: _title, description: _description, ...shape } = jsonSchema
  const fieldless = sameJson(shape, Advertise.emptyObject())
  const run = Schema.decodeUnknownEffect(Schema.toCodecJson(schema), { errors: "all", reportInput: true })
  type Decoded = Effect.Effect<S["Type"], InputError, S["DecodingServices"]>
  const read = (input: unknown, prefix: ReadonlyArray<PathSegment>): Decoded =>
    nestsTooDeep(input)
      ? Effect.fail(inputError(prefix, `nests deeper than ${MAX_INPUT_DEPTH} levels`))
      : Effect.mapError(run(input), (error) => toInputError(error.issue, prefix))
  const start = (input: unknown): Decoded => {
    // `null` is the JSON form of `undefined`; a no-input tool ignores whatever the host sent.
    if (noInput) return read(null, [])
    if (!wrapped) {
      // MCP lets a host omit `arguments`; for an object input that is `{}`.
      if (input === undefined || (input === null && fieldless)) return read({}, [])
      if (input !== null) return read(input, [])
      // `null` is not an object; the fields that `{}` would lack are named too, so one reply fixes both.
      return Effect.flatMap(
        Effect.result(read({}, [])),
        (result) =>
          Effect.fail(
            new InputError({ issues: [NOT_AN_OBJECT, ...(Result.isFailure(result) ? result.failure.issues : [])] })
          )
      )
    }
    if (!isRecord(input))
      return Effect.fail(inputError([], `expected an object with a "value" field, got ${preview(input)}`))
    if (!Object.hasOwn(input, "value")) return Effect.fail(inputError(["value"], Words.MISSING))
    return read(input["value"], ["value"])
  }
  // Reading the input's properties runs a getter or a Proxy trap, either of which can throw: it
  // happens inside the Effect, so `decode` itself never throws and the failure is an InputError.
  // (One suspended step rather than `Effect.try` flattened: this runs once per tool call.)
  const decode = (input: unknown): Decoded =>
    Effect.suspend(() => {
      try {
        return start(input)
      } catch (cause) {
        return Effect.fail(inputError([], Words.unreadable(cause)))
      }
    })
  return { jsonSchema, wrapped, decode }
}

const noInput: Compiled<void> = {
  jsonSchema: Advertise.emptyObject(),
  wrapped: false,
  decode: () => Effect.void
}

/**
 * Compile a tool's input schema once: the JSON Schema to advertise and the decoder for what the
 * host sends. The decoder unwraps `{ value }` when the schema was wrapped, reads the input with
 * `Schema.toCodecJson(schema)` (the codec the advertised document describes), treats omitted
 * arguments (`undefined`) as `{}`, and fails with an `InputError` naming every wrong field by its
 * path; `null` arguments are refused as not an object, naming the required fields too. No schema
 * at all, `Schema.Void` or `Schema.Undefined` is a tool without input: `{"type":"object","properties":{}}`,
 * and anything, `null` included, decodes to void (`Schema.Struct({})` reads `null` as `{}` too). `decode` never throws: input whose getters or
 * Proxy traps throw fails with an `InputError` too. Compiling the same schema value again returns
 * the first result.
 *
 * A schema with no JSON form at all (symbol property keys) is a programming error and throws here,
 * at boot, rather than at the first call.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SchemaBridge } from "effect-surface"
 * const tool = SchemaBridge.compile(Schema.Struct({ user: Schema.Struct({ age: Schema.Finite }) }))
 * tool.decode({ user: { age: "x" } }) // fails: value at "user.age": expected a number, got "x"
 * ```
 *
 * @since 0.1.0
 */
export function compile<S extends Schema.Constraint>(schema: S): Compiled<S["Type"], S["DecodingServices"]>
export function compile(schema?: undefined): Compiled<void>
export function compile<S extends Schema.Constraint>(
  schema?: S
): Compiled<S["Type"], S["DecodingServices"]> | Compiled<void> {
  if (schema === undefined) return noInput
  // One schema value has one `Type` and one set of services, so the entry stored for it fits it.
  const hit = compiled.get(schema) as Compiled<S["Type"], S["DecodingServices"]> | undefined
  if (hit !== undefined) return hit
  const out = build(schema)
  compiled.set(schema, out)
  return out
}

/**
 * Compile an input given as a raw JSON Schema (a plain tool, a proxied remote tool): advertised
 * verbatim — `$schema`, `$defs`, `additionalProperties: false` and all — and decoded by the reverse
 * checker, so a wrong field is named exactly as for an Effect Schema input. The top level must be an
 * object schema, because MCP advertises tool inputs as objects; omitted arguments read as `{}`.
 * With `checkedBy: "handler"` the schema is still compiled (so a broken one is refused) but the
 * arguments pass through unchecked, for a handler that checks them on its own path.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { SchemaBridge } from "effect-surface"
 * const tool = SchemaBridge.compileJson({ type: "object", properties: { id: { type: "string" } }, additionalProperties: false })
 * Result.isSuccess(tool) // true
 * ```
 *
 * @since 0.1.0
 */
export const compileJson = (
  schema: Json.JsonObject,
  options?: FromJsonSchemaOptions & { readonly checkedBy?: "face" | "handler" | undefined }
): Result.Result<Compiled<unknown>, InvalidJsonSchema> => {
  if (schema["type"] !== "object") {
    return Result.fail(
      new InvalidJsonSchema({ pointer: "#/type", reason: `a tool input must be an object schema ("type": "object")` })
    )
  }
  // Compiled either way, so a schema no call could pass is refused at boot whoever checks.
  return Result.map(compileJsonSchema(schema, options), (check): Compiled<unknown> => ({
    jsonSchema: schema,
    wrapped: false,
    decode: options?.checkedBy === "handler"
      ? (input) => Effect.succeed(input === undefined ? {} : input)
      : (input) => check(input === undefined ? {} : input)
  }))
}

/**
 * The decoder half of `compile`, for a caller that advertises elsewhere.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SchemaBridge } from "effect-surface"
 * const decode = SchemaBridge.decoder(Schema.Finite)
 * decode({ value: 42 }) // succeeds with 42
 * ```
 *
 * @since 0.1.0
 */
export const decoder = <S extends Schema.Constraint>(schema: S): Compiled<S["Type"], S["DecodingServices"]>["decode"] =>
  compile(schema).decode

/**
 * Serialize an answer once and read both arms off it (`content` text and `structuredContent`).
 * The same function as `Json.serialize`, offered here so a test can swap the whole bridge.
 *
 * @example
 * ```ts
 * import { SchemaBridge } from "effect-surface"
 * SchemaBridge.serialize(42) // Result.succeed({ text: "42", structured: { value: 42 } })
 * ```
 *
 * @since 0.1.0
 */
export const serialize = Json.serialize

/**
 * The bridge as a service: pure functions behind a `Context` key so a test can swap them.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { SchemaBridge } from "effect-surface"
 * const program = Effect.gen(function*() {
 *   const bridge = yield* SchemaBridge.SchemaBridge
 *   return bridge.inputSchema(Schema.Struct({ name: Schema.String }))
 * }).pipe(Effect.provide(SchemaBridge.SchemaBridge.layer))
 * ```
 *
 * @since 0.1.0
 */
export class SchemaBridge extends Context.Service<SchemaBridge, {
  readonly inputSchema: typeof inputSchema
  readonly compile: typeof compile
  readonly decoder: typeof decoder
  readonly fromJsonSchema: typeof fromJsonSchema
  readonly serialize: typeof serialize
}>()("effect-surface/SchemaBridge") {
  static readonly layer = Layer.succeed(
    SchemaBridge,
    SchemaBridge.of({ inputSchema, compile, decoder, fromJsonSchema, serialize })
  )
}
