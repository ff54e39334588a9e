/**
 * The one place a tool's Effect Schema meets the JSON Schema a host reads, and back.
 *
 * Effect ships the converter (`Schema.toJsonSchemaDocument`, draft 2020-12), so the engine is
 * bought; what this module owns is the glue hosts need, and it is load-bearing because Anthropic,
 * Gemini, Bedrock, Codex and Claude Desktop all read `tools/list`, and between them they reject
 * `additionalProperties`, `$ref`/`$defs`, `not`, a top level that is not an object. So the emitted
 * schema is reopened, dereferenced, bounded where recursive, and always an object at the top, with
 * a scalar, array or union wrapped under `value`. The decoder built beside it reads the host's input
 * with the very JSON codec that document describes, unwraps `value`, and words a wrong field so a
 * model can fix it. The reverse direction (a stranger's JSON Schema → a checker) lives in
 * `JsonSchemaDecoder.ts` and is re-exported here; both directions fail with one `InputError`.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Result, Schema, SchemaAST, SchemaIssue } from "effect"
import { InputError, type Issue, type PathSegment, preview } from "./InputError.ts"
import * as Json from "./Json.ts"
import { fromJsonSchema } from "./JsonSchemaDecoder.ts"

export { formatPath, InputError, InvalidJsonSchema, type Issue, type PathSegment, preview } from "./InputError.ts"
export { fromJsonSchema, type JsonDecoder } from "./JsonSchemaDecoder.ts"

/**
 * How many times a recursive definition is inlined along one path before it becomes `{}` (any
 * JSON). Hosts do not follow `$ref`, so recursion must be unrolled; three levels show a model the
 * shape while keeping a wide recursive type (an expression tree) from multiplying into megabytes.
 * Values nested deeper are still checked in full by the decoder.
 *
 * @example
 * ```ts
 * import { SchemaBridge } from "effect-surface"
 * SchemaBridge.RECURSION_DEPTH // 3: a tree advertises three levels of children, then `{}`
 * ```
 *
 * @since 0.1.0
 */
export const RECURSION_DEPTH = 3

// Keywords that only describe: safe to fold into a sibling schema without changing what it accepts.
const ANNOTATIONS = new Set(["title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment"])

type Node = { [key: string]: Json.Json }

const isNode = (json: Json.Json | undefined): json is Node =>
  typeof json === "object" && json !== null && !Array.isArray(json)

const emptyObject = (): Node => ({ type: "object", properties: {} })

// ---------------------------------------------------------------------------------------------
// Before the converter: a copy of the encoded AST that says what the host should send.
// ---------------------------------------------------------------------------------------------

const isUndefinedLike = (ast: SchemaAST.AST): boolean => SchemaAST.isUndefined(ast) || SchemaAST.isVoid(ast)

/**
 * Rewrite the encoded AST for advertising only (decoding still uses the original codec):
 * - a bare `Number` gains `isFinite`, so it is emitted as `{"type":"number"}` with its bounds and
 *   annotations, instead of a union with an "Infinity"/"NaN" string arm that drops both;
 * - an optional key's `undefined` member is dropped, because the JSON codec writes `undefined` as
 *   `null` and the host would otherwise be told `null` is a meaningful value there.
 * Memoised by node so a `Suspend` keeps returning the same rewritten node and recursion still ends.
 */
const forAdvertising = (root: SchemaAST.AST): SchemaAST.AST => {
  const memo = new Map<SchemaAST.AST, SchemaAST.AST>()
  const optionalMember = (ast: SchemaAST.AST): SchemaAST.AST => {
    const out = go(ast)
    if (!SchemaAST.isOptional(out) || !SchemaAST.isUnion(out) || !out.types.some(isUndefinedLike)) return out
    const kept = out.types.filter((t) => !isUndefinedLike(t))
    if (kept.length === 0) return out
    return new SchemaAST.Union(kept, out.options, out.annotations, out.checks, out.encoding, out.context, out.encodingChecks)
  }
  const go = (ast: SchemaAST.AST): SchemaAST.AST => {
    const seen = memo.get(ast)
    if (seen !== undefined) return seen
    let out: SchemaAST.AST = ast
    switch (ast._tag) {
      case "Number":
        out = new SchemaAST.Number(ast.annotations, [...(ast.checks ?? []), Schema.isFinite()], ast.encoding, ast.context)
        break
      case "Objects":
        out = new SchemaAST.Objects(
          ast.propertySignatures.map((ps) => new SchemaAST.PropertySignature(ps.name, optionalMember(ps.type))),
          ast.indexSignatures.map((is) => new SchemaAST.IndexSignature(is.parameter, go(is.type))),
          ast.annotations, ast.checks, ast.encoding, ast.context, ast.encodingChecks
        )
        break
      case "Arrays":
        out = new SchemaAST.Arrays(ast.isMutable, ast.elements.map(optionalMember), ast.rest.map(go),
          ast.annotations, ast.checks, ast.encoding, ast.context, ast.encodingChecks)
        break
      case "Union":
        out = new SchemaAST.Union(ast.types.map(go), ast.options, ast.annotations, ast.checks, ast.encoding, ast.context, ast.encodingChecks)
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

const isNumeric = (json: Json.Json): boolean => isNode(json) && (json["type"] === "number" || json["type"] === "integer")

const annotationsOnly = (node: Node): boolean => Object.keys(node).every((k) => ANNOTATIONS.has(k))

/** `base` and `extra` both apply; merge them when they share no validating keyword. */
const conjoin = (base: Node, extra: Node): Node => {
  if (Object.keys(extra).length === 0) return base
  const clash = Object.keys(extra).some((k) => k in base && !ANNOTATIONS.has(k))
  return clash ? { allOf: [base, extra] } : { ...base, ...extra }
}

const withoutKey = (node: Node, key: string): Node => Object.fromEntries(Object.entries(node).filter(([k]) => k !== key))

const makeFixer = (definitions: Node) => {
  const fix = (json: Json.Json, depthOf: ReadonlyMap<string, number>): Json.Json => {
    if (!isNode(json)) return json
    const ref = json["$ref"]
    if (typeof ref === "string") {
      // Effect only emits local references into its own definitions table.
      const name = ref.replace(/^#\/\$defs\//, "")
      const depth = depthOf.get(name) ?? 0
      const target = definitions[name]
      const body = target === undefined || depth >= RECURSION_DEPTH
        ? {}
        : fix(target, new Map(depthOf).set(name, depth + 1))
      const rest = fix(withoutKey(json, "$ref"), depthOf)
      return isNode(body) && isNode(rest) ? conjoin(body, rest) : body
    }
    let node: Node = {}
    for (const [key, value] of Object.entries(json)) {
      if (SCHEMA_MAPS.includes(key) && isNode(value)) {
        node[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fix(v, depthOf)]))
      } else if (SCHEMA_LISTS.includes(key) && Array.isArray(value)) {
        node[key] = value.map((v) => fix(v, depthOf))
      } else if (SCHEMA_SLOTS.includes(key)) {
        // Open objects are the default; hosts such as Gemini reject the keyword outright, and a
        // `false` would make the host refuse fields the decoder is happy to ignore.
        if (key === "additionalProperties" && typeof value === "boolean") continue
        node[key] = fix(value, depthOf)
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
        !(sameJson(arm, INFINITY_ARM) && arms.some(isNumeric)) && arms.findIndex((other) => sameJson(other, arm)) === i
      )
      const only = kept[0]
      if (kept.length === 1 && isNode(only)) node = conjoin(only, withoutKey(node, key))
      else node[key] = kept
    }
    // A key's annotations arrive as `allOf: [{ description }]`; fold them where the host reads them.
    const allOf = node["allOf"]
    if (Array.isArray(allOf)) {
      const folded = allOf.filter((part) => !(isNode(part) && annotationsOnly(part) && Object.keys(part).every((k) => !(k in node))))
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
  return (json: Json.Json): Json.Json => fix(json, new Map())
}

interface Advertised {
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

const advertise = (schema: Schema.Constraint | undefined): Advertised => {
  if (schema === undefined) return { jsonSchema: emptyObject(), wrapped: false, noInput: true }
  const encoded = SchemaAST.toEncoded(schema.ast)
  const resolved = SchemaAST.isSuspend(encoded) ? encoded.thunk() : encoded
  if (isUndefinedLike(resolved)) return { jsonSchema: { ...emptyObject(), ...topAnnotations(schema.ast) }, wrapped: false, noInput: true }
  const document = Schema.toJsonSchemaDocument(Schema.make<Schema.Top>(forAdvertising(encoded)))
  // The converter's output is plain data; one JSON round trip types it as such and drops `undefined`s.
  // It cannot fail on converter output; if it ever did, `{}` below advertises "any value", never a wrong shape.
  const json = Result.getOrElse(Json.normalize({ schema: document.schema, definitions: document.definitions }), (): Json.Json => null)
  const defs = isNode(json) && isNode(json["definitions"]) ? json["definitions"] : {}
  const body = makeFixer(defs)(isNode(json) ? json["schema"] ?? {} : {})
  if (isNode(body) && body["type"] === "object") {
    // A host such as OpenAI's reads `properties` on every object; a record has none of its own.
    const missing = Object.entries(topAnnotations(schema.ast)).filter(([key]) => !(key in body))
    return { jsonSchema: { ...body, properties: body["properties"] ?? {}, ...Object.fromEntries(missing) }, wrapped: false, noInput: false }
  }
  return { jsonSchema: { type: "object", properties: { value: body }, required: ["value"] }, wrapped: true, noInput: false }
}

/**
 * The JSON Schema (draft 2020-12) a host reads for a tool's input. Always an object at the top:
 * a scalar, array, union or other non-object input is advertised as `{ value: <schema> }`. Objects
 * are open, `$ref`s are inlined (recursion to `RECURSION_DEPTH`), `Schema.Number` is a plain number,
 * `Schema.optional` fields are not required and say `null` only if the inner schema accepts it, and
 * no input at all (`Schema.Void`, `Schema.Undefined`, omitted) is `{"type":"object","properties":{}}`.
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
export const inputSchema = (schema?: Schema.Constraint): Json.JsonObject => advertise(schema).jsonSchema

/**
 * A tool input compiled once: what to advertise, and how to read what the host sends back.
 *
 * @since 0.1.0
 */
export interface Compiled<A, R = never> {
  readonly jsonSchema: Json.JsonObject
  /** the schema is advertised under `value`, and `decode` unwraps it */
  readonly wrapped: boolean
  readonly decode: (input: unknown) => Effect.Effect<A, InputError, R>
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

// Effect's default wording, tuned for a model and matched to the JSON Schema checker's: lower-case,
// "a number" rather than "number", a missing key named as such, and bounded, because the default
// message quotes the whole offending input.
const reword = (message: string): string => {
  const text = message === "Missing key"
    ? "missing required field"
    : message.replace(/^Expected (?:(string|number|boolean)|(object|array))\b/, (_, a?: string, an?: string) => `expected ${a === undefined ? `an ${an}` : `a ${a}`}`)
      .replace(/^Expected\b/, "expected")
  return text.length > 160 ? `${text.slice(0, 159)}…` : text
}

// Effect's parser recurses per level and overflows the stack on input nested some thousands deep;
// a host has no reason to send more than this, so it is refused as input rather than dying.
const MAX_INPUT_DEPTH = 128

const nestsTooDeep = (input: unknown): boolean => {
  const stack: Array<readonly [unknown, number]> = [[input, 0]]
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [value, depth] = next
    if (typeof value !== "object" || value === null) continue
    if (depth >= MAX_INPUT_DEPTH) return true
    for (const child of Object.values(value)) stack.push([child, depth + 1])
  }
  return false
}

const toInputError = (issue: SchemaIssue.Issue, prefix: ReadonlyArray<PathSegment>): InputError => {
  const issues = formatter(issue).issues.map((i): Issue => ({
    path: [...prefix, ...(i.path ?? []).map((seg) => {
      const key = typeof seg === "object" ? seg.key : seg
      return typeof key === "symbol" ? String(key) : key
    })],
    message: reword(i.message)
  }))
  const [head, ...tail] = issues
  return new InputError({ issues: [head ?? { path: [...prefix], message: "invalid input" }, ...tail] })
}

const inputError = (path: ReadonlyArray<PathSegment>, message: string): InputError => new InputError({ issues: [{ path, message }] })

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null && !Array.isArray(u)

// Compiling walks the AST and the converter; a schema value is immutable, so once per schema is enough.
const compiled = new WeakMap<object, Compiled<unknown, unknown>>()

const build = <S extends Schema.Constraint>(schema: S): Compiled<S["Type"], S["DecodingServices"]> => {
  const { jsonSchema, noInput, wrapped } = advertise(schema)
  const run = Schema.decodeUnknownEffect(Schema.toCodecJson(schema), { errors: "all", reportInput: true })
  const read = (input: unknown, prefix: ReadonlyArray<PathSegment>) =>
    nestsTooDeep(input)
      ? Effect.fail(inputError(prefix, `nests deeper than ${MAX_INPUT_DEPTH} levels`))
      : Effect.mapError(run(input), (error) => toInputError(error.issue, prefix))
  const decode = (input: unknown): Effect.Effect<S["Type"], InputError, S["DecodingServices"]> => {
    // `null` is the JSON form of `undefined`; a no-input tool ignores whatever the host sent.
    if (noInput) return read(null, [])
    // MCP lets a host omit `arguments`; for an object input that is `{}`.
    if (!wrapped) return read(input ?? {}, [])
    if (!isRecord(input)) return Effect.fail(inputError([], `expected an object with a "value" field, got ${preview(input)}`))
    if (!Object.hasOwn(input, "value")) return Effect.fail(inputError(["value"], "missing required field"))
    return read(input["value"], ["value"])
  }
  return { jsonSchema, wrapped, decode }
}

const noInput: Compiled<void> = {
  jsonSchema: emptyObject(),
  wrapped: false,
  decode: () => Effect.void
}

/**
 * Compile a tool's input schema once: the JSON Schema to advertise and the decoder for what the
 * host sends. The decoder unwraps `{ value }` when the schema was wrapped, reads the input with
 * `Schema.toCodecJson(schema)` (the codec the advertised document describes), treats omitted
 * arguments as `{}`, and fails with an `InputError` naming every wrong field by its path. No schema
 * at all is a tool without input: `{"type":"object","properties":{}}`, and anything decodes to void.
 * Compiling the same schema value again returns the first result.
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
export function compile<S extends Schema.Constraint>(schema?: S): Compiled<S["Type"], S["DecodingServices"]> | Compiled<void> {
  if (schema === undefined) return noInput
  // One schema value has one `Type` and one set of services, so the entry stored for it fits it.
  const hit = compiled.get(schema) as Compiled<S["Type"], S["DecodingServices"]> | undefined
  if (hit !== undefined) return hit
  const out = build(schema)
  compiled.set(schema, out)
  return out
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
  static readonly layer = Layer.succeed(SchemaBridge, SchemaBridge.of({ inputSchema, compile, decoder, fromJsonSchema, serialize }))
}
