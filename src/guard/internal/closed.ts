/**
 * A locked input schema with each object it describes closed to the keys it does not name.
 *
 * A restriction on `amount` means nothing if the upstream also reads `AMOUNT`, or `extra.amount`:
 * a key the reviewed schema does not name is a way around it. So a guard serves, and checks against,
 * the locked schema with `additionalProperties: false` on every object that leaves it open —
 * reached through `properties`, `items`, `prefixItems`, `anyOf`, `oneOf`, `$defs` and the values of
 * a record (an object whose `additionalProperties` is a schema: its keys are data, and it stays as
 * it is). An object whose keys other subschemas may also name (`allOf`, `if`/`then`/`else`,
 * `dependentSchemas`, a `$ref` beside its properties, `patternProperties` the guard does not run)
 * cannot be closed without refusing what they allow, so it is refused instead: the grant must say
 * where extra keys may pass.
 *
 * @internal
 */
import * as Result from "effect/Result"
import type * as Json from "../../core/Json.ts"

/** An object in the schema that cannot be closed: where, and the keyword that composes it. */
export interface Unclosable {
  readonly pointer: string
  readonly keyword: string
}

const isObject = (json: Json.Json | undefined): json is Json.JsonObject =>
  typeof json === "object" && json !== null && !Array.isArray(json)

const describesObject = (node: Json.JsonObject): boolean =>
  node["type"] === "object" || (Array.isArray(node["type"]) && node["type"].includes("object")) ||
  isObject(node["properties"])

// Subschemas that may name keys of the same object as their parent.
const COMPOSING = ["allOf", "if", "then", "else", "dependentSchemas"] as const

const composer = (node: Json.JsonObject): string | undefined => {
  if (describesObject(node)) {
    return [...COMPOSING, "$ref", "unevaluatedProperties"].find((keyword) => node[keyword] !== undefined)
  }
  return COMPOSING.find((keyword) => {
    const sub = node[keyword]
    const subs = Array.isArray(sub) ? sub
      : isObject(sub) ? keyword === "dependentSchemas" ? Object.values(sub) : [sub] : []
    return subs.some((s) => isObject(s) && describesObject(s))
  })
}

const MAX_DEPTH = 128

const escape = (key: string) => key.replaceAll("~", "~0").replaceAll("/", "~1")

type Walk = (node: Json.Json, pointer: string, depth: number) => Result.Result<Json.Json, Unclosable>

const eachOf = (value: Json.Json, pointer: string, depth: number, walk: Walk, skip: (key: string) => boolean) => {
  if (Array.isArray(value)) {
    const out: Array<Json.Json> = []
    for (const [i, item] of value.entries()) {
      const walked = walk(item, `${pointer}/${i}`, depth + 1)
      if (Result.isFailure(walked)) return walked
      out.push(walked.success)
    }
    return Result.succeed<Json.Json>(out)
  }
  if (!isObject(value)) return Result.succeed(value)
  const out: Record<string, Json.Json> = {}
  for (const [key, item] of Object.entries(value)) {
    if (skip(key)) {
      out[key] = item
      continue
    }
    const walked = walk(item, `${pointer}/${escape(key)}`, depth + 1)
    if (Result.isFailure(walked)) return walked
    out[key] = walked.success
  }
  return Result.succeed<Json.Json>(out)
}

// Keywords holding a map of subschemas, and those holding one subschema or a list of them.
const MAPS = ["properties", "patternProperties", "$defs", "definitions"] as const
const SCHEMAS = ["items", "prefixItems", "additionalItems", "anyOf", "oneOf", "additionalProperties"] as const

const walker = (open: ReadonlySet<string>): Walk => {
  const walk: Walk = (node, pointer, depth) => {
    if (!isObject(node)) return Result.succeed(node)
    if (depth > MAX_DEPTH) return Result.fail({ pointer, keyword: `nesting deeper than ${MAX_DEPTH} levels` })
    const out: Record<string, Json.Json> = { ...node }
    for (const keyword of [...MAPS, ...SCHEMAS]) {
      const value = node[keyword]
      if (value === undefined) continue
      // Only the top object's own properties can be left open by name.
      const skip = (key: string) => keyword === "properties" && pointer === "#" && open.has(key)
      const walked = MAPS.some((k) => k === keyword)
        ? eachOf(value, `${pointer}/${keyword}`, depth, walk, skip)
        : Array.isArray(value)
        ? eachOf(value, `${pointer}/${keyword}`, depth, walk, () => false)
        : walk(value, `${pointer}/${keyword}`, depth + 1)
      if (Result.isFailure(walked)) return walked
      out[keyword] = walked.success
    }
    if (!describesObject(node)) {
      const keyword = composer(node)
      return keyword === undefined ? Result.succeed(out) : Result.fail({ pointer, keyword })
    }
    // Closed already, or a record: its keys are data, each checked by the schema it gives them.
    const leftOpen = node["additionalProperties"] === undefined || node["additionalProperties"] === true
    if (!leftOpen) return Result.succeed(out)
    // The upstream's patterns are not run here, so the keys they name cannot be told either.
    const keyword = node["patternProperties"] === undefined ? composer(node) : "patternProperties"
    return keyword === undefined
      ? Result.succeed({ ...out, additionalProperties: false })
      : Result.fail({ pointer, keyword })
  }
  return walk
}

/**
 * `schema` with its objects closed, except inside the top-level arguments named in `open`; the
 * first object that cannot be closed when there is one.
 */
export const close = (
  schema: Json.JsonObject,
  open: ReadonlySet<string>
): Result.Result<Json.JsonObject, Unclosable> =>
  Result.map(walker(open)(schema, "#", 0), (closed) => isObject(closed) ? closed : schema)
