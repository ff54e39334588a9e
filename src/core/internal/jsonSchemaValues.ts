/**
 * The value-level pieces of the JSON Schema checker: type tests, equality, JSON pointers, regular
 * expressions, `multipleOf`, and the keyword checks that need no subschema compiled. Every name a
 * schema supplies is looked up as an own key or in a `Map`, never through a plain object, so
 * `"constructor"` or `"__proto__"` cannot reach a prototype.
 *
 * @internal
 */
import * as Result from "effect/Result"
import { type Issue, type PathSegment, preview } from "../InputError.ts"
import * as Words from "./wording.ts"

export type Path = ReadonlyArray<PathSegment>

// Keeps recursion far from the JS stack limit, so a hostile value yields an issue instead of a RangeError.
export const MAX_VALUE_DEPTH = 128

/** A compiled keyword: appends an issue for each way `value` fails it. */
export type Check = (value: unknown, path: Path, out: Array<Issue>, depth: number) => void

export const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** `node[key]` if `node` holds it itself; an inherited property is absent. */
export const own = (node: Readonly<Record<string, unknown>>, key: string): unknown =>
  Object.hasOwn(node, key) ? node[key] : undefined

/** The JSON Schema type names, with the words a message uses for each and the test. */
export const TYPES: ReadonlyMap<string, readonly [string, (u: unknown) => boolean]> = new Map(
  [
    ["string", ["a string", (u: unknown) => typeof u === "string"]],
    ["number", ["a number", (u: unknown) => typeof u === "number" && Number.isFinite(u)]],
    ["integer", ["an integer", (u: unknown) => typeof u === "number" && Number.isInteger(u)]],
    ["boolean", ["a boolean", (u: unknown) => typeof u === "boolean"]],
    ["object", ["an object", isRecord]],
    ["array", ["an array", Array.isArray]],
    ["null", ["null", (u: unknown) => u === null]]
  ] as const
)

export const typeOf = (name: unknown) => typeof name === "string" ? TYPES.get(name) : undefined

export const equal = (a: unknown, b: unknown, maxDepth: number, depth = 0): boolean => {
  if (a === b) return true
  if (depth > maxDepth || typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length &&
      a.every((x, i) => equal(x, b[i], maxDepth, depth + 1))
  }
  if (!isRecord(a) || !isRecord(b)) return false
  const keys = Object.keys(a)
  return keys.length === Object.keys(b).length &&
    keys.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k], maxDepth, depth + 1))
}

export const escapeToken = (key: string): string => key.replaceAll("~", "~0").replaceAll("/", "~1")

export const resolvePointer = (root: unknown, ref: string): Result.Result<unknown, string> => {
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

export const compileRegExp = (source: unknown): Result.Result<RegExp, string> =>
  typeof source !== "string"
    ? Result.fail(`must be a string, got ${preview(source)}`)
    // JSON Schema patterns are ECMA-262; try Unicode mode first, then the legacy grammar many servers write in.
    : Result.orElse(Result.try(() => new RegExp(source, "u")), () =>
      Result.try({
        try: () => new RegExp(source),
        catch: () => `${JSON.stringify(source)} is not a valid regular expression`
      }))

// A finite double as the decimal it prints as (the shortest text that reads back as the same
// double, which is what a JSON document wrote): `1.15` is 115 × 10^-2.
const decimal = (n: number): readonly [bigint, number] => {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/.exec(String(n))
  const fraction = m?.[3] ?? ""
  return [BigInt(`${m?.[1] ?? ""}${m?.[2] ?? "0"}${fraction}`), Number(m?.[4] ?? "0") - fraction.length]
}

/**
 * `multipleOf` on the decimals the numbers are written as, exactly: dividing doubles would refuse
 * 0.3 as a multiple of 0.1 (0.3 / 0.1 is 2.9999999999999996).
 */
export const isMultipleOf = (value: number, step: number): boolean => {
  if (!Number.isFinite(value) || !Number.isFinite(step) || !(step > 0)) return false
  const [a, ea] = decimal(value)
  const [b, eb] = decimal(step)
  const e = Math.min(ea, eb)
  return (a * 10n ** BigInt(ea - e)) % (b * 10n ** BigInt(eb - e)) === 0n
}

/** Typed readers for a schema node's keywords: `undefined` when absent, or when malformed (then `problem` is told). */
export const readers = (s: Readonly<Record<string, unknown>>, problem: (key: string, reason: string) => undefined) => {
  const num = (key: string, ok = (n: number) => Number.isFinite(n), what = "a number"): number | undefined => {
    const v = s[key]
    if (v === undefined || (typeof v === "number" && ok(v))) return v
    return problem(key, `must be ${what}, got ${preview(v)}`)
  }
  const count = (key: string) => num(key, (n) => Number.isInteger(n) && n >= 0, "a non-negative integer")
  return { s, problem, num, count } as const
}

type Readers = ReturnType<typeof readers>

/**
 * `minimum`, `maximum`, their exclusive forms and `multipleOf`; an inclusive range reads `between 1 and 5`.
 * `undefined` when the node has none of them.
 */
export const numberCheck = ({ num, s }: Readers): Check | undefined => {
  const minimum = num("minimum")
  const maximum = num("maximum")
  // draft-04 wrote exclusive bounds as a boolean modifier of minimum/maximum
  const exMin = s["exclusiveMinimum"] === true ? minimum
    : s["exclusiveMinimum"] === false ? undefined : num("exclusiveMinimum")
  const exMax = s["exclusiveMaximum"] === true ? maximum
    : s["exclusiveMaximum"] === false ? undefined : num("exclusiveMaximum")
  const multipleOf = num("multipleOf", (n) => n > 0, "a positive number")
  const range: Words.NumberBound | undefined =
    exMin === undefined && exMax === undefined && minimum !== undefined && maximum !== undefined
      ? { _tag: "Between", min: String(minimum), max: String(maximum) }
      : undefined
  if ([minimum, maximum, exMin, exMax, multipleOf].every((bound) => bound === undefined)) return undefined
  return (value, path, out) => {
    if (typeof value !== "number") return
    const fail = (bound: Words.NumberBound) => out.push({ path, message: Words.numberIssue(value, range ?? bound) })
    if (exMin !== undefined && !(value > exMin)) fail({ _tag: "GreaterThan", bound: String(exMin) })
    else if (minimum !== undefined && !(value >= minimum)) fail({ _tag: "AtLeast", bound: String(minimum) })
    if (exMax !== undefined && !(value < exMax)) fail({ _tag: "LessThan", bound: String(exMax) })
    else if (maximum !== undefined && !(value <= maximum)) fail({ _tag: "AtMost", bound: String(maximum) })
    if (multipleOf !== undefined && !isMultipleOf(value, multipleOf))
      out.push({ path, message: Words.multipleIssue(value, String(multipleOf)) })
  }
}

/**
 * `minLength`/`maxLength` (in code points, as JSON Schema counts) and, when trusted, `pattern`.
 * A pattern is code from whoever wrote the schema: one such as `^(a+)+$` backtracks for seconds on
 * a short string, so an untrusted one is neither compiled nor run. `undefined` when the node has none
 * of them.
 */
export const stringCheck = ({ count, problem, s }: Readers, trustPatterns: boolean): Check | undefined => {
  const minLength = count("minLength")
  const maxLength = count("maxLength")
  const pattern = s["pattern"] === undefined || !trustPatterns ? undefined : compileRegExp(s["pattern"])
  if (pattern !== undefined && Result.isFailure(pattern)) problem("pattern", pattern.failure)
  if (minLength === undefined && maxLength === undefined && pattern === undefined) return undefined
  return (value, path, out) => {
    if (typeof value !== "string") return
    // Counting code points spreads the string into an array: only done when a bound asks for it.
    if (minLength !== undefined || maxLength !== undefined) {
      const length = [...value].length
      if ((minLength !== undefined && length < minLength) || (maxLength !== undefined && length > maxLength)) {
        out.push({ path, message: Words.lengthIssue(value, minLength, maxLength) })
      }
    }
    if (pattern !== undefined && Result.isSuccess(pattern) && !pattern.success.test(value)) {
      out.push({ path, message: Words.patternIssue(value, pattern.success.source) })
    }
  }
}

/** What a schema expects, in a few words, for "expected X or Y" messages. */
export const describe = (node: unknown): string | undefined => {
  if (!isRecord(node)) return undefined
  if (Object.hasOwn(node, "const")) return preview(node["const"])
  const options = own(node, "enum")
  if (Array.isArray(options)) return Words.values(options)
  const type = own(node, "type")
  const types: ReadonlyArray<unknown> = typeof type === "string" ? [type] : Array.isArray(type) ? type : []
  const words = types.flatMap((t) => typeOf(t)?.[0] ?? [])
  return words.length > 0 ? Words.orList(words) : undefined
}

// A `const`/`enum` miss, remembered with what it wanted: across union branches it names the field
// that picks the branch (a `_tag`), which is the one fix the model needs.
// A missing field whose schema is a `const`/`enum` is a miss too (`got nothing`).
export const valueMisses = new WeakMap<Issue, { readonly wanted: ReadonlyArray<unknown>; readonly got: unknown }>()

const fewest = (results: ReadonlyArray<Array<Issue>>): Array<Issue> | undefined =>
  results.reduce<Array<Issue> | undefined>(
    (best, r) => best === undefined || r.length < best.length ? r : best,
    undefined
  )

/**
 * What to report when no alternative of an `anyOf`/`oneOf` matched, from each branch's issues: the
 * branch that took the value's shape and failed only further down; else, when every branch failed
 * on the same `const`/`enum` field (a `_tag`), that field and the values it takes; else the branch
 * that got deepest; else what the alternatives expect.
 */
export const noAlternative = (
  results: ReadonlyArray<Array<Issue>>,
  path: Path,
  value: unknown,
  expected: string
): Array<Issue> => {
  const below = (issue: Issue) => issue.path.length > path.length
  const isSwitch = (issue: Issue) => issue.path.length === path.length + 1 && valueMisses.has(issue)
  // A branch that took this value's shape and its discriminants failed only further down: report it.
  const agreeing = fewest(results.filter((r) => r.every((issue) => below(issue) && !isSwitch(issue))))
  if (agreeing !== undefined) return agreeing
  const switches = results.map((r) => r.find(isSwitch))
  const field = switches[0]?.path.at(-1)
  if (field !== undefined && switches.every((sw) => sw?.path.at(-1) === field)) {
    const misses = switches.flatMap((sw) => sw === undefined ? [] : [valueMisses.get(sw)])
    const wanted = misses.flatMap((m) => m?.wanted ?? [])
    return [{ path: [...path, field], message: `expected ${Words.values(wanted)}, got ${preview(misses[0]?.got)}` }]
  }
  const deeper = fewest(results.filter((r) => r.every(below)))
  return deeper ?? [{ path, message: `expected ${expected}, got ${preview(value)}` }]
}

/** A `const`/`enum` miss: the issue, remembered in `valueMisses` with what it wanted. */
export const valueMiss = (path: Path, wanted: ReadonlyArray<unknown>, got: unknown, message: string): Issue => {
  const issue = { path, message }
  valueMisses.set(issue, { wanted, got })
  return issue
}

/** `type` (a name or an array of them; `nullable` adds `null`): a gate. */
export const typeGate = ({ problem, s }: Readers, nullable: boolean): ReadonlyArray<Check> => {
  const raw = s["type"]
  if (raw === undefined) return []
  const names: ReadonlyArray<unknown> = typeof raw === "string" ? [raw] : Array.isArray(raw) ? raw : []
  const unknown = names.find((name) => typeof name === "string" && typeOf(name) === undefined)
  const tests = names.flatMap((name) => [typeOf(name)].filter((t) => t !== undefined))
  if (typeof unknown === "string") {
    problem("type", `unknown type ${JSON.stringify(unknown)}`)
    return []
  }
  if (tests.length === 0 || tests.length !== names.length) {
    problem("type", `must be a type name or an array of them, got ${preview(raw)}`)
    return []
  }
  const words = Words.orList(tests.map(([w]) => w).concat(nullable && !names.includes("null") ? ["null"] : []))
  const [only] = tests
  // One type, the usual case, is tested directly.
  if (tests.length === 1 && only !== undefined) {
    const test = only[1]
    return [(value, path, out) => {
      if (!test(value)) out.push({ path, message: `expected ${words}, got ${preview(value)}` })
    }]
  }
  return [(value, path, out) => {
    if (!tests.some(([, test]) => test(value))) out.push({ path, message: `expected ${words}, got ${preview(value)}` })
  }]
}

/** `enum` and `const`: gates, each miss remembered with what it wanted. */
export const valueGates = ({ problem, s }: Readers): ReadonlyArray<Check> => {
  const gates: Array<Check> = []
  if (s["enum"] !== undefined) {
    const options = s["enum"]
    if (!Array.isArray(options)) problem("enum", "must be an array")
    else {
      gates.push((value, path, out) => {
        if (options.some((o) => equal(o, value, MAX_VALUE_DEPTH))) return
        out.push(valueMiss(path, options, value, `expected ${Words.values(options)}, got ${preview(value)}`))
      })
    }
  }
  if ("const" in s) {
    const expected = s["const"]
    gates.push((value, path, out) => {
      if (equal(expected, value, MAX_VALUE_DEPTH)) return
      out.push(valueMiss(path, [expected], value, `expected ${preview(expected)}, got ${preview(value)}`))
    })
  }
  return gates
}
