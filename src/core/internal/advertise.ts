/**
 * The forward half of the bridge: an Effect Schema → the JSON Schema a host reads in `tools/list`.
 *
 * Effect's converter does the translation; this module rewrites the AST before it (what the host
 * should send) and the JSON after it (what hosts accept): objects reopened, `$ref`s inlined with
 * recursion bounded, `not` gone, and an object at the top.
 *
 * @internal
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import * as Json from "../Json.ts"

/** How many recursive definitions are inlined along one path before the rest is `{}`. */
export const RECURSION_DEPTH = 3

// The emitted schema's size, in schema nodes, past which recursion is shown fewer levels deep; a
// few hundred nodes is a large hand-written tool, so only unrolled recursion reaches it.
const MAX_NODES = 1_000

// What a host reads where Effect would write `not: {}` (Schema.Never), a keyword several reject.
export const NEVER_ACCEPTED = "no value is accepted here"

// Keywords that only describe: safe to fold into a sibling schema without changing what it accepts.
export const ANNOTATIONS: ReadonlySet<string> = new Set([
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$comment"
])

export type Node = { [key: string]: Json.Json }

export const isNode = (json: Json.Json | undefined): json is Node =>
  typeof json === "object" && json !== null && !Array.isArray(json)

export const emptyObject = (): Node => ({ type: "object", properties: {} })

// ---------------------------------------------------------------------------------------------
// Before the converter: a copy of the encoded AST that says what the host should send.
// ---------------------------------------------------------------------------------------------

export const isUndefinedLike = (ast: SchemaAST.AST): boolean => SchemaAST.isUndefined(ast) || SchemaAST.isVoid(ast)

/**
 * Rewrite the encoded AST for advertising only (decoding still uses the original codec):
 * - a bare `Number` gains `isFinite`, so it is emitted as `{"type":"number"}` with its bounds and
 *   annotations, instead of a union with an "Infinity"/"NaN" string arm that drops both;
 * - an optional key's `undefined` member is dropped, because the JSON codec writes `undefined` as
 *   `null` and the host would otherwise be told `null` is a meaningful value there.
 * It enters a `Declaration`'s type parameters too (`Schema.Option(Struct)`), since the converter
 * builds the declaration's JSON form from them. Memoised by node so a `Suspend` keeps returning the
 * same rewritten node and recursion still ends.
 */
const forAdvertising = (root: SchemaAST.AST): SchemaAST.AST => {
  const memo = new Map<SchemaAST.AST, SchemaAST.AST>()
  const optionalMember = (ast: SchemaAST.AST): SchemaAST.AST => {
    const out = go(ast)
    if (!SchemaAST.isOptional(out) || !SchemaAST.isUnion(out) || !out.types.some(isUndefinedLike)) return out
    const kept = out.types.filter((t) => !isUndefinedLike(t))
    if (kept.length === 0) return out
    return new SchemaAST.Union(
      kept,
      out.options,
      out.annotations,
      out.checks,
      out.encoding,
      out.context,
      out.encodingChecks
    )
  }
  const go = (ast: SchemaAST.AST): SchemaAST.AST => {
    const seen = memo.get(ast)
    if (seen !== undefined) return seen
    let out: SchemaAST.AST = ast
    switch (ast._tag) {
      case "Number":
        out = new SchemaAST.Number(
          ast.annotations,
          [...(ast.checks ?? []), Schema.isFinite()],
          ast.encoding,
          ast.context
        )
        break
      case "Objects":
        out = new SchemaAST.Objects(
          ast.propertySignatures.map((ps) => new SchemaAST.PropertySignature(ps.name, optionalMember(ps.type))),
          ast.indexSignatures.map((is) => new SchemaAST.IndexSignature(is.parameter, go(is.type))),
          ast.annotations,
          ast.checks,
          ast.encoding,
          ast.context,
          ast.encodingChecks
        )
        break
      case "Arrays":
        out = new SchemaAST.Arrays(
          ast.isMutable,
          ast.elements.map(optionalMember),
          ast.rest.map(go),
          ast.annotations,
          ast.checks,
          ast.encoding,
          ast.context,
          ast.encodingChecks
        )
        break
      case "Union":
        out = new SchemaAST.Union(
          ast.types.map(go),
          ast.options,
          ast.annotations,
          ast.checks,
          ast.encoding,
          ast.context,
          ast.encodingChecks
        )
        break
      case "Declaration":
        out = new SchemaAST.Declaration(
          ast.typeParameters.map(go),
          ast.run,
          ast.annotations,
          ast.checks,
          ast.encoding,
          ast.context,
          ast.encodingChecks,
          ast.encodingRun
        )
        break
      case "Suspend": {
        const thunk = ast.thunk
        out = new SchemaAST.Suspend(() => go(thunk()), ast.annotations, ast.checks, ast.encoding, ast.context)
        break
      }
    }
    memo.set(ast, out)
    return out
  }
  return go(root)
}

// ---------------------------------------------------------------------------------------------
// After the converter: the JSON a host can read.
// ---------------------------------------------------------------------------------------------

const INFINITY_ARM: Json.Json = { type: "string", enum: ["Infinity", "-Infinity", "NaN"] }
const SCHEMA_MAPS = ["properties", "patternProperties", "dependentSchemas"]
const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"]
const SCHEMA_SLOTS = ["items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else"]

const sameJson = (a: Json.Json, b: Json.Json): boolean => JSON.stringify(a) === JSON.stringify(b)

const isNumeric = (json: Json.Json): boolean =>
  isNode(json) && (json["type"] === "number" || json["type"] === "integer")

const annotationsOnly = (node: Node): boolean => Object.keys(node).every((k) => ANNOTATIONS.has(k))

// `Schema.Never` comes out as `not: {}`: "matches nothing".
const isNever = (json: Json.Json): boolean =>
  isNode(json) && isNode(json["not"]) && Object.keys(json["not"]).length === 0

/** `base` and `extra` both apply; merge them when they share no validating keyword. */
const conjoin = (base: Node, extra: Node): Node => {
  if (Object.keys(extra).length === 0) return base
  const clash = Object.keys(extra).some((k) => k in base && !ANNOTATIONS.has(k))
  return clash ? { allOf: [base, extra] } : { ...base, ...extra }
}

const withoutKey = (node: Node, key: string): Node =>
  Object.fromEntries(Object.entries(node).filter(([k]) => k !== key))

// Effect only emits local references into its own definitions table.
const refName = (ref: string): string => ref.replace(/^#\/\$defs\//, "").replaceAll("~1", "/").replaceAll("~0", "~")

/** The definitions that can reach themselves through `$ref`s: only these need a bound. */
const recursiveDefinitions = (definitions: Node): ReadonlySet<string> => {
  const refsOf = new Map<string, Set<string>>()
  const collect = (json: Json.Json, into: Set<string>): void => {
    if (Array.isArray(json)) { for (const item of json) collect(item, into) }
    else if (isNode(json)) {
      for (const [key, value] of Object.entries(json)) {
        if (key === "$ref" && typeof value === "string") into.add(refName(value))
        else collect(value, into)
      }
    }
  }
  for (const name of Object.keys(definitions)) refsOf.set(name, new Set())
  for (const [name, body] of Object.entries(definitions)) collect(body, refsOf.get(name) ?? new Set())
  const recursive = new Set<string>()
  for (const name of refsOf.keys()) {
    const seen = new Set<string>()
    const stack = [...(refsOf.get(name) ?? [])]
    for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
      if (next === name) {
        recursive.add(name)
        break
      }
      if (seen.has(next)) continue
      seen.add(next)
      stack.push(...(refsOf.get(next) ?? []))
    }
  }
  return recursive
}

interface Budget {
  nodes: number
  overflow: boolean
}

/**
 * Inline references, reopen objects and fold what hosts do not read. `limit` bounds how many
 * recursive definitions are entered along one path (whichever they are, so mutual recursion is
 * bounded as a whole); past the node budget, no further recursive definition is entered.
 */
const makeFixer = (
  definitions: Node,
  recursive: ReadonlySet<string>,
  limit: number,
  budget: Budget,
  direction: Direction
) => {
  const fix = (json: Json.Json, entered: number): Json.Json => {
    if (!isNode(json)) return json
    budget.nodes++
    const ref = json["$ref"]
    if (typeof ref === "string") {
      const name = refName(ref)
      const target = Object.hasOwn(definitions, name) ? definitions[name] : undefined
      const isRecursive = recursive.has(name)
      if (isRecursive && budget.nodes > MAX_NODES) budget.overflow = true
      const body = target === undefined || (isRecursive && (entered >= limit || budget.overflow))
        ? {}
        : fix(target, isRecursive ? entered + 1 : entered)
      const rest = fix(withoutKey(json, "$ref"), entered)
      return isNode(body) && isNode(rest) ? conjoin(body, rest) : body
    }
    if (isNever(json)) {
      const said = json["description"]
      const { not: _, ...rest } = json
      return { ...rest, description: typeof said === "string" ? `${said} (${NEVER_ACCEPTED})` : NEVER_ACCEPTED }
    }
    let node: Node = {}
    for (const [key, value] of Object.entries(json)) {
      if (SCHEMA_MAPS.includes(key) && isNode(value)) {
        node[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fix(v, entered)]))
      } else if (SCHEMA_LISTS.includes(key) && Array.isArray(value)) {
        // An arm that accepts nothing adds nothing to a union.
        const arms = (key === "anyOf" || key === "oneOf") && value.some((v) => !isNever(v)) ? value.filter((v) =>
          !isNever(v)
        ) : value
        node[key] = arms.map((v) => fix(v, entered))
      } else if (SCHEMA_SLOTS.includes(key)) {
        // Open objects are the default; hosts such as Gemini reject the keyword outright, and a
        // `false` would make the host refuse fields the decoder is happy to ignore.
        if (key === "additionalProperties" && typeof value === "boolean") continue
        node[key] = fix(value, entered)
      } else {
        node[key] = value
      }
    }
    // `Schema.Struct({})` is emitted as "anything but null"; hosts want an object, and `not` is unsupported by several.
    const not = node["not"]
    if (isNode(not) && sameJson(not, { type: "null" }) && annotationsOnly(withoutKey(node, "not"))) {
      node = { ...emptyObject(), ...withoutKey(node, "not") }
    }
    for (const key of ["anyOf", "oneOf"]) {
      const arms = node[key]
      if (!Array.isArray(arms)) continue
      const kept = arms.filter((arm, i) =>
        !(direction === "input" && sameJson(arm, INFINITY_ARM) && arms.some(isNumeric)) &&
        arms.findIndex((other) => sameJson(other, arm)) === i
      )
      const only = kept[0]
      if (kept.length === 1 && isNode(only)) node = conjoin(only, withoutKey(node, key))
      else node[key] = kept
    }
    // A key's annotations arrive as `allOf: [{ description }]`; fold them where the host reads them.
    const allOf = node["allOf"]
    if (Array.isArray(allOf)) {
      const folded = allOf.filter((part) =>
        !(isNode(part) && annotationsOnly(part) && Object.keys(part).every((k) => !(k in node)))
      )
      for (const part of allOf) if (!folded.includes(part) && isNode(part)) node = { ...node, ...part }
      node = folded.length === 0 ? withoutKey(node, "allOf") : { ...node, allOf: folded }
    }
    // `Schema.Int` carries the safe-integer range as bounds: true, but noise in every tools/list.
    if (node["type"] === "integer") {
      if (node["minimum"] === Number.MIN_SAFE_INTEGER) node = withoutKey(node, "minimum")
      if (node["maximum"] === Number.MAX_SAFE_INTEGER) node = withoutKey(node, "maximum")
    }
    // The converter puts annotations before `type` on some nodes; a reader wants the type first.
    return "type" in node ? { type: node["type"] ?? null, ...node } : node
  }
  return fix
}

/** Fix a converter document, showing recursion `RECURSION_DEPTH` levels deep, or fewer if that is too big. */
const fixDocument = (schema: Json.Json, definitions: Node, direction: Direction): Json.Json => {
  const recursive = recursiveDefinitions(definitions)
  for (let limit = RECURSION_DEPTH;; limit--) {
    const budget: Budget = { nodes: 0, overflow: false }
    const out = makeFixer(definitions, recursive, limit, budget, direction)(schema, 0)
    if (!budget.overflow || limit <= 1) return out
  }
}

/**
 * Which way a schema faces: an input says what the host should send (`null` for an absent optional
 * key and the "Infinity"/"NaN" strings left out), an output says everything the JSON codec may write.
 */
export type Direction = "input" | "output"

/** A schema's JSON Schema as the converter writes it, fixed for hosts. */
export const converted = (schema: Schema.Top, direction: Direction): Json.Json => {
  const document = Schema.toJsonSchemaDocument(schema)
  // The converter's output is plain data; one JSON round trip types it as such and drops `undefined`s.
  // It cannot fail on converter output; if it ever did, `{}` below advertises "any value", never a wrong shape.
  const json = Result.getOrElse(
    Json.normalize({ schema: document.schema, definitions: document.definitions }),
    (): Json.Json => null
  )
  const defs = isNode(json) && isNode(json["definitions"]) ? json["definitions"] : {}
  return fixDocument(isNode(json) ? json["schema"] ?? {} : {}, defs, direction)
}

export interface Advertised {
  readonly jsonSchema: Json.JsonObject
  /** the host sends `{ value }` and the decoder unwraps it */
  readonly wrapped: boolean
  /** the tool takes no input (`Schema.Void`, `Schema.Undefined`, no schema): whatever arrives is ignored */
  readonly noInput: boolean
}

const topAnnotations = (ast: SchemaAST.AST): Node => {
  const title = SchemaAST.resolveTitle(ast)
  const description = SchemaAST.resolveDescription(ast)
  return { ...(title === undefined ? {} : { title }), ...(description === undefined ? {} : { description }) }
}

export const advertise = (schema: Schema.Constraint | undefined): Advertised => {
  if (schema === undefined) return { jsonSchema: emptyObject(), wrapped: false, noInput: true }
  const encoded = SchemaAST.toEncoded(schema.ast)
  const resolved = SchemaAST.isSuspend(encoded) ? encoded.thunk() : encoded
  if (isUndefinedLike(resolved))
    return { jsonSchema: { ...emptyObject(), ...topAnnotations(schema.ast) }, wrapped: false, noInput: true }
  const body = converted(Schema.make<Schema.Top>(forAdvertising(encoded)), "input")
  if (isNode(body) && body["type"] === "object") {
    // A host such as OpenAI's reads `properties` on every object; a record has none of its own.
    const missing = Object.entries(topAnnotations(schema.ast)).filter(([key]) => !(key in body))
    return {
      jsonSchema: { ...body, properties: body["properties"] ?? {}, ...Object.fromEntries(missing) },
      wrapped: false,
      noInput: false
    }
  }
  return {
    jsonSchema: { type: "object", properties: { value: body }, required: ["value"] },
    wrapped: true,
    noInput: false
  }
}
