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
import { Effect, Result } from "effect"
import { InputError, InvalidJsonSchema, type Issue, preview } from "./InputError.ts"
import {
  type Check,
  compileRegExp,
  describe,
  equal as equalTo,
  escapeToken,
  isRecord,
  noAlternative,
  numberCheck,
  own,
  type Path,
  readers,
  resolvePointer,
  stringCheck,
  typeOf,
  valueMisses
} from "./internal/jsonSchemaValues.ts"
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

// Both bounds keep recursion far from the JS stack limit, so a hostile schema or value yields an
// issue instead of a RangeError.
const MAX_VALUE_DEPTH = 128
const MAX_SCHEMA_DEPTH = 256

const show = (value: unknown): string => preview(value)

const equal = (a: unknown, b: unknown): boolean => equalTo(a, b, MAX_VALUE_DEPTH)

interface Compiler {
  readonly root: unknown
  readonly problems: Array<InvalidJsonSchema>
  readonly refs: Map<string, Check>
  readonly trustPatterns: boolean
  // `$ref` targets entered since the last step into a child value: meeting one again is a cycle
  // that would never consume input.
  sameValue: Set<string>
}

const accept: Check = () => {}

const compileRef = (ref: string, pointer: string, c: Compiler, depth: number): Check => {
  if (!ref.startsWith("#/") && ref !== "#") return accept // external or anchor reference: not fetched, so unchecked
  if (c.sameValue.has(ref)) {
    c.problems.push(new InvalidJsonSchema({ pointer, reason: `$ref ${JSON.stringify(ref)} refers back to itself without consuming any input` }))
    return accept
  }
  const known = c.refs.get(ref)
  if (known !== undefined) return known
  const target = resolvePointer(c.root, ref)
  if (Result.isFailure(target)) {
    c.problems.push(new InvalidJsonSchema({ pointer, reason: target.failure }))
    return accept
  }
  // The compile-time check above misses a cycle first entered through a child; at run time the same
  // `path` array reaching the same reference again means no input was consumed in between.
  const active = new Set<Path>()
  let inner: Check = accept
  const guarded: Check = (v, p, o, d) => {
    if (active.has(p)) return void o.push({ path: p, message: `cannot be checked: $ref ${JSON.stringify(ref)} loops without consuming input` })
    active.add(p)
    inner(v, p, o, d)
    active.delete(p)
  }
  c.refs.set(ref, guarded)
  c.sameValue.add(ref)
  inner = compileNode(target.success, ref, c, depth + 1)
  c.sameValue.delete(ref)
  return guarded
}

// A subschema applied to a child value (a property, an item): a `$ref` cycle through it is fine.
const compileChild = (node: unknown, pointer: string, c: Compiler, depth: number): Check => {
  const saved = c.sameValue
  c.sameValue = new Set()
  const check = compileNode(node, pointer, c, depth + 1)
  c.sameValue = saved
  return check
}

const runs = (check: Check, value: unknown, path: Path, depth: number): Array<Issue> => {
  const out: Array<Issue> = []
  check(value, path, out, depth)
  return out
}

const compileAlternatives = (key: "anyOf" | "oneOf", list: ReadonlyArray<unknown>, pointer: string, c: Compiler, depth: number): Check => {
  const branches = list.map((branch, i) => compileNode(branch, `${pointer}/${key}/${i}`, c, depth + 1))
  const words = list.map(describe)
  const expected = words.every((w) => w !== undefined) ? Words.orList([...new Set(words)]) : `a value matching one of ${list.length} alternatives`
  return (value, path, out, d) => {
    const results = branches.map((branch) => runs(branch, value, path, d))
    const matched = results.filter((r) => r.length === 0).length
    if (key === "oneOf" && matched > 1) {
      out.push({ path, message: Words.oneOfIssue(matched, value) })
      return
    }
    if (matched > 0) return
    out.push(...noAlternative(results, path, value, expected))
  }
}

const compileNode = (node: unknown, pointer: string, c: Compiler, depth: number): Check => {
  const problem = (at: string, reason: string): undefined => void c.problems.push(new InvalidJsonSchema({ pointer: `${pointer}/${at}`, reason }))
  if (node === true) return accept
  if (node === false) return (value, path, out) => out.push({ path, message: `no value is allowed here, got ${show(value)}` })
  if (!isRecord(node) || depth > MAX_SCHEMA_DEPTH) {
    const reason = isRecord(node) ? `nests deeper than ${MAX_SCHEMA_DEPTH} levels` : `a schema must be an object or a boolean, got ${show(node)}`
    c.problems.push(new InvalidJsonSchema({ pointer, reason }))
    return accept
  }
  // Keywords are read from a prototype-free copy: a schema saying nothing about `constructor`
  // must not find `Object.prototype.constructor` there.
  const s: Readonly<Record<string, unknown>> = Object.assign(Object.create(null) as Record<string, unknown>, node)
  const gates: Array<Check> = [] // type/enum/const: when one fails, the keyword checks below would only repeat it
  const checks: Array<Check> = []
  const keywords = readers(s, problem)
  const count = keywords.count
  const schemaList = (key: string): ReadonlyArray<unknown> | undefined => {
    const v = s[key]
    if (v === undefined || (Array.isArray(v) && v.length > 0)) return v
    return problem(key, "must be a non-empty array of schemas")
  }
  const valueMiss = (path: Path, wanted: ReadonlyArray<unknown>, got: unknown, message: string): Issue => {
    const issue = { path, message }
    valueMisses.set(issue, { wanted, got })
    return issue
  }

  if (s["$ref"] !== undefined) {
    if (typeof s["$ref"] === "string") checks.push(compileRef(s["$ref"], `${pointer}/$ref`, c, depth))
    else problem("$ref", "must be a string")
  }

  const nullable = s["nullable"] === true // OpenAPI 3.0 spelling of "or null", still common on the wire
  if (s["type"] !== undefined) {
    const raw = s["type"]
    const names: ReadonlyArray<unknown> = typeof raw === "string" ? [raw] : Array.isArray(raw) ? raw : []
    const unknown = names.find((n) => typeof n === "string" && typeOf(n) === undefined)
    const tests = names.flatMap((n) => [typeOf(n)].filter((t) => t !== undefined))
    if (typeof unknown === "string") problem("type", `unknown type ${JSON.stringify(unknown)}`)
    else if (tests.length === 0 || tests.length !== names.length) problem("type", `must be a type name or an array of them, got ${show(raw)}`)
    else {
      const words = Words.orList(tests.map(([w]) => w).concat(nullable && !names.includes("null") ? ["null"] : []))
      gates.push((value, path, out) => {
        if (!tests.some(([, test]) => test(value))) out.push({ path, message: `expected ${words}, got ${show(value)}` })
      })
    }
  }
  if (s["enum"] !== undefined) {
    const options = s["enum"]
    if (!Array.isArray(options)) problem("enum", "must be an array")
    else {
      gates.push((value, path, out) => {
        if (!options.some((o) => equal(o, value))) out.push(valueMiss(path, options, value, `expected ${Words.values(options)}, got ${show(value)}`))
      })
    }
  }
  if ("const" in s) {
    const expected = s["const"]
    gates.push((value, path, out) => {
      if (!equal(expected, value)) out.push(valueMiss(path, [expected], value, `expected ${show(expected)}, got ${show(value)}`))
    })
  }

  checks.push(numberCheck(keywords), stringCheck(keywords, c.trustPatterns))

  // arrays; draft-07 tuples wrote `items` as an array and the rest under `additionalItems`
  const items = s["items"]
  const tupleForm = Array.isArray(items)
  const prefixKey = tupleForm ? "items" : "prefixItems"
  const prefix = (Array.isArray(items) ? items : schemaList("prefixItems") ?? [])
    .map((item, i) => compileChild(item, `${pointer}/${prefixKey}/${i}`, c, depth))
  const restKey = tupleForm ? "additionalItems" : "items"
  const rest = s[restKey] === undefined ? undefined : compileChild(s[restKey], `${pointer}/${restKey}`, c, depth)
  const minItems = count("minItems")
  const maxItems = count("maxItems")
  const unique = s["uniqueItems"] === true
  checks.push((value, path, out, d) => {
    if (!Array.isArray(value)) return
    if ((minItems !== undefined && value.length < minItems) || (maxItems !== undefined && value.length > maxItems)) {
      out.push({ path, message: Words.lengthIssue(value, minItems, maxItems) })
    }
    if (unique && value.some((x, i) => value.findIndex((y) => equal(x, y)) !== i)) out.push({ path, message: "expected items to be unique" })
    if (d >= MAX_VALUE_DEPTH) return void out.push({ path, message: `nests deeper than ${MAX_VALUE_DEPTH} levels` })
    value.forEach((item, i) => (prefix[i] ?? rest)?.(item, [...path, i], out, d + 1))
  })

  // objects
  const properties = s["properties"]
  const propertyChecks = new Map<string, Check>()
  // The values a field must hold when its schema is a `const`/`enum` (a `_tag`): missing, it is a miss.
  const fixedValues = new Map<string, ReadonlyArray<unknown>>()
  if (properties !== undefined) {
    if (!isRecord(properties)) problem("properties", "must be an object of schemas")
    else {
      for (const [key, sub] of Object.entries(properties)) {
        propertyChecks.set(key, compileChild(sub, `${pointer}/properties/${escapeToken(key)}`, c, depth))
        const fixed = !isRecord(sub) ? undefined : Object.hasOwn(sub, "const") ? [sub["const"]] : own(sub, "enum")
        if (Array.isArray(fixed)) fixedValues.set(key, fixed)
      }
    }
  }
  const required = s["required"]
  const requiredKeys = required === undefined ? [] : Array.isArray(required) && required.every((k) => typeof k === "string") ? required : undefined
  if (requiredKeys === undefined) problem("required", "must be an array of strings")
  const patterns: Array<readonly [RegExp, Check]> = []
  const patternProperties = s["patternProperties"]
  if (patternProperties !== undefined && c.trustPatterns) {
    if (!isRecord(patternProperties)) problem("patternProperties", "must be an object of schemas")
    else {
      for (const [source, sub] of Object.entries(patternProperties)) {
        const at = `patternProperties/${escapeToken(source)}`
        const re = compileRegExp(source)
        if (Result.isFailure(re)) problem(at, re.failure)
        else patterns.push([re.success, compileChild(sub, `${pointer}/${at}`, c, depth)])
      }
    }
  }
  // Untrusted patterns are not run, so which keys they claim is unknown: `additionalProperties` then
  // judges no key outside `properties` rather than refuse one a pattern would have taken.
  const additional = s["additionalProperties"] === undefined || (patternProperties !== undefined && !c.trustPatterns)
    ? undefined
    : compileChild(s["additionalProperties"], `${pointer}/additionalProperties`, c, depth)
  const minProperties = count("minProperties")
  const maxProperties = count("maxProperties")
  checks.push((value, path, out, d) => {
    if (!isRecord(value)) return
    const keys = Object.keys(value)
    for (const key of requiredKeys ?? []) {
      if (Object.hasOwn(value, key)) continue
      const fixed = fixedValues.get(key)
      out.push(fixed === undefined ? { path: [...path, key], message: Words.MISSING } : valueMiss([...path, key], fixed, undefined, Words.MISSING))
    }
    if ((minProperties !== undefined && keys.length < minProperties) || (maxProperties !== undefined && keys.length > maxProperties)) {
      out.push({ path, message: Words.lengthIssue(value, minProperties, maxProperties) })
    }
    if (d >= MAX_VALUE_DEPTH) return void out.push({ path, message: `nests deeper than ${MAX_VALUE_DEPTH} levels` })
    for (const key of keys) {
      const at = [...path, key]
      const declared = propertyChecks.get(key)
      declared?.(value[key], at, out, d + 1)
      const matching = patterns.length === 0 ? patterns : patterns.filter(([re]) => re.test(key))
      for (const [, check] of matching) check(value[key], at, out, d + 1)
      if (declared === undefined && matching.length === 0 && additional !== undefined) {
        const before = out.length
        additional(value[key], at, out, d + 1)
        // `additionalProperties: false` fails with a vague "no value allowed"; say what is wrong instead.
        if (s["additionalProperties"] === false && out.length > before) out.splice(before, out.length - before, { path: at, message: Words.UNEXPECTED })
      }
    }
  })

  // combinators
  const anyOf = schemaList("anyOf")
  if (anyOf !== undefined) checks.push(compileAlternatives("anyOf", anyOf, pointer, c, depth))
  const oneOf = schemaList("oneOf")
  if (oneOf !== undefined) checks.push(compileAlternatives("oneOf", oneOf, pointer, c, depth))
  for (const [i, sub] of (schemaList("allOf") ?? []).entries()) checks.push(compileNode(sub, `${pointer}/allOf/${i}`, c, depth + 1))
  if (s["not"] !== undefined) {
    const excluded = compileNode(s["not"], `${pointer}/not`, c, depth + 1)
    checks.push((value, path, out, d) => {
      if (runs(excluded, value, path, d).length === 0) out.push({ path, message: `matches a schema it must not match, got ${show(value)}` })
    })
  }
  if (s["if"] !== undefined) {
    const test = compileNode(s["if"], `${pointer}/if`, c, depth + 1)
    const then = s["then"] === undefined ? accept : compileNode(s["then"], `${pointer}/then`, c, depth + 1)
    const otherwise = s["else"] === undefined ? accept : compileNode(s["else"], `${pointer}/else`, c, depth + 1)
    checks.push((value, path, out, d) => (runs(test, value, path, d).length === 0 ? then : otherwise)(value, path, out, d))
  }

  return (value, path, out, d) => {
    if (nullable && value === null) return
    const before = out.length
    for (const gate of gates) gate(value, path, out, d)
    if (out.length > before) return
    for (const check of checks) check(value, path, out, d)
  }
}

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
export const fromJsonSchema = (schema: unknown, options?: FromJsonSchemaOptions): Effect.Effect<JsonDecoder, InvalidJsonSchema> =>
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
export const compileJsonSchema = (schema: unknown, options?: FromJsonSchemaOptions): Result.Result<JsonDecoder, InvalidJsonSchema> => {
    const c: Compiler = { root: schema, problems: [], refs: new Map(), sameValue: new Set(["#"]), trustPatterns: options?.trustPatterns === true }
    // The net under a validator that is meant never to throw: a getter on a hostile object still could.
    const built = Result.try({
      try: () => compileNode(schema, "#", c, 0),
      catch: (cause) => new InvalidJsonSchema({ pointer: "#", reason: Words.unreadable(cause) })
    })
    if (Result.isFailure(built)) return Result.fail(built.failure)
    const first = c.problems[0]
    if (first !== undefined) return Result.fail(first)
    const check = built.success
    return Result.succeed((input: unknown) =>
      Effect.suspend(() => {
        const issues = Result.try({
          try: () => runs(check, input, [], 0),
          catch: (cause): Array<Issue> => [{ path: [], message: Words.unreadable(cause) }]
        })
        const found = Result.merge(issues)
        const [head, ...tail] = found
        return head === undefined ? Effect.succeed(input) : Effect.fail(new InputError({ issues: [head, ...tail] }))
      })
    )
}
