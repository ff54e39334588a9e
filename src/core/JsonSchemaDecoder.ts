/**
 * Checking a value against a JSON Schema that somebody else wrote.
 *
 * A remote MCP server or a plain tool describes its input with a raw JSON Schema, not an Effect
 * Schema. The client checks the model's arguments against it before spending a request, so the
 * model hears which field is wrong, worded like the local decoder words it (`InputError`).
 *
 * It is a small hand-written validator rather than `SchemaRepresentation.fromJsonSchemaDocument`
 * because that importer refuses what it cannot translate (`if`/`then`/`else`, `contains`,
 * object-valued `enum`, patterns unless trusted). A stranger's schema must degrade to "checks
 * less", never to "cannot call the tool": keywords this module does not know are ignored (the
 * server still validates), an external `$ref` is not fetched and checks nothing, a pattern is not
 * run unless trusted (`FromJsonSchemaOptions`), and only a schema that is malformed where it
 * matters is refused, with an `InvalidJsonSchema` naming the spot.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { InputError, InvalidJsonSchema, type Issue } from "./InputError.ts"
import { compileNode, compiler, runs, synchronous } from "./internal/jsonSchemaCompile.ts"
import * as Words from "./internal/wording.ts"

/**
 * A checker built once from a JSON Schema: it returns the input untouched, or every issue found.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { SchemaBridge } from "effect-surface"
 * const decode: Effect.Effect<SchemaBridge.JsonDecoder, SchemaBridge.InvalidJsonSchema> = SchemaBridge.fromJsonSchema({ type: "string" })
 * ```
 *
 * @since 0.1.0
 */
export type JsonDecoder = (input: unknown) => Effect.Effect<unknown, InputError>

/**
 * How far to trust the schema a checker is built from.
 *
 * `trustPatterns` (default `false`): run `pattern` and `patternProperties`. A pattern is a regular
 * expression written by whoever wrote the schema, and JavaScript's engine backtracks: `^(a+)+$`
 * takes seconds on a 30-character string and blocks the event loop meanwhile. So by default a
 * remote schema's patterns check nothing (the server still validates), and `additionalProperties`
 * beside `patternProperties` judges no key outside `properties`. Set it for a schema you wrote.
 *
 * @example
 * ```ts
 * import { SchemaBridge } from "effect-surface"
 * const options: SchemaBridge.FromJsonSchemaOptions = { trustPatterns: true }
 * SchemaBridge.fromJsonSchema({ type: "string", pattern: "^[a-z]+$" }, options)
 * ```
 *
 * @since 0.1.0
 */
export interface FromJsonSchemaOptions {
  readonly trustPatterns?: boolean | undefined
}

/**
 * Build a checker from a raw JSON Schema (draft 2020-12, with draft-07 and OpenAPI 3.0 spellings
 * understood). The checker returns its input unchanged or fails with an `InputError` naming each
 * wrong field, worded as the Effect Schema decoder words it; a schema it cannot use fails here with
 * `InvalidJsonSchema`. Neither ever throws.
 *
 * Understood: `type` (and arrays of types), `nullable`, `enum`, `const`, `properties`, `required`,
 * `additionalProperties`, `min/maxProperties`, `items`, `prefixItems`, `additionalItems`,
 * `min/maxItems`, `uniqueItems`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
 * `multipleOf` (exact on the decimals written, so 0.3 is a multiple of 0.1), `min/maxLength`,
 * `anyOf`, `oneOf`, `allOf`, `not`, `if`/`then`/`else`, and `$ref` to any JSON pointer in the
 * document (`#/$defs/…`, `#/definitions/…`), recursion included; `pattern` and
 * `patternProperties` only with `trustPatterns` (see `FromJsonSchemaOptions`). Anything else
 * (`format`, `contains`, `$dynamicRef`, vendor keywords, external `$ref`s) is ignored, which means
 * it checks nothing.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { SchemaBridge } from "effect-surface"
 * const program = Effect.gen(function*() {
 *   const decode = yield* SchemaBridge.fromJsonSchema({ type: "object", properties: { age: { type: "number" } } })
 *   return yield* decode({ age: "x" }) // fails: value at "age": expected a number, got "x"
 * })
 * ```
 *
 * @since 0.1.0
 */
export const fromJsonSchema = (
  schema: unknown,
  options?: FromJsonSchemaOptions
): Effect.Effect<JsonDecoder, InvalidJsonSchema> =>
  Effect.suspend(() => Effect.fromResult(compileJsonSchema(schema, options)))

/**
 * `fromJsonSchema` as a plain `Result`, for a caller that resolves synchronously (a tool table).
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { SchemaBridge } from "effect-surface"
 * const decoder = SchemaBridge.compileJsonSchema({ type: "object", properties: { id: { type: "string" } } })
 * Result.isSuccess(decoder) // true
 * ```
 *
 * @since 0.1.0
 */
export const compileJsonSchema = (
  schema: unknown,
  options?: FromJsonSchemaOptions
): Result.Result<JsonDecoder, InvalidJsonSchema> => {
  const c = compiler(schema, options?.trustPatterns === true)
  // The net under a validator that is meant never to throw: a getter on a hostile object still could.
  const built = Result.try({
    try: () => compileNode(schema, "#", c, 0),
    catch: (cause) => new InvalidJsonSchema({ pointer: "#", reason: Words.unreadable(cause) })
  })
  if (Result.isFailure(built)) return Result.fail(built.failure)
  const first = c.problems[0]
  if (first !== undefined) return Result.fail(first)
  const check = built.success
  const checkNow = (input: unknown): InputError | undefined => {
    let issues: Array<Issue>
    try {
      issues = runs(check, input, [], 0)
    } catch (cause) {
      issues = [{ path: [], message: Words.unreadable(cause) }]
    }
    const [head] = issues
    return head === undefined ? undefined : new InputError({ issues: [head, ...issues.slice(1)] })
  }
  const decoder: JsonDecoder = (input) =>
    Effect.suspend(() => {
      const error = checkNow(input)
      return error === undefined ? Effect.succeed(input) : Effect.fail(error)
    })
  synchronous.set(decoder, checkNow)
  return Result.succeed(decoder)
}
