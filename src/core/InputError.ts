/**
 * The one error for "the input does not fit the schema", shared by both directions of the bridge.
 *
 * An Effect Schema decoder and a raw-JSON-Schema checker fail in different vocabularies; a model
 * calling a tool should not care which one it met. Both report here as a list of issues, each with
 * the path of the wrong field from the root the caller sent, and both word the common mistakes
 * alike: a wrong type (`value at "user.age": expected a number, got "x"`), a missing field, a
 * literal union (`expected "low" or "high", got "mid"`), a tagged union at its `_tag` field, a
 * length (`expected at least 3 characters`) or a bound (`expected a number at most 5`). A schema
 * that cannot be used at all is a different failure (`InvalidJsonSchema`), aimed at whoever
 * supplied the schema, not the model.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * One step into a value: an object key or an array index.
 *
 * @example
 * ```ts
 * import { SchemaBridge } from "effect-surface"
 * const path: ReadonlyArray<SchemaBridge.PathSegment> = ["user", "tags", 2]
 * ```
 *
 * @since 0.1.0
 */
export type PathSegment = string | number

const Issue = Schema.Struct({
  path: Schema.Array(Schema.Union([Schema.String, Schema.Number])),
  message: Schema.String
})

/**
 * One thing wrong with an input: where (`path`, from the root the caller sent) and what.
 *
 * @example
 * ```ts
 * import { SchemaBridge } from "effect-surface"
 * const issue: SchemaBridge.Issue = { path: ["user", "age"], message: "expected a number, got \"x\"" }
 * ```
 *
 * @since 0.1.0
 */
export type Issue = typeof Issue.Type

/**
 * The path of a field as a reader writes it: `user.tags[2]`, `["odd key"].x`.
 *
 * @example
 * ```ts
 * import { SchemaBridge } from "effect-surface"
 * SchemaBridge.formatPath(["user", "tags", 2]) // "user.tags[2]"
 * ```
 *
 * @since 0.1.0
 */
export const formatPath = (path: ReadonlyArray<PathSegment>): string =>
  path.reduce<string>((acc, seg) => {
    if (typeof seg === "number") return `${acc}[${seg}]`
    if (/^[A-Za-z_$][\w$-]*$/.test(seg)) return acc === "" ? seg : `${acc}.${seg}`
    return `${acc}[${JSON.stringify(seg)}]`
  }, "")

// An LLM acts on the first few problems; a wall of fifty repeats itself and drowns the fix.
const MAX_REPORTED = 8

/**
 * The input does not fit the tool's schema. The message names each wrong field by its path, in
 * words a model can act on: `value at "user.age": expected a number, got "x"`.
 *
 * @example
 * ```ts
 * import { SchemaBridge } from "effect-surface"
 * new SchemaBridge.InputError({ issues: [{ path: ["age"], message: "expected a number, got \"x\"" }] })
 * ```
 *
 * @since 0.1.0
 */
export class InputError extends Schema.TaggedError<InputError>()("InputError", {
  issues: Schema.NonEmptyArray(Issue)
}) {
  override get message(): string {
    return sentence(this.issues, (message) => message)
  }
}

const sentence = (issues: ReadonlyArray<Issue>, word: (message: string) => string): string => {
  const shown = issues.slice(0, MAX_REPORTED).map((issue) =>
    `value${issue.path.length === 0 ? "" : ` at ${JSON.stringify(formatPath(issue.path))}`}: ${word(issue.message)}`
  )
  const rest = issues.length - shown.length
  return rest > 0 ? `${shown.join("; ")}; and ${rest} more` : shown.join("; ")
}

// Every message that names the value it was given names it last, after this phrase.
const GOT = ", got "

/**
 * An input error's sentence without the values it was given: each wrong field's path and what was
 * expected of it, each issue's message cut where it says what it got (`, got …`, where this
 * package's wording puts the value). For a record that must not hold what a caller sent (an audit
 * row), while the caller itself is told the whole `message`.
 *
 * @example
 * ```ts
 * import { SchemaBridge } from "effect-surface"
 * const error = new SchemaBridge.InputError({ issues: [{ path: ["to"], message: 'expected a string matching /^acct-/, got "evil"' }] })
 * SchemaBridge.withoutValues(error) // 'value at "to": expected a string matching /^acct-/'
 * ```
 *
 * @since 0.1.0
 */
export const withoutValues = (error: InputError): string =>
  sentence(error.issues, (message) => {
    const at = message.indexOf(GOT)
    return at < 0 ? message : message.slice(0, at)
  })

/**
 * The JSON Schema itself cannot be used: `pointer` says where in it (`#/properties/age`).
 *
 * @example
 * ```ts
 * import { SchemaBridge } from "effect-surface"
 * new SchemaBridge.InvalidJsonSchema({ pointer: "#/required", reason: "must be an array of strings" })
 * ```
 *
 * @since 0.1.0
 */
export class InvalidJsonSchema extends Schema.TaggedError<InvalidJsonSchema>()("InvalidJsonSchema", {
  pointer: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `JSON Schema at "${this.pointer}": ${this.reason}`
  }
}

/**
 * A short, bounded preview of a value for a message: `"x"`, `42`, `{"a":1,"b":[1,2…]}`. It never
 * stringifies the whole value and never throws: a huge, wide or deeply nested input (or one whose
 * reading throws) costs a few dozen characters, never more than twice `room` (at most 1024) and eight.
 *
 * @example
 * ```ts
 * import { SchemaBridge } from "effect-surface"
 * SchemaBridge.preview({ name: "x".repeat(100) }) // '{"name":"xxxx…"}'
 * ```
 *
 * @since 0.1.0
 */
export const preview = (value: unknown, room = 60): string => {
  const shown = Math.max(8, Math.min(room, MAX_PREVIEW))
  try {
    return cut(previewOf(value, shown), 2 * shown + 8)
  } catch {
    // A getter or a Proxy trap threw while it was read: the message must still be written.
    return "an unreadable value"
  }
}

// The longest preview asked for: a message names a value, it does not quote it.
const MAX_PREVIEW = 1024

// `text` in at most `most` characters, an ellipsis where it was cut.
const cut = (text: string, most: number): string => text.length <= most ? text : `${text.slice(0, most - 1)}…`

const quoted = (text: string, room: number): string =>
  text.length > room ? `${cut(JSON.stringify(text.slice(0, room)).slice(0, -1), room + 1)}…"`
    : cut(JSON.stringify(text), room + 2)

// Each level gives its items less room than it had, so the depth is bounded by the room itself.
const previewOf = (value: unknown, room: number): string => {
  if (value === undefined) return "nothing"
  if (typeof value === "string") return quoted(value, Math.max(room, 8))
  if (typeof value !== "object" || value === null) return cut(String(value), Math.max(room, 8))
  const isArray = Array.isArray(value)
  if (room <= 4) return isArray ? "[…]" : "{…}"
  const parts: Array<string> = []
  let left = room - 2
  const add = (key: string, item: unknown): boolean => {
    if (left <= 0) {
      parts.push("…")
      return false
    }
    const shown = previewOf(item, left - 2)
    const part = isArray ? shown : `${quoted(key, Math.max(8, left - 2))}:${shown}`
    parts.push(part)
    left -= part.length + 1
    return true
  }
  if (isArray) {
    for (let i = 0; i < value.length && add("", value[i]); i++);
  } else {
    for (const key in value) if (Object.hasOwn(value, key) && !add(key, (value as Record<string, unknown>)[key])) break
  }
  return isArray ? `[${parts.join(",")}]` : `{${parts.join(",")}}`
}
