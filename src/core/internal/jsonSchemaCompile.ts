/**
 * The JSON Schema checker's compiler: one schema node becomes one `Check`, keyword group by keyword
 * group, each group a function over the node being compiled (`Node`) and the document-wide state
 * (`Compiler`). Problems are collected rather than thrown, in keyword order, so the caller can
 * refuse the schema with the first one.
 *
 * @internal
 */
import type * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { type InputError, InvalidJsonSchema, type Issue, preview } from "../InputError.ts"
import {
  type Check,
  compileRegExp,
  describe,
  equal as equalTo,
  escapeToken,
  isRecord,
  MAX_VALUE_DEPTH,
  noAlternative,
  numberCheck,
  own,
  type Path,
  readers,
  resolvePointer,
  stringCheck,
  typeGate,
  valueGates,
  valueMiss
} from "./jsonSchemaValues.ts"
import * as Words from "./wording.ts"

// Keeps recursion far from the JS stack limit, so a hostile schema yields a problem instead of a
// RangeError (MAX_VALUE_DEPTH does the same for values).
const MAX_SCHEMA_DEPTH = 256

const show = (value: unknown): string => preview(value)

const equal = (a: unknown, b: unknown): boolean => equalTo(a, b, MAX_VALUE_DEPTH)

/** What compiling one document shares across its nodes. */
export interface Compiler {
  readonly root: unknown
  readonly problems: Array<InvalidJsonSchema>
  readonly refs: Map<string, Check>
  readonly trustPatterns: boolean
  // `$ref` targets entered since the last step into a child value: meeting one again is a cycle
  // that would never consume input.
  sameValue: Set<string>
}

/** One schema object being compiled: its keywords (read from a prototype-free copy), where it is, how deep. */
interface Node {
  readonly s: Readonly<Record<string, unknown>>
  readonly pointer: string
  readonly c: Compiler
  readonly depth: number
  readonly keywords: ReturnType<typeof readers>
}

/** A fresh compiler for the document `root`. */
export const compiler = (root: unknown, trustPatterns: boolean): Compiler => ({
  root,
  problems: [],
  refs: new Map(),
  sameValue: new Set(["#"]),
  trustPatterns
})

/**
 * Each checker `compileJsonSchema` built, by its plain form: `undefined` when the input passes, else
 * the `InputError` the checker fails with. For a caller on a hot path that runs it without an Effect.
 */
export const synchronous = new WeakMap<
  (input: unknown) => Effect.Effect<unknown, InputError>,
  (input: unknown) => InputError | undefined
>()

/** A checker's plain form (see `synchronous`); `undefined` for one built elsewhere. */
export const checkerOf = (
  decoder: (input: unknown) => Effect.Effect<unknown, InputError>
): ((input: unknown) => InputError | undefined) | undefined => synchronous.get(decoder)

/** Run a check from the top and collect what it found. */
export const runs = (check: Check, value: unknown, path: Path, depth: number): Array<Issue> => {
  const out: Array<Issue> = []
  check(value, path, out, depth)
  return out
}

const accept: Check = () => {}

const problem = (n: Node, at: string, reason: string): undefined => n.keywords.problem(at, reason)

const schemaList = (n: Node, key: string): ReadonlyArray<unknown> | undefined => {
  const v = n.s[key]
  if (v === undefined || (Array.isArray(v) && v.length > 0)) return v
  return problem(n, key, "must be a non-empty array of schemas")
}

const compileRef = (ref: string, pointer: string, c: Compiler, depth: number): Check => {
  if (!ref.startsWith("#/") && ref !== "#") return accept // external or anchor reference: not fetched, so unchecked
  if (c.sameValue.has(ref)) {
    const reason = `$ref ${JSON.stringify(ref)} refers back to itself without consuming any input`
    c.problems.push(new InvalidJsonSchema({ pointer, reason }))
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
    if (active.has(p)) {
      return void o.push({
        path: p,
        message: `cannot be checked: $ref ${JSON.stringify(ref)} loops without consuming input`
      })
    }
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

const compileAlternatives = (key: "anyOf" | "oneOf", list: ReadonlyArray<unknown>, n: Node): Check => {
  const branches = list.map((branch, i) => compileNode(branch, `${n.pointer}/${key}/${i}`, n.c, n.depth + 1))
  const words = list.map(describe)
  const expected = words.every((w) => w !== undefined)
    ? Words.orList([...new Set(words)])
    : `a value matching one of ${list.length} alternatives`
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

const refCheck = (n: Node): ReadonlyArray<Check> => {
  const ref = n.s["$ref"]
  if (ref === undefined) return []
  if (typeof ref === "string") return [compileRef(ref, `${n.pointer}/$ref`, n.c, n.depth)]
  problem(n, "$ref", "must be a string")
  return []
}

// Arrays; draft-07 tuples wrote `items` as an array and the rest under `additionalItems`.
// `undefined` when the node says nothing about arrays.
const arrayCheck = (n: Node): Check | undefined => {
  const { c, depth, pointer, s } = n
  const items = s["items"]
  const tupleForm = Array.isArray(items)
  const prefixKey = tupleForm ? "items" : "prefixItems"
  const prefix = (Array.isArray(items) ? items : schemaList(n, "prefixItems") ?? [])
    .map((item, i) => compileChild(item, `${pointer}/${prefixKey}/${i}`, c, depth))
  const restKey = tupleForm ? "additionalItems" : "items"
  const rest = s[restKey] === undefined ? undefined : compileChild(s[restKey], `${pointer}/${restKey}`, c, depth)
  const minItems = n.keywords.count("minItems")
  const maxItems = n.keywords.count("maxItems")
  const unique = s["uniqueItems"] === true
  if (prefix.length === 0 && rest === undefined && minItems === undefined && maxItems === undefined && !unique)
    return undefined
  return (value, path, out, d) => {
    if (!Array.isArray(value)) return
    if ((minItems !== undefined && value.length < minItems) || (maxItems !== undefined && value.length > maxItems)) {
      out.push({ path, message: Words.lengthIssue(value, minItems, maxItems) })
    }
    if (unique && value.some((x, i) => value.findIndex((y) => equal(x, y)) !== i)) {
      out.push({ path, message: "expected items to be unique" })
    }
    if (d >= MAX_VALUE_DEPTH) return void out.push({ path, message: `nests deeper than ${MAX_VALUE_DEPTH} levels` })
    value.forEach((item, i) => (prefix[i] ?? rest)?.(item, [...path, i], out, d + 1))
  }
}

/** What an object check consults, compiled from `properties`, `required`, `patternProperties` and the rest. */
interface ObjectShape {
  readonly properties: ReadonlyMap<string, Check>
  // The values a field must hold when its schema is a `const`/`enum` (a `_tag`): missing, it is a miss.
  readonly fixedValues: ReadonlyMap<string, ReadonlyArray<unknown>>
  readonly required: ReadonlyArray<string>
  readonly patterns: ReadonlyArray<readonly [RegExp, Check]>
  readonly additional: Check | undefined
  readonly closed: boolean
  readonly minProperties: number | undefined
  readonly maxProperties: number | undefined
}

const propertyChecks = (n: Node) => {
  const properties = n.s["properties"]
  const checks = new Map<string, Check>()
  const fixedValues = new Map<string, ReadonlyArray<unknown>>()
  if (properties === undefined) return { checks, fixedValues }
  if (!isRecord(properties)) {
    problem(n, "properties", "must be an object of schemas")
    return { checks, fixedValues }
  }
  for (const [key, sub] of Object.entries(properties)) {
    checks.set(key, compileChild(sub, `${n.pointer}/properties/${escapeToken(key)}`, n.c, n.depth))
    const fixed = !isRecord(sub) ? undefined : Object.hasOwn(sub, "const") ? [sub["const"]] : own(sub, "enum")
    if (Array.isArray(fixed)) fixedValues.set(key, fixed)
  }
  return { checks, fixedValues }
}

const patternChecks = (n: Node): ReadonlyArray<readonly [RegExp, Check]> => {
  const patternProperties = n.s["patternProperties"]
  if (patternProperties === undefined || !n.c.trustPatterns) return []
  if (!isRecord(patternProperties)) {
    problem(n, "patternProperties", "must be an object of schemas")
    return []
  }
  const patterns: Array<readonly [RegExp, Check]> = []
  for (const [source, sub] of Object.entries(patternProperties)) {
    const at = `patternProperties/${escapeToken(source)}`
    const re = compileRegExp(source)
    if (Result.isFailure(re)) problem(n, at, re.failure)
    else patterns.push([re.success, compileChild(sub, `${n.pointer}/${at}`, n.c, n.depth)])
  }
  return patterns
}

const objectShape = (n: Node): ObjectShape => {
  const { c, s } = n
  const { checks: properties, fixedValues } = propertyChecks(n)
  const required = s["required"]
  const requiredKeys = required === undefined
    ? []
    : Array.isArray(required) && required.every((k) => typeof k === "string")
    ? required
    : undefined
  if (requiredKeys === undefined) problem(n, "required", "must be an array of strings")
  const patterns = patternChecks(n)
  // Untrusted patterns are not run, so which keys they claim is unknown: `additionalProperties` then
  // judges no key outside `properties` rather than refuse one a pattern would have taken.
  const additional =
    s["additionalProperties"] === undefined || (s["patternProperties"] !== undefined && !c.trustPatterns)
      ? undefined
      : compileChild(s["additionalProperties"], `${n.pointer}/additionalProperties`, c, n.depth)
  return {
    properties,
    fixedValues,
    required: requiredKeys ?? [],
    patterns,
    additional,
    closed: s["additionalProperties"] === false,
    minProperties: n.keywords.count("minProperties"),
    maxProperties: n.keywords.count("maxProperties")
  }
}

const checkObjectKey = (
  shape: ObjectShape,
  value: Readonly<Record<string, unknown>>,
  key: string,
  at: Path,
  out: Array<Issue>,
  d: number
) => {
  const declared = shape.properties.get(key)
  declared?.(value[key], at, out, d + 1)
  const matching = shape.patterns.length === 0 ? shape.patterns : shape.patterns.filter(([re]) => re.test(key))
  for (const [, check] of matching) check(value[key], at, out, d + 1)
  if (declared === undefined && matching.length === 0 && shape.additional !== undefined) {
    const before = out.length
    shape.additional(value[key], at, out, d + 1)
    // `additionalProperties: false` fails with a vague "no value allowed"; say what is wrong instead.
    if (shape.closed && out.length > before)
      out.splice(before, out.length - before, { path: at, message: Words.UNEXPECTED })
  }
}

// `undefined` when the node says nothing about objects.
const objectCheck = (n: Node): Check | undefined => {
  const shape = objectShape(n)
  const { maxProperties, minProperties } = shape
  if (
    shape.properties.size === 0 && shape.required.length === 0 && shape.patterns.length === 0 &&
    shape.additional === undefined && minProperties === undefined && maxProperties === undefined
  ) return undefined
  return (value, path, out, d) => {
    if (!isRecord(value)) return
    const keys = Object.keys(value)
    for (const key of shape.required) {
      if (Object.hasOwn(value, key)) continue
      const fixed = shape.fixedValues.get(key)
      out.push(
        fixed === undefined
          ? { path: [...path, key], message: Words.MISSING }
          : valueMiss([...path, key], fixed, undefined, Words.MISSING)
      )
    }
    if (
      (minProperties !== undefined && keys.length < minProperties) ||
      (maxProperties !== undefined && keys.length > maxProperties)
    ) {
      out.push({ path, message: Words.lengthIssue(value, minProperties, maxProperties) })
    }
    if (d >= MAX_VALUE_DEPTH) return void out.push({ path, message: `nests deeper than ${MAX_VALUE_DEPTH} levels` })
    for (const key of keys) checkObjectKey(shape, value, key, [...path, key], out, d)
  }
}

const combinatorChecks = (n: Node): ReadonlyArray<Check> => {
  const { c, depth, pointer, s } = n
  const checks: Array<Check> = []
  const anyOf = schemaList(n, "anyOf")
  if (anyOf !== undefined) checks.push(compileAlternatives("anyOf", anyOf, n))
  const oneOf = schemaList(n, "oneOf")
  if (oneOf !== undefined) checks.push(compileAlternatives("oneOf", oneOf, n))
  for (const [i, sub] of (schemaList(n, "allOf") ?? []).entries()) {
    checks.push(compileNode(sub, `${pointer}/allOf/${i}`, c, depth + 1))
  }
  if (s["not"] !== undefined) {
    const excluded = compileNode(s["not"], `${pointer}/not`, c, depth + 1)
    checks.push((value, path, out, d) => {
      if (runs(excluded, value, path, d).length === 0) {
        out.push({ path, message: `matches a schema it must not match, got ${show(value)}` })
      }
    })
  }
  if (s["if"] !== undefined) {
    const test = compileNode(s["if"], `${pointer}/if`, c, depth + 1)
    const then = s["then"] === undefined ? accept : compileNode(s["then"], `${pointer}/then`, c, depth + 1)
    const otherwise = s["else"] === undefined ? accept : compileNode(s["else"], `${pointer}/else`, c, depth + 1)
    checks.push((value, path, out, d) =>
      (runs(test, value, path, d).length === 0 ? then : otherwise)(value, path, out, d)
    )
  }
  return checks
}

/**
 * Compile one schema node. The gates (`type`, `enum`, `const`) run first: when one fails, the
 * keyword checks would only repeat it. Keyword groups compile in one fixed order (`$ref`, the
 * gates, numbers, strings, arrays, objects, combinators), so which problem is reported first never
 * depends on how the schema's keys were ordered.
 */
export const compileNode = (node: unknown, pointer: string, c: Compiler, depth: number): Check => {
  if (node === true) return accept
  if (node === false) {
    return (value, path, out) => out.push({ path, message: `no value is allowed here, got ${show(value)}` })
  }
  if (!isRecord(node) || depth > MAX_SCHEMA_DEPTH) {
    const reason = isRecord(node)
      ? `nests deeper than ${MAX_SCHEMA_DEPTH} levels`
      : `a schema must be an object or a boolean, got ${show(node)}`
    c.problems.push(new InvalidJsonSchema({ pointer, reason }))
    return accept
  }
  // Keywords are read from a prototype-free copy: a schema saying nothing about `constructor`
  // must not find `Object.prototype.constructor` there.
  const s: Readonly<Record<string, unknown>> = Object.assign(Object.create(null) as Record<string, unknown>, node)
  const report = (at: string, reason: string): undefined =>
    void c.problems.push(new InvalidJsonSchema({ pointer: `${pointer}/${at}`, reason }))
  const n: Node = { s, pointer, c, depth, keywords: readers(s, report) }
  const nullable = s["nullable"] === true // OpenAPI 3.0 spelling of "or null", still common on the wire
  const ref = refCheck(n)
  const gates = [...typeGate(n.keywords, nullable), ...valueGates(n.keywords)]
  const number = numberCheck(n.keywords)
  const string = stringCheck(n.keywords, c.trustPatterns)
  const array = arrayCheck(n)
  const object = objectCheck(n)
  const combinators = combinatorChecks(n)
  const present = (check: Check | undefined): check is Check => check !== undefined
  const checks = [...ref, number, string, array, object, ...combinators].filter(present)
  // A group the node does not use checks nothing, but past the depth limit an array or object still
  // says it nests too deeply where that group would have.
  const deep = array !== undefined && object !== undefined ? checks : [
    ...ref,
    number,
    string,
    array ?? tooDeep(Array.isArray),
    object ?? tooDeep(isRecord),
    ...combinators
  ].filter(present)
  return (value, path, out, d) => {
    if (nullable && value === null) return
    const before = out.length
    for (const gate of gates) gate(value, path, out, d)
    if (out.length > before) return
    for (const check of d >= MAX_VALUE_DEPTH ? deep : checks) check(value, path, out, d)
  }
}

// What an unused array or object group still reports past the depth limit.
const tooDeep = (is: (value: unknown) => boolean): Check => (value, path, out, d) => {
  if (is(value) && d >= MAX_VALUE_DEPTH) out.push({ path, message: `nests deeper than ${MAX_VALUE_DEPTH} levels` })
}
