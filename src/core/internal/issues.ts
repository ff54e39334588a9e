/**
 * An Effect Schema issue tree → `InputError`, worded as the JSON Schema checker words the same
 * mistake (see `wording.ts`): a literal union lists its values, a tagged union names its `_tag`
 * field, a length or a bound says it in characters, items or numbers. A message the schema's
 * author wrote (`message`, `messageMissingKey`) is kept as written; anything not recognised falls
 * back to Effect's own wording, lower-cased and bounded.
 *
 * @internal
 */
import * as SchemaAST from "effect/SchemaAST"
import * as SchemaIssue from "effect/SchemaIssue"
import { InputError, type Issue, type PathSegment, preview } from "../InputError.ts"
import * as Words from "./wording.ts"

type Path = ReadonlyArray<PathSegment>

const effectWording = SchemaIssue.makeFormatterStandardSchemaV1()

// Effect's default wording, tuned for a model: lower-case, "a number" rather than "number".
const reword = (message: string): string =>
  message === "Missing key"
    ? Words.MISSING
    : message.replace(/^Expected (?:(string|number|boolean)|(object|array))\b/, (_, a?: string, an?: string) =>
      `expected ${a === undefined ? `an ${an}` : `a ${a}`}`)
      .replace(/^Expected\b/, "expected")
      .replace(/^Invalid data\b/, "expected a valid value, got")

const inputOf = (issue: SchemaIssue.Issue): unknown => SchemaIssue.hasInput(issue) ? issue.input : undefined

const got = (issue: SchemaIssue.Issue): string => preview(inputOf(issue))

const text = (u: unknown): string | undefined => typeof u === "string" ? u : undefined

const resolve = (ast: SchemaAST.AST): SchemaAST.AST => SchemaAST.isSuspend(ast) ? ast.thunk() : ast

const literalsOf = (ast: SchemaAST.AST, depth = 0): ReadonlyArray<unknown> | undefined => {
  const node = resolve(ast)
  if (SchemaAST.isLiteral(node)) return [node.literal]
  if (!SchemaAST.isUnion(node) || depth > 8) return undefined
  const parts = node.types.map((t) => literalsOf(t, depth + 1))
  return parts.every((p) => p !== undefined) ? parts.flat() : undefined
}

const NON_FINITE = JSON.stringify(["Infinity", "-Infinity", "NaN"])

const isNonFiniteArm = (ast: SchemaAST.AST): boolean => JSON.stringify(literalsOf(ast)) === NON_FINITE

/** What a schema node expects, in the checker's words; `undefined` when there is no short way to say it. */
const describe = (ast: SchemaAST.AST, depth = 0): string | undefined => {
  const node = resolve(ast)
  const literals = literalsOf(node)
  if (literals !== undefined) return Words.values(literals)
  switch (node._tag) {
    case "String":
      return "a string"
    case "Number":
      return node.checks?.some((c) => c.annotations?.expected === "an integer") ? "an integer" : "a number"
    case "Boolean":
      return "a boolean"
    case "Null":
      return "null"
    case "Objects":
      return "an object"
    case "Arrays":
      return "an array"
    case "Union": {
      // `Schema.Number`'s JSON form adds a string arm for NaN and the infinities; the advertised
      // schema leaves it out, and so does the wording.
      const types = node.types.some((t) => resolve(t)._tag === "Number") ? node.types.filter((t) => !isNonFiniteArm(t))
        : node.types
      const parts = depth > 8 ? [undefined] : types.map((t) => describe(t, depth + 1))
      return parts.every((p) => p !== undefined) ? Words.orList([...new Set(parts)]) : undefined
    }
    default:
      return undefined
  }
}

// The fields every member of a union of objects fixes to a literal (`_tag`, `type`, `kind`), with
// the values they take across the members.
const discriminants = (members: ReadonlyArray<SchemaAST.AST>): Array<readonly [string, ReadonlyArray<unknown>]> => {
  const objects = members.map(resolve).filter(SchemaAST.isObjects)
  const first = objects[0]
  if (first === undefined || objects.length !== members.length) return []
  return first.propertySignatures.flatMap((ps) => {
    if (typeof ps.name !== "string") return []
    const wanted = objects.map((o) => o.propertySignatures.find((p) => p.name === ps.name)).map((p) =>
      p === undefined ? undefined : literalsOf(p.type)
    )
    return wanted.every((w) => w !== undefined) ? [[ps.name, wanted.flat()] as const] : []
  })
}

const fewest = (results: ReadonlyArray<Array<Issue>>): Array<Issue> | undefined =>
  results.reduce<Array<Issue> | undefined>(
    (best, r) => best === undefined || r.length < best.length ? r : best,
    undefined
  )

// No member of the union took the value: say what picks one (a `_tag`), or what the union accepts.
const noMemberFits = (issue: SchemaIssue.AnyOf, path: Path, tried: ReadonlyArray<Array<Issue>>): Array<Issue> => {
  const input = inputOf(issue)
  const tags = typeof input === "object" && input !== null && !Array.isArray(input) ? discriminants(issue.ast.types)
    : []
  for (const [field, wanted] of tags) {
    const value = Object.hasOwn(input as object, field) ? (input as Record<string, unknown>)[field] : undefined
    if (!wanted.includes(value))
      return [{ path: [...path, field], message: `expected ${Words.values(wanted)}, got ${preview(value)}` }]
  }
  // The tags picked a member, which failed on the value as a whole (a check on the struct).
  const picked = tags.length === 0 ? undefined : fewest(tried.filter((r) => r.length > 0))
  if (picked !== undefined) return picked
  const expected = describe(issue.ast)
  if (expected !== undefined) return [{ path, message: `expected ${expected}, got ${preview(input)}` }]
  return fallback(issue, path)
}

const fallback = (issue: SchemaIssue.Issue, path: Path): Array<Issue> =>
  effectWording(issue).issues.map((i) => ({
    path: [
      ...path,
      ...(i.path ?? []).map((seg) => {
        const key = typeof seg === "object" ? seg.key : seg
        return typeof key === "symbol" ? String(key) : key
      })
    ],
    message: reword(i.message)
  }))

const filterMessage = (issue: SchemaIssue.Filter): string | undefined => {
  const inner = issue.issue
  const authored = text(issue.filter.annotations?.message) ??
    (inner._tag === "InvalidValue" ? text(inner.annotations?.message) : undefined)
  if (authored !== undefined) return authored
  if (inner._tag !== "InvalidValue") return undefined
  const expected = text(issue.filter.annotations?.expected) ?? text(inner.annotations?.expected)
  if (expected === undefined) return undefined
  const value = SchemaIssue.hasInput(issue) ? issue.input : inputOf(inner)
  const n = (s: string | undefined) => s === undefined ? undefined : Number(s)
  let m: RegExpExecArray | null
  if ((m = /^a value with a length of (at least|at most)? ?(\d+)$/.exec(expected)) !== null) {
    const bound = n(m[2])
    return Words.lengthIssue(value, m[1] === "at most" ? undefined : bound, m[1] === "at least" ? undefined : bound)
  }
  if ((m = /^a value with a length between (\d+) and (\d+)$/.exec(expected)) !== null)
    return Words.lengthIssue(value, n(m[1]), n(m[2]))
  if ((m = /^a value with (at least|at most) (\d+) entries$/.exec(expected)) !== null) {
    return Words.lengthIssue(value, m[1] === "at least" ? n(m[2]) : undefined, m[1] === "at most" ? n(m[2]) : undefined)
  }
  if ((m = /^a value with between (\d+) and (\d+) entries$/.exec(expected)) !== null)
    return Words.lengthIssue(value, n(m[1]), n(m[2]))
  if (typeof value === "number") {
    if ((m = /^a value (greater|less) than( or equal to)? (\S+)$/.exec(expected)) !== null) {
      const bound = m[3] ?? ""
      const tag = m[1] === "greater" ? m[2] === undefined ? "GreaterThan" : "AtLeast"
        : m[2] === undefined ? "LessThan" : "AtMost"
      return Words.numberIssue(value, { _tag: tag, bound })
    }
    if ((m = /^a value between (\S+) and (\S+)$/.exec(expected)) !== null) {
      return Words.numberIssue(value, { _tag: "Between", min: m[1] ?? "", max: m[2] ?? "" })
    }
    if ((m = /^a value that is a multiple of (\S+)$/.exec(expected)) !== null)
      return Words.multipleIssue(value, m[1] ?? "")
  }
  if ((m = /^a string matching the RegExp (.*)$/.exec(expected)) !== null) return Words.patternIssue(value, m[1] ?? "")
  return `expected ${expected}, got ${preview(value)}`
}

const walk = (issue: SchemaIssue.Issue, path: Path): Array<Issue> => {
  switch (issue._tag) {
    case "Pointer":
      return walk(issue.issue, [...path, ...issue.path.map((key) => typeof key === "symbol" ? String(key) : key)])
    case "Composite":
      return issue.issues.flatMap((inner) => walk(inner, path))
    case "Encoding":
      return walk(issue.issue, path)
    case "Filter": {
      const message = filterMessage(issue)
      return message === undefined ? walk(issue.issue, path) : [{ path, message }]
    }
    case "AnyOf": {
      if (text(issue.ast.annotations?.message) !== undefined) return fallback(issue, path)
      // A member that took the value's shape and failed only further down is the fix to make (the
      // closest, if several); otherwise no member fits, and the union as a whole says what would.
      const tried = issue.issues.map((inner) => walk(inner, path))
      return fewest(tried.filter((r) => r.length > 0 && r.every((i) => i.path.length > path.length))) ??
        noMemberFits(issue, path, tried)
    }
    case "MissingKey":
      return [{
        path,
        message: text(issue.annotations?.messageMissingKey) ??
          (typeof path.at(-1) === "number" ? "missing required item" : Words.MISSING)
      }]
    case "UnexpectedKey":
      if (text(issue.ast.annotations?.["messageUnexpectedKey"]) !== undefined) return fallback(issue, path)
      return [{ path, message: typeof path.at(-1) === "number" ? "unexpected item" : Words.UNEXPECTED }]
    case "OneOf":
      return [{ path, message: Words.oneOfIssue(issue.successes.length, inputOf(issue)) }]
    case "InvalidType": {
      const expected = text(issue.ast.annotations?.message) === undefined ? describe(issue.ast) : undefined
      return expected === undefined ? fallback(issue, path)
        : [{ path, message: `expected ${expected}, got ${got(issue)}` }]
    }
    default:
      return fallback(issue, path)
  }
}

/** Every issue in the tree, each at its path under `prefix`, as one `InputError`. */
export const toInputError = (issue: SchemaIssue.Issue, prefix: Path): InputError => {
  const [head, ...tail] = walk(issue, prefix).map((i) => ({ path: i.path, message: Words.bounded(i.message) }))
  return new InputError({ issues: [head ?? { path: [...prefix], message: "invalid input" }, ...tail] })
}
