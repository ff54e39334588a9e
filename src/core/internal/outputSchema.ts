/**
 * A procedure's `outputSchema`: what every `structuredContent` its calls carry looks like, read off
 * the Effect Schemas it declares, so a host, a model and a validating client see the shape the
 * answer will have. Apart from `advertise.ts` (whose converter and fixes it shares) because an
 * output faces the other way: it says everything the JSON codec may write, not what a host should send.
 *
 * @internal
 */
import type * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import type * as Json from "../Json.ts"
import { ANNOTATIONS, converted, isNode, isUndefinedLike, type Node } from "./advertise.ts"

// What a missing or void output is answered as: nothing, which travels as `{ "value": null }`.
const NOTHING: Node = { type: "object", properties: { value: { type: "null" } }, required: ["value"] }

const unionArms = (node: Node): ReadonlyArray<Json.Json> | undefined => {
  const arms = node["anyOf"] ?? node["oneOf"]
  return Array.isArray(arms) && Object.keys(node).every((k) => k === "anyOf" || k === "oneOf" || ANNOTATIONS.has(k))
    ? arms
    : undefined
}

const underValue = (body: Json.Json): Node => ({ type: "object", properties: { value: body }, required: ["value"] })

interface Split {
  readonly objects: Array<Node>
  readonly others: Array<Json.Json>
}

// A union's arms apart: those that only accept objects, and the rest; an arm that may be either
// kind is in both (any object on one side).
const split = (body: Json.Json, into: Split): Split => {
  const arms = isNode(body) ? unionArms(body) : undefined
  if (arms !== undefined) {
    for (const arm of arms) split(arm, into)
    return into
  }
  if (isNode(body) && body["type"] === "object") into.objects.push(body)
  else {
    const type = isNode(body) ? body["type"] : "unknown"
    const neverObject = (typeof type === "string" && type !== "object") ||
      (Array.isArray(type) && !type.includes("object"))
    if (!neverObject) into.objects.push({ type: "object" })
    into.others.push(body)
  }
  return into
}

/**
 * The schemas a value of `body` takes as a structured arm, as alternatives: an object bare, anything
 * else under `value`, as `Json.toStructured` wraps it.
 */
const structuredArms = (body: Json.Json): ReadonlyArray<Node> => {
  const { objects, others } = split(body, { objects: [], others: [] })
  if (objects.length === 0) return [underValue(body)]
  if (others.length === 0) return objects
  return [...objects, underValue(others.length === 1 ? others[0] ?? {} : { anyOf: others })]
}

const outputs = new WeakMap<object, WeakMap<object, Json.JsonObject>>()
const NO_SCHEMA = {}

/**
 * A procedure's `outputSchema`: the JSON Schema of every `structuredContent` its calls can carry —
 * the declared output's JSON form, and, beside it, each declared failure's (a refusal carries its
 * detail there too, and a client such as the 1.x SDK checks an `isError` answer against this schema
 * as well). MCP wants an object at the root, so alternatives sit under `anyOf` in one object.
 * Computed once per pair of schemas.
 */
export const outputSchema = (
  output: Schema.Top | undefined,
  error: Schema.Top | undefined
): Json.JsonObject => {
  const byError = outputs.get(output ?? NO_SCHEMA) ?? new WeakMap<object, Json.JsonObject>()
  outputs.set(output ?? NO_SCHEMA, byError)
  const seen = byError.get(error ?? NO_SCHEMA)
  if (seen !== undefined) return seen
  const answers = output === undefined || isUndefinedLike(SchemaAST.toEncoded(output.ast))
    ? [NOTHING]
    : structuredArms(converted(output, "output"))
  const arms = [...answers, ...(error === undefined ? [] : structuredArms(converted(error, "output")))]
  const only = arms[0]
  const schema: Json.JsonObject = arms.length === 1 && only !== undefined ? only : { type: "object", anyOf: arms }
  byError.set(error ?? NO_SCHEMA, schema)
  return schema
}
