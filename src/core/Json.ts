/**
 * One serialization of any answer, read twice.
 *
 * A tool answer reaches a host as prose (`content`) and as data (`structuredContent`). Both arms are
 * what the same JSON text says, so they cannot disagree, and so a value that is an object in memory
 * but a string on the wire (a `Date`) never publishes a structured arm that is not an object. MCP
 * types the structured arm as a JSON object, so anything else travels under a single `value` key —
 * the same key a scalar input is wrapped in. Reading the text back is the answer's dearest step
 * after writing it, so a value that is plain JSON already (most answers) is copied as it stands,
 * which is what reading it back would give; anything else is read back off the text.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Result from "effect/Result"

/**
 * A JSON value, as it exists after a round trip through `JSON.stringify`.
 *
 * @example
 * ```ts
 * import type { Json } from "effect-surface"
 * const value: Json.Json = { open: 3, tags: ["a", "b"], done: null }
 * ```
 *
 * @since 0.1.0
 */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

/**
 * A JSON object: the only shape MCP accepts as `structuredContent`.
 *
 * @example
 * ```ts
 * import type { Json } from "effect-surface"
 * const structured: Json.JsonObject = { value: 42 }
 * ```
 *
 * @since 0.1.0
 */
export type JsonObject = { readonly [key: string]: Json }

/**
 * An answer read once: its JSON text and the object a host receives as structured data.
 *
 * @example
 * ```ts
 * import type { Json } from "effect-surface"
 * const answer: Json.Serialized = { text: "42", structured: { value: 42 } }
 * ```
 *
 * @since 0.1.0
 */
export interface Serialized {
  readonly text: string
  readonly structured: JsonObject
}

/**
 * An answer that has no JSON form (a `BigInt`, a cycle, a throwing `toJSON`).
 *
 * @example
 * ```ts
 * import { Json } from "effect-surface"
 * new Json.Unserializable({ constructorName: "BigInt", reason: "Do not know how to serialize a BigInt" }).message
 * // "a BigInt has no JSON form (Do not know how to serialize a BigInt)"
 * ```
 *
 * @since 0.1.0
 */
export class Unserializable extends Data.TaggedError("Unserializable")<{
  readonly constructorName: string
  readonly reason: string
}> {
  override get message(): string {
    return `${
      /^[AEIOU]/.test(this.constructorName) ? "an" : "a"
    } ${this.constructorName} has no JSON form (${this.reason})`
  }
}

// A primitive is named by its wrapper's constructor (a bigint is a `BigInt`), like any object.
const constructorNameOf = (value: unknown): string => {
  if (value === null || value === undefined) return String(value)
  const ctor: unknown = (Object(value) as { readonly constructor?: unknown }).constructor
  return typeof ctor === "function" && ctor.name !== "" ? ctor.name : "Object"
}

/**
 * The JSON text of a value, with `undefined` (which `JSON.stringify` drops) written as `null`.
 *
 * @example
 * ```ts
 * import { Json } from "effect-surface"
 * Json.stringify(new Date(0)) // Result.succeed('"1970-01-01T00:00:00.000Z"')
 * ```
 *
 * @since 0.1.0
 */
export const stringify = (value: unknown): Result.Result<string, Unserializable> => {
  try {
    const text: string | undefined = JSON.stringify(value)
    return Result.succeed(text === undefined ? "null" : text)
  } catch (cause) {
    return Result.fail(
      new Unserializable({
        constructorName: constructorNameOf(value),
        reason: cause instanceof Error ? cause.message : String(cause)
      })
    )
  }
}

const isJsonObject = (json: Json): json is JsonObject =>
  typeof json === "object" && json !== null && !Array.isArray(json)

/**
 * Wrap a JSON value as the structured arm: an object travels bare, anything else under `value`.
 *
 * @example
 * ```ts
 * import { Json } from "effect-surface"
 * Json.toStructured(42) // { value: 42 }
 * Json.toStructured({ open: 3 }) // { open: 3 }
 * ```
 *
 * @since 0.1.0
 */
export const toStructured = (json: Json): JsonObject => isJsonObject(json) ? json : { value: json }

// Past this depth the copy leaves the value to `JSON.parse`, whose recursion is not on this stack.
const MAX_COPY_DEPTH = 64

// What `JSON.parse(JSON.stringify(value))` gives, for a value `JSON.stringify` has just written:
// built by copying when the value is plain JSON (plain objects and arrays of strings, numbers,
// booleans and null), `undefined` when it holds anything the text would read back differently
// (a `Date`, a `toJSON`, a class instance, a hole), which the caller then reads back off the text.
const copyPlain = (value: unknown, depth: number): Json | undefined => {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value
    case "number":
      // NaN and ±Infinity are written as null, and -0 as 0.
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null
    case "object":
      return value === null ? null : depth < MAX_COPY_DEPTH ? copyContainer(value, depth + 1) : undefined
    default:
      return undefined
  }
}

const copyContainer = (value: object, depth: number): Json | undefined => {
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return undefined
    const out: Array<Json> = []
    for (let i = 0; i < value.length; i++) {
      const item = copyPlain(value[i], depth)
      if (item === undefined) return undefined
      out.push(item)
    }
    return out
  }
  const prototype: unknown = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) return undefined
  const out: { [key: string]: Json } = {}
  const fields = value as { readonly [key: string]: unknown }
  for (const key of Object.keys(fields)) {
    const field = fields[key]
    // A key holding `undefined` is left out of the text; `__proto__` would not be copied as a key.
    if (field === undefined) continue
    const copied = key === "__proto__" ? undefined : copyPlain(field, depth)
    if (copied === undefined) return undefined
    out[key] = copied
  }
  return out
}

// The value a written text reads back as.
const readBack = (value: unknown, text: string): Json => copyPlain(value, 0) ?? JSON.parse(text)

/**
 * Serialize an answer once; the structured arm is what that one text reads back as.
 *
 * @example
 * ```ts
 * import { Json } from "effect-surface"
 * Json.serialize(42) // Result.succeed({ text: "42", structured: { value: 42 } })
 * Json.serialize({ at: new Date(0) }) // structured: { at: "1970-01-01T00:00:00.000Z" }
 * ```
 *
 * @since 0.1.0
 */
export const serialize = (value: unknown): Result.Result<Serialized, Unserializable> =>
  Result.map(stringify(value), (text) => ({ text, structured: toStructured(readBack(value, text)) }))

/**
 * A value as it arrives on the far side of the wire: `Date` as its ISO string, `undefined` as `null`.
 *
 * @example
 * ```ts
 * import { Json } from "effect-surface"
 * Json.normalize({ at: new Date(0), gone: undefined }) // Result.succeed({ at: "1970-01-01T00:00:00.000Z" })
 * ```
 *
 * @since 0.1.0
 */
export const normalize = (value: unknown): Result.Result<Json, Unserializable> =>
  Result.map(stringify(value), (text): Json => readBack(value, text))

/**
 * JSON with every object's keys in order (and `undefined` members left out): one text for one value
 * however its keys were written, so a lock comparison, an argument digest or a tool's fingerprint
 * does not move when only key order does.
 *
 * @example
 * ```ts
 * import { Json } from "effect-surface"
 * Json.canonical({ b: 1, a: [true, { d: null, c: "x" }] }) // '{"a":[true,{"c":"x","d":null}],"b":1}'
 * ```
 *
 * @since 0.1.0
 */
export const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0
    )
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}
