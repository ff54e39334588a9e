/**
 * One serialization of any answer, read twice.
 *
 * A tool answer reaches a host as prose (`content`) and as data (`structuredContent`). Both arms are
 * read off the same JSON text so they cannot disagree, and so a value that is an object in memory
 * but a string on the wire (a `Date`) never publishes a structured arm that is not an object. MCP
 * types the structured arm as a JSON object, so anything else travels under a single `value` key —
 * the same key a scalar input is wrapped in.
 *
 * @since 0.1.0
 */
import { Data, Result } from "effect"

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
    return `${/^[AEIOU]/.test(this.constructorName) ? "an" : "a"} ${this.constructorName} has no JSON form (${this.reason})`
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

/**
 * Serialize an answer once and read both arms off that one text.
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
  Result.map(stringify(value), (text) => {
    // JSON.parse of JSON.stringify output is always a Json value.
    const json: Json = JSON.parse(text)
    return { text, structured: toStructured(json) }
  })

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
  Result.map(stringify(value), (text): Json => JSON.parse(text))
