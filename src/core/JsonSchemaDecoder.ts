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
 * server still validates), an external `$ref` is not fetched and checks nothing, and only a schema
 * that is malformed where it matters is refused, with an `InvalidJsonSchema` naming the spot.
 *
 * @since 0.1.0
 */
import { Effect, Result } from "effect"
import { InputError, InvalidJsonSchema, type Issue, type PathSegment, preview } from "./InputError.ts"

/**
 * A checker built once from a JSON Schema: it returns the input untouched, or every issue found.
 *
 * @since 0.1.0
 */
export type JsonDecoder = (input: unknown) => Effect.Effect<unknown, InputError>

type Path = ReadonlyArray<PathSegment>
type Check = (value: unknown, path: Path, out: Array<Issue>, depth: number) => void

// Both bounds keep recursion far from the JS stack limit, so a hostile schema or value yields an
// issue instead of a RangeError.
const MAX_VALUE_DEPTH = 128
const MAX_SCHEMA_DEPTH = 256

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null && !Array.isArray(u)

const show = (value: unknown): string => preview(value)

const equal = (a: unknown, b: unknown, depth = 0): boolean => {
  if (a === b) return true
  if (depth > MAX_VALUE_DEPTH || typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => equal(x, b[i], depth + 1))
  }
  if (!isRecord(a) || !isRecord(b)) return false
  const keys = Object.keys(a)
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k], depth + 1))
}

const TYPES: Readonly<Record<string, readonly [string, (u: unknown) => boolean]>> = {
  string: ["a string", (u) => typeof u === "string"],
  number: ["a number", (u) => typeof u === "number" && Number.isFinite(u)],
  integer: ["an integer", (u) => typeof u === "number" && Number.isInteger(u)],
  boolean: ["a boolean", (u) => typeof u === "boolean"],
  object: ["an object", isRecord],
  array: ["an array", Array.isArray],
  null: ["null", (u) => u === null]
}

const orList = (items: ReadonlyArray<string>): string =>
  items.length <= 1 ? (items[0] ?? "nothing") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`

interface Compiler {
  readonly root: unknown
  readonly problems: Array<InvalidJsonSchema>
  readonly refs: Map<string, Check>
  // `$ref` targets entered since the last step into a child value: meeting one again is a cycle
  // that would never consume input.
  sameValue: Set<string>
}

const escapeToken = (key: string): string => key.replaceAll("~", "~0").replaceAll("/", "~1")

const accept: Check = () => {}

const resolvePointer = (root: unknown, ref: string): Result.Result<unknown, string> => {
  let node: unknown = root
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const decoded = Result.try(() => decodeURIComponent(raw))
    if (Result.isFailure(decoded)) return Result.fail(`$ref ${JSON.stringify(ref)} is not a valid JSON pointer`)
    const token = decoded.success.replaceAll("~1", "/").replaceAll("~0", "~")
    if (Array.isArray(node) && /^\d+$/.test(token)) node = node[Number(token)]
    else if (isRecord(node) && Object.hasOwn(node, token)) node = node[token]
    else return Result.fail(`$ref ${JSON.stringify(ref)} points at nothing`)
  }
  return Result.succeed(node)
}

const compileRegExp = (source: unknown): Result.Result<RegExp, string> =>
  typeof source !== "string"
    ? Result.fail("must be a string")
    // JSON Schema patterns are ECMA-262; try Unicode mode first, then the legacy grammar many servers write in.
    : Result.orElse(Result.try(() => new RegExp(source, "u")), () =>
      Result.try({ try: () => new RegExp(source), catch: () => `${JSON.stringify(source)} is not a valid regular expression` }))

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

/** What a schema expects, in a few words, for "expected X or Y" messages. */
const describe = (node: unknown): string | undefined => {
  if (!isRecord(node)) return undefined
  if ("const" in node) return show(node["const"])
  if (Array.isArray(node["enum"])) return `one of ${node["enum"].map(show).join(", ")}`
  const types = typeof node["type"] === "string" ? [node["type"]] : Array.isArray(node["type"]) ? node["type"] : []
  const words = types.flatMap((t) => typeof t === "string" && TYPES[t] !== undefined ? [TYPES[t][0]] : [])
  return words.length > 0 ? orList(words) : undefined
}

// A `const`/`enum` miss, remembered with what it wanted: across union branches it names the field
// that picks the branch (a `_tag`), which is the one fix the model needs.
const valueMisses = new WeakMap<Issue, { readonly wanted: ReadonlyArray<string>; readonly got: unknown }>()

const fewest = (results: ReadonlyArray<Array<Issue>>): Array<Issue> | undefined =>
  results.reduce<Array<Issue> | undefined>((best, r) => best === undefined || r.length < best.length ? r : best, undefined)

const compileAlternatives = (key: "anyOf" | "oneOf", list: ReadonlyArray<unknown>, pointer: string, c: Compiler, depth: number): Check => {
  const branches = list.map((branch, i) => compileNode(branch, `${pointer}/${key}/${i}`, c, depth + 1))
  const words = list.map(describe)
  const expected = words.every((w) => w !== undefined) ? orList([...new Set(words)]) : `a value matching one of ${list.length} alternatives`
  return (value, path, out, d) => {
    const results = branches.map((branch) => runs(branch, value, path, d))
    const matched = results.filter((r) => r.length === 0).length
    if (key === "oneOf" && matched > 1) {
      out.push({ path, message: `matches ${matched} alternatives where exactly one is allowed, got ${show(value)}` })
      return
    }
    if (matched > 0) return
    const below = (issue: Issue) => issue.path.length > path.length
    const isSwitch = (issue: Issue) => issue.path.length === path.length + 1 && valueMisses.has(issue)
    // A branch that took this value's shape and its discriminants failed only further down: report it.
    const agreeing = fewest(results.filter((r) => r.every((issue) => below(issue) && !isSwitch(issue))))
    if (agreeing !== undefined) return void out.push(...agreeing)
    const switches = results.map((r) => r.find(isSwitch))
    const field = switches[0]?.path.at(-1)
    if (field !== undefined && switches.every((sw) => sw?.path.at(-1) === field)) {
      const misses = switches.flatMap((sw) => sw === undefined ? [] : [valueMisses.get(sw)])
      const wanted = [...new Set(misses.flatMap((m) => m?.wanted ?? []))]
      return void out.push({ path: [...path, field], message: `expected ${orList(wanted)}, got ${show(misses[0]?.got)}` })
    }
    const deeper = fewest(results.filter((r) => r.every(below)))
    out.push(...(deeper ?? [{ path, message: `expected ${expected}, got ${show(value)}` }]))
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
  const s = node
  const gates: Array<Check> = [] // type/enum/const: when one fails, the keyword checks below would only repeat it
  const checks: Array<Check> = []
  // Readers for a keyword's value: `undefined` when absent, or when malformed (and then a problem is filed).
  const num = (key: string, ok = (n: number) => Number.isFinite(n), what = "a number"): number | undefined => {
    const v = s[key]
    if (v === undefined || (typeof v === "number" && ok(v))) return v
    return problem(key, `must be ${what}, got ${show(v)}`)
  }
  const count = (key: string) => num(key, (n) => Number.isInteger(n) && n >= 0, "a non-negative integer")
  const schemaList = (key: string): ReadonlyArray<unknown> | undefined => {
    const v = s[key]
    if (v === undefined || (Array.isArray(v) && v.length > 0)) return v
    return problem(key, "must be a non-empty array of schemas")
  }

  if (s["$ref"] !== undefined) {
    if (typeof s["$ref"] === "string") checks.push(compileRef(s["$ref"], `${pointer}/$ref`, c, depth))
    else problem("$ref", "must be a string")
  }

  const nullable = s["nullable"] === true // OpenAPI 3.0 spelling of "or null", still common on the wire
  if (s["type"] !== undefined) {
    const raw = s["type"]
    const names: ReadonlyArray<unknown> = typeof raw === "string" ? [raw] : Array.isArray(raw) ? raw : []
    const tests = names.flatMap((n) => typeof n === "string" && TYPES[n] !== undefined ? [TYPES[n]] : [])
    if (tests.length === 0 || tests.length !== names.length) problem("type", `must be a type name or an array of them, got ${show(raw)}`)
    else {
      const words = orList(tests.map(([w]) => w).concat(nullable && !names.includes("null") ? ["null"] : []))
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
        if (options.some((o) => equal(o, value))) return
        const issue = { path, message: `expected ${options.length === 1 ? "" : "one of "}${options.map(show).join(", ")}, got ${show(value)}` }
        valueMisses.set(issue, { wanted: options.map(show), got: value })
        out.push(issue)
      })
    }
  }
  if ("const" in s) {
    const expected = s["const"]
    gates.push((value, path, out) => {
      if (equal(expected, value)) return
      const issue = { path, message: `expected ${show(expected)}, got ${show(value)}` }
      valueMisses.set(issue, { wanted: [show(expected)], got: value })
      out.push(issue)
    })
  }

  // numbers
  const minimum = num("minimum")
  const maximum = num("maximum")
  // draft-04 wrote exclusive bounds as a boolean modifier of minimum/maximum
  const exMin = s["exclusiveMinimum"] === true ? minimum : s["exclusiveMinimum"] === false ? undefined : num("exclusiveMinimum")
  const exMax = s["exclusiveMaximum"] === true ? maximum : s["exclusiveMaximum"] === false ? undefined : num("exclusiveMaximum")
  const multipleOf = num("multipleOf", (n) => n > 0, "a positive number")
  checks.push((value, path, out) => {
    if (typeof value !== "number") return
    const fail = (what: string) => out.push({ path, message: `expected a number ${what}, got ${show(value)}` })
    if (exMin !== undefined && !(value > exMin)) fail(`greater than ${exMin}`)
    else if (minimum !== undefined && !(value >= minimum)) fail(`at least ${minimum}`)
    if (exMax !== undefined && !(value < exMax)) fail(`less than ${exMax}`)
    else if (maximum !== undefined && !(value <= maximum)) fail(`at most ${maximum}`)
    if (multipleOf !== undefined && !Number.isInteger(value / multipleOf)) fail(`that is a multiple of ${multipleOf}`)
  })

  // strings: lengths count code points, as JSON Schema defines them
  const minLength = count("minLength")
  const maxLength = count("maxLength")
  const pattern = s["pattern"] === undefined ? undefined : compileRegExp(s["pattern"])
  if (pattern !== undefined && Result.isFailure(pattern)) problem("pattern", pattern.failure)
  checks.push((value, path, out) => {
    if (typeof value !== "string") return
    const length = [...value].length
    if (minLength !== undefined && length < minLength) out.push({ path, message: `expected at least ${minLength} characters, got ${show(value)}` })
    if (maxLength !== undefined && length > maxLength) out.push({ path, message: `expected at most ${maxLength} characters, got ${show(value)}` })
    if (pattern !== undefined && Result.isSuccess(pattern) && !pattern.success.test(value)) {
      out.push({ path, message: `expected a string matching /${pattern.success.source}/, got ${show(value)}` })
    }
  })

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
    if (minItems !== undefined && value.length < minItems) out.push({ path, message: `expected at least ${minItems} items, got ${value.length}` })
    if (maxItems !== undefined && value.length > maxItems) out.push({ path, message: `expected at most ${maxItems} items, got ${value.length}` })
    if (unique && value.some((x, i) => value.findIndex((y) => equal(x, y)) !== i)) out.push({ path, message: "expected items to be unique" })
    if (d >= MAX_VALUE_DEPTH) return void out.push({ path, message: `nests deeper than ${MAX_VALUE_DEPTH} levels` })
    value.forEach((item, i) => (prefix[i] ?? rest)?.(item, [...path, i], out, d + 1))
  })

  // objects
  const properties = s["properties"]
  const propertyChecks = new Map<string, Check>()
  if (properties !== undefined) {
    if (!isRecord(properties)) problem("properties", "must be an object of schemas")
    else for (const [key, sub] of Object.entries(properties)) propertyChecks.set(key, compileChild(sub, `${pointer}/properties/${escapeToken(key)}`, c, depth))
  }
  const required = s["required"]
  const requiredKeys = required === undefined ? [] : Array.isArray(required) && required.every((k) => typeof k === "string") ? required : undefined
  if (requiredKeys === undefined) problem("required", "must be an array of strings")
  const patterns: Array<readonly [RegExp, Check]> = []
  if (s["patternProperties"] !== undefined) {
    if (!isRecord(s["patternProperties"])) problem("patternProperties", "must be an object of schemas")
    else {
      for (const [source, sub] of Object.entries(s["patternProperties"])) {
        const at = `patternProperties/${escapeToken(source)}`
        const re = compileRegExp(source)
        if (Result.isFailure(re)) problem(at, re.failure)
        else patterns.push([re.success, compileChild(sub, `${pointer}/${at}`, c, depth)])
      }
    }
  }
  const additional = s["additionalProperties"] === undefined ? undefined : compileChild(s["additionalProperties"], `${pointer}/additionalProperties`, c, depth)
  const minProperties = count("minProperties")
  const maxProperties = count("maxProperties")
  checks.push((value, path, out, d) => {
    if (!isRecord(value)) return
    const keys = Object.keys(value)
    for (const key of requiredKeys ?? []) if (!Object.hasOwn(value, key)) out.push({ path: [...path, key], message: "missing required field" })
    if (minProperties !== undefined && keys.length < minProperties) out.push({ path, message: `expected at least ${minProperties} fields, got ${keys.length}` })
    if (maxProperties !== undefined && keys.length > maxProperties) out.push({ path, message: `expected at most ${maxProperties} fields, got ${keys.length}` })
    if (d >= MAX_VALUE_DEPTH) return void out.push({ path, message: `nests deeper than ${MAX_VALUE_DEPTH} levels` })
    for (const key of keys) {
      const at = [...path, key]
      const own = propertyChecks.get(key)
      own?.(value[key], at, out, d + 1)
      const matching = patterns.filter(([re]) => re.test(key))
      for (const [, check] of matching) check(value[key], at, out, d + 1)
      if (own === undefined && matching.length === 0 && additional !== undefined) {
        const before = out.length
        additional(value[key], at, out, d + 1)
        // `additionalProperties: false` fails with a vague "no value allowed"; say what is wrong instead.
        if (s["additionalProperties"] === false && out.length > before) out.splice(before, out.length - before, { path: at, message: "unexpected field" })
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
 * Build a checker from a raw JSON Schema (draft 2020-12, with draft-07 and OpenAPI 3.0 spellings
 * understood). The checker returns its input unchanged or fails with an `InputError` naming each
 * wrong field; a schema it cannot use fails here with `InvalidJsonSchema`. Neither ever throws.
 *
 * Understood: `type` (and arrays of types), `nullable`, `enum`, `const`, `properties`, `required`,
 * `additionalProperties`, `patternProperties`, `min/maxProperties`, `items`, `prefixItems`,
 * `additionalItems`, `min/maxItems`, `uniqueItems`, `minimum`, `maximum`, `exclusiveMinimum`,
 * `exclusiveMaximum`, `multipleOf`, `min/maxLength`, `pattern`, `anyOf`, `oneOf`, `allOf`, `not`,
 * `if`/`then`/`else`, and `$ref` to any JSON pointer in the document (`#/$defs/…`,
 * `#/definitions/…`), recursion included. Anything else (`format`, `contains`, `$dynamicRef`,
 * vendor keywords, external `$ref`s) is ignored, which means it checks nothing.
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
export const fromJsonSchema = (schema: unknown): Effect.Effect<JsonDecoder, InvalidJsonSchema> =>
  Effect.suspend(() => {
    const c: Compiler = { root: schema, problems: [], refs: new Map(), sameValue: new Set(["#"]) }
    // The net under a validator that is meant never to throw: a getter on a hostile object still could.
    const built = Result.try({
      try: () => compileNode(schema, "#", c, 0),
      catch: (cause) => new InvalidJsonSchema({ pointer: "#", reason: `could not be read (${String(cause)})` })
    })
    if (Result.isFailure(built)) return Effect.fail(built.failure)
    const first = c.problems[0]
    if (first !== undefined) return Effect.fail(first)
    const check = built.success
    return Effect.succeed((input: unknown) =>
      Effect.suspend(() => {
        const issues = Result.try({
          try: () => runs(check, input, [], 0),
          catch: (cause): Array<Issue> => [{ path: [], message: `could not be checked (${String(cause)})` }]
        })
        const found = Result.merge(issues)
        const [head, ...tail] = found
        return head === undefined ? Effect.succeed(input) : Effect.fail(new InputError({ issues: [head, ...tail] }))
      })
    )
  })
