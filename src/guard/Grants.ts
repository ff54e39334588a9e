/**
 * Grants projected onto the lock: the tool definitions a guard serves, each the upstream's own with
 * the guard file's restrictions applied.
 *
 * A served tool keeps the upstream's name (the caller speaks the protocol, not a shell), its
 * description, and its `_meta` verbatim; its input schema is rebuilt from the lock through
 * `Fields`, the same reading the command line types its flags from, with each restriction narrowing
 * one argument — so an agent is told the narrowed schema structurally, and a shell's `--help` tells
 * the same bounds — and each object in it closed to keys it does not name, unless the grant lets
 * them through (a key the reviewed schema does not name may be an alias the upstream reads). Denied tools and tools the file does not name are both absent: listing a tool
 * that will be refused teaches an agent a call it cannot make. Nothing here loads MCP.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Fields from "../core/Fields.ts"
import type * as Json from "../core/Json.ts"
import { compileJsonSchema, type JsonDecoder } from "../core/JsonSchemaDecoder.ts"
import * as GuardFile from "./GuardFile.ts"
import type * as GuardLock from "./GuardLock.ts"
import { close } from "./internal/closed.ts"
import * as Conditions from "./internal/conditions.ts"

/**
 * A tool a guard serves: the upstream's definition from the lock, its restricted fields and the
 * input schema written from them, and the check every call's arguments pass before they are sent.
 *
 * @example
 * ```ts
 * import type { Grants } from "effect-surface/guard"
 * declare const granted: Grants.Granted
 * const listed = { name: granted.name, description: granted.description, inputSchema: granted.inputSchema }
 * ```
 *
 * @since 0.1.0
 */
export interface Granted {
  readonly name: string
  readonly title: string | undefined
  readonly description: string
  readonly annotations: Json.JsonObject | undefined
  readonly meta: Json.JsonObject | undefined
  readonly locked: GuardLock.Locked
  readonly fields: Fields.Field
  readonly inputSchema: Json.JsonObject
  /** The served schema (the upstream's patterns not run), then the file's own patterns. */
  readonly check: JsonDecoder
  /** The reason the first request guard that holds for checked arguments gives, if one does. */
  readonly refuses: (args: unknown) => string | undefined
}

/**
 * A grant that cannot be kept: a restriction on an argument the tool does not have, of a kind that
 * argument cannot take, or that leaves no value. `at` names the field of the guard file.
 *
 * @example
 * ```ts
 * import { Grants } from "effect-surface/guard"
 * new Grants.GrantError({ at: "grants.get-sum.restrict.c", reason: "get-sum has no argument c" }).message
 * // "grants.get-sum.restrict.c cannot be kept: get-sum has no argument c"
 * ```
 *
 * @since 0.1.0
 */
export class GrantError
  extends Schema.TaggedError<GrantError>()("GrantError", { at: Schema.String, reason: Schema.String })
{
  override get message(): string {
    return `${this.at} cannot be kept: ${this.reason}`
  }
}

const intersect = <A>(
  allowed: ReadonlyArray<A> | undefined,
  wanted: ReadonlyArray<unknown>,
  is: (u: unknown) => u is A
): ReadonlyArray<A> => wanted.filter(is).filter((value) => allowed === undefined || allowed.includes(value))

const isString = (u: unknown): u is string => typeof u === "string"
const isObject = (json: Json.Json): json is Json.JsonObject =>
  typeof json === "object" && json !== null && !Array.isArray(json)
const isNumber = (u: unknown): u is number => typeof u === "number"

const tighter = (
  a: number | undefined,
  b: number | undefined,
  pick: (x: number, y: number) => number
): number | undefined => a === undefined ? b : b === undefined ? a : pick(a, b)

const restrictText = (
  field: Fields.Text,
  r: GuardFile.Restriction,
  fail: (reason: string) => GrantError
): Result.Result<Fields.Field, GrantError> => {
  if (r.minimum !== undefined || r.maximum !== undefined)
    return Result.fail(fail("minimum and maximum apply to numbers; this argument is a string"))
  const maxLength = tighter(field.maxLength, r.maxLength, Math.min)
  const values = (r.enum === undefined ? field.enum : intersect(field.enum, r.enum, isString))
    ?.filter((value) => maxLength === undefined || [...value].length <= maxLength)
  if (values !== undefined && values.length === 0)
    return Result.fail(fail("no value of the enum is left that the argument accepts"))
  // A pattern beside the upstream's own is a second condition, not a replacement.
  const [pattern, rest] = r.pattern === undefined || field.pattern === undefined
    ? [field.pattern ?? r.pattern, field.rest]
    : [field.pattern, {
      ...field.rest,
      allOf: [...(Array.isArray(field.rest["allOf"]) ? field.rest["allOf"] : []), { pattern: r.pattern }]
    }]
  return Result.succeed({ ...field, enum: values, maxLength, pattern, rest })
}

const restrictNumber = (
  field: Fields.Numeric,
  r: GuardFile.Restriction,
  fail: (reason: string) => GrantError
): Result.Result<Fields.Field, GrantError> => {
  if (r.maxLength !== undefined || r.pattern !== undefined)
    return Result.fail(fail("maxLength and pattern apply to strings; this argument is a number"))
  const minimum = tighter(field.minimum, r.minimum, Math.max)
  const maximum = tighter(field.maximum, r.maximum, Math.min)
  if (minimum !== undefined && maximum !== undefined && minimum > maximum)
    return Result.fail(fail(`it leaves no value: at least ${minimum} and at most ${maximum}`))
  // An enum keeps only what the bounds leave, so the served schema never lists a value it refuses.
  const values = (r.enum === undefined ? field.enum : intersect(field.enum, r.enum, isNumber))
    ?.filter((n) => (!field.integer || Number.isInteger(n)) && (minimum ?? n) <= n && n <= (maximum ?? n))
  if (values !== undefined && values.length === 0)
    return Result.fail(fail("no value of the enum is left that the argument accepts"))
  return Result.succeed({ ...field, enum: values, minimum, maximum })
}

const restrictField = (
  field: Fields.Field,
  r: GuardFile.Restriction,
  fail: (reason: string) => GrantError
): Result.Result<Fields.Field, GrantError> => {
  switch (field._tag) {
    case "Text":
      return restrictText(field, r, fail)
    case "Numeric":
      return restrictNumber(field, r, fail)
    case "Truth": {
      if (Object.keys(r).some((key) => key !== "enum"))
        return Result.fail(fail("a boolean argument takes only an enum"))
      const values = (r.enum ?? [true, false]).filter((v) => typeof v === "boolean")
      return values.length === 0 ? Result.fail(fail("no value in its enum is a boolean"))
        : Result.succeed({ ...field, rest: { ...field.rest, enum: values } })
    }
    default:
      return Result.fail(
        fail(
          `only a string, number or boolean argument can be restricted; this one is ${
            field._tag === "List" ? "an array" : "an object or a union"
          }`
        )
      )
  }
}

const restrict = (
  tool: GuardLock.Locked,
  restrictions: { readonly [argument: string]: GuardFile.Restriction }
): Result.Result<Fields.Field, GrantError> => {
  let fields = Fields.fromJsonSchema(tool.inputSchema)
  for (const [argument, r] of Object.entries(restrictions)) {
    const fail = (reason: string) => new GrantError({ at: `grants.${tool.name}.restrict.${argument}`, reason })
    const group = fields
    const index = group._tag === "Group" ? group.properties.findIndex((p) => p.name === argument) : -1
    const property = group._tag === "Group" ? group.properties[index] : undefined
    if (group._tag !== "Group" || property === undefined)
      return Result.fail(fail(`the locked ${tool.name} has no argument ${argument}`))
    const narrowed = restrictField(property.field, r, fail)
    if (Result.isFailure(narrowed)) return narrowed
    const properties = group.properties.map((p, i) => i === index ? { name: p.name, field: narrowed.success } : p)
    fields = { ...group, properties }
  }
  return Result.succeed(fields)
}

// The file's own patterns, run (they are trusted as the file is); the upstream's are not (a remote
// pattern can be made to run for ever), and the upstream checks them itself.
const patternCheck = (
  restrictions: { readonly [argument: string]: GuardFile.Restriction }
): JsonDecoder | undefined => {
  const patterns = Object.entries(restrictions).flatMap(([argument, r]) =>
    r.pattern === undefined ? [] : [[argument, { pattern: r.pattern }] as const]
  )
  if (patterns.length === 0) return undefined
  return Result.getOrUndefined(
    compileJsonSchema({ type: "object", properties: Object.fromEntries(patterns) }, { trustPatterns: true })
  )
}

// Keys the locked schema does not name are refused unless the grant lets them through.
const closedTo = (
  tool: GuardLock.Locked,
  schema: Json.JsonObject,
  allowExtraKeys: GuardFile.Terms["allowExtraKeys"]
): Result.Result<Json.JsonObject, GrantError> => {
  if (allowExtraKeys === true) return Result.succeed(schema)
  const open = allowExtraKeys === false ? [] : allowExtraKeys
  const properties = tool.inputSchema["properties"]
  const named = properties !== undefined && isObject(properties) ? Object.keys(properties) : []
  const unknown = open.find((name) => !named.includes(name))
  if (unknown !== undefined) {
    return Result.fail(
      new GrantError({
        at: `grants.${tool.name}.allow-extra-keys`,
        reason: `the locked ${tool.name} has no argument ${unknown}`
      })
    )
  }
  return Result.mapError(close(schema, new Set(open)), ({ keyword, pointer }) =>
    new GrantError({
      at: `grants.${tool.name}`,
      reason: `its locked input schema at ${pointer} composes an object with ${keyword}, so which keys it names ` +
        `cannot be told: say in "allow-extra-keys" where keys it does not name may pass`
    }))
}

const grant = (tool: GuardLock.Locked, terms: GuardFile.Terms): Result.Result<Granted, GrantError> =>
  Result.flatMap(restrict(tool, terms.restrict), (fields): Result.Result<Granted, GrantError> => {
    const written = Fields.toJsonSchema(fields)
    const closed = closedTo(tool, isObject(written) ? written : tool.inputSchema, terms.allowExtraKeys)
    if (Result.isFailure(closed)) return Result.fail(closed.failure)
    const inputSchema = closed.success
    const served = compileJsonSchema(inputSchema)
    if (Result.isFailure(served)) {
      return Result.fail(
        new GrantError({
          at: `grants.${tool.name}`,
          reason: `its locked input schema cannot be checked (${served.failure.message})`
        })
      )
    }
    const patterns = patternCheck(terms.restrict)
    const check: JsonDecoder = patterns === undefined ? served.success : (args) =>
      Effect.flatMap(served.success(args), patterns)
    const properties = tool.inputSchema["properties"]
    const named = properties !== undefined && isObject(properties) ? Object.keys(properties) : []
    const refuses = Conditions.compile(`grants.${tool.name}`, terms.failWhen, named)
    if (Result.isFailure(refuses)) return Result.fail(new GrantError(refuses.failure))
    return Result.succeed({
      name: tool.name,
      title: tool.title,
      description: tool.description ?? "",
      annotations: tool.annotations,
      meta: tool._meta,
      locked: tool,
      fields,
      inputSchema,
      check,
      refuses: refuses.success
    })
  })

/**
 * The tools a guard serves: every tool the file grants that the lock holds, in the lock's order,
 * restrictions applied; and the granted names the lock does not hold (the lock is out of date).
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { Grants } from "effect-surface/guard"
 * import type { GuardFile, GuardLock } from "effect-surface/guard"
 *
 * declare const file: GuardFile.GuardFile
 * declare const lock: GuardLock.Lock
 * const served = Result.map(Grants.project(file, lock), ({ granted }) => granted.map((tool) => tool.name))
 * ```
 *
 * @since 0.1.0
 */
export const project = (
  file: GuardFile.GuardFile,
  lock: GuardLock.Lock
): Result.Result<{ readonly granted: ReadonlyArray<Granted>; readonly missing: ReadonlyArray<string> }, GrantError> => {
  const granted: Array<Granted> = []
  for (const tool of lock.tools) {
    const terms = GuardFile.grantOf(file, tool.name)
    if (terms === undefined) continue
    const served = grant(tool, terms)
    if (Result.isFailure(served)) return Result.fail(served.failure)
    granted.push(served.success)
  }
  const missing = Object.keys(file.grants).filter((name) =>
    GuardFile.grantOf(file, name) !== undefined && !lock.tools.some((tool) => tool.name === name)
  )
  return Result.succeed({ granted, missing })
}
