/**
 * A tool's input as command-line flags, and the flags' values back as the tool's arguments.
 *
 * The flags are typed from the tool's fields (`Fields`): a string, number, integer or boolean is
 * one flag of its type, an array of them a repeated flag, a nested object's fields dotted flags
 * (`--address.city`), and anything the model does not type one flag taking JSON. Names are
 * kebab-cased for a shell (`dueDate` → `--due-date`). Enums, bounds and requiredness are told in
 * `--help`, never enforced by the parser: a value out of bounds reaches the tool's one execute path
 * and is refused there, in the words (and the audit row) any other door gets. Only what cannot be
 * said on a command line at all — `abc` for an integer, broken JSON — stops at the parser.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import { Flag } from "effect/cli"
import * as Fields from "../core/Fields.ts"
import type * as Json from "../core/Json.ts"

/**
 * How one flag carries its field: one value, a repeated flag (an array of scalars), or JSON text.
 *
 * @example
 * ```ts
 * import type { CliFlags } from "effect-surface/cli"
 * const repeated: CliFlags.Kind = "repeated" // --tag a --tag b
 * ```
 *
 * @since 0.1.0
 */
export type Kind = "scalar" | "repeated" | "json"

/**
 * One flag: its name, where its value goes in the arguments (`[]` is the arguments whole), the
 * field it is typed from, whether that field is required, and how it is carried.
 *
 * @example
 * ```ts
 * import { Fields } from "effect-surface"
 * import type { CliFlags } from "effect-surface/cli"
 * const city: CliFlags.Leaf = { flag: "address.city", path: ["address", "city"], field: Fields.fromJsonSchema({ type: "string" }), required: true, kind: "scalar", within: [true] }
 * ```
 *
 * @since 0.1.0
 */
export interface Leaf {
  readonly flag: string
  readonly path: ReadonlyArray<string>
  readonly field: Fields.Field
  readonly required: boolean
  readonly kind: Kind
  /** Whether each object around it, from the top down, is required: one is there, when its parent is, even if no flag of its is given. */
  readonly within: ReadonlyArray<boolean>
}

/**
 * A shell name: camelCase, snake_case and spaces become kebab-case (`dueDate`, `due_date` → `due-date`).
 *
 * @example
 * ```ts
 * import { CliFlags } from "effect-surface/cli"
 * CliFlags.kebab("dueDate") // "due-date"
 * CliFlags.kebab("board_progress") // "board-progress"
 * ```
 *
 * @since 0.1.0
 */
export const kebab = (name: string): string =>
  name.replace(/([a-z0-9])([A-Z])/g, "$1-$2").replace(/[_\s]+/g, "-").toLowerCase()

const kindOf = (field: Fields.Field): Kind =>
  Fields.isScalar(field) ? "scalar" : field._tag === "List" && Fields.isScalar(field.items) ? "repeated" : "json"

const walk = (
  group: Fields.Group,
  path: ReadonlyArray<string>,
  names: ReadonlyArray<string>,
  within: ReadonlyArray<boolean>,
  into: Array<Leaf>
): void => {
  for (const { field, name } of group.properties) {
    const at = [...path, name]
    const flagNames = [...names, kebab(name)]
    const required = group.required.includes(name)
    // A group with fields of its own is dotted flags; an empty one takes JSON.
    if (field._tag === "Group" && field.properties.length > 0) walk(field, at, flagNames, [...within, required], into)
    else into.push({ flag: flagNames.join("."), path: at, field, required, kind: kindOf(field), within })
  }
}

/**
 * Two fields would read as one flag (`dueDate` and `due_date` are both `--due-date`).
 *
 * @example
 * ```ts
 * import { CliFlags } from "effect-surface/cli"
 * const clash = new CliFlags.FlagClash({ flag: "due-date", paths: ["dueDate", "due_date"] })
 * clash.message // 'the fields dueDate and due_date both read as --due-date'
 * ```
 *
 * @since 0.1.0
 */
export class FlagClash
  extends Data.TaggedError("FlagClash")<{ readonly flag: string; readonly paths: ReadonlyArray<string> }>
{
  override get message(): string {
    return `the fields ${this.paths.join(" and ")} both read as --${this.flag}`
  }
}

/**
 * The flags of a tool's input. An object input is one flag per leaf field; any other input (a
 * union, a `$ref` at the top) is one `--json` flag carrying the arguments whole.
 *
 * @example
 * ```ts
 * import { Fields } from "effect-surface"
 * import { CliFlags } from "effect-surface/cli"
 * const leaves = CliFlags.leaves(Fields.fromJsonSchema({
 *   type: "object",
 *   properties: { dueDate: { type: "string" }, address: { type: "object", properties: { city: { type: "string" } } } }
 * }))
 * // Result.succeed([{ flag: "due-date", … }, { flag: "address.city", path: ["address", "city"], … }])
 * ```
 *
 * @since 0.1.0
 */
export const leaves = (input: Fields.Field): Result.Result<ReadonlyArray<Leaf>, FlagClash> => {
  if (input._tag !== "Group")
    return Result.succeed([{ flag: "json", path: [], field: input, required: true, kind: "json", within: [] }])
  const found: Array<Leaf> = []
  walk(input, [], [], [], found)
  const byFlag = new Map<string, Leaf>()
  for (const leaf of found) {
    const first = byFlag.get(leaf.flag)
    if (first !== undefined)
      return Result.fail(new FlagClash({ flag: leaf.flag, paths: [first.path.join("."), leaf.path.join(".")] }))
    byFlag.set(leaf.flag, leaf)
  }
  return Result.succeed(found)
}

const quote = (values: ReadonlyArray<Json.Json>): string =>
  values.map((v) => typeof v === "string" ? v : JSON.stringify(v)).join(", ")

/**
 * What `--help` says of a flag beyond its description: its enum, bounds, length, pattern, and
 * whether it is required or repeatable.
 *
 * @example
 * ```ts
 * import { Fields } from "effect-surface"
 * import { CliFlags } from "effect-surface/cli"
 * CliFlags.constraints({ flag: "qty", path: ["qty"], field: Fields.fromJsonSchema({ type: "integer", minimum: 1, maximum: 10 }), required: true, kind: "scalar", within: [] })
 * // ["required", "an integer", "at least 1", "at most 10"]
 * ```
 *
 * @since 0.1.0
 */
export const constraints = (leaf: Leaf): ReadonlyArray<string> => {
  const field = leaf.kind === "repeated" && leaf.field._tag === "List" ? leaf.field.items : leaf.field
  const words: Array<string> = leaf.required ? ["required"] : []
  if (leaf.kind === "repeated") words.push("repeatable")
  if (leaf.kind === "json") words.push("JSON")
  if (field._tag === "Numeric") {
    if (field.integer) words.push("an integer")
    if (field.enum !== undefined) words.push(`one of: ${quote(field.enum)}`)
    if (field.minimum !== undefined) words.push(`at least ${field.minimum}`)
    if (field.maximum !== undefined) words.push(`at most ${field.maximum}`)
  }
  if (field._tag === "Text") {
    if (field.enum !== undefined) words.push(`one of: ${quote(field.enum)}`)
    if (field.maxLength !== undefined) words.push(`at most ${field.maxLength} characters`)
    if (field.pattern !== undefined) words.push(`matching /${field.pattern}/`)
  }
  return words
}

const helpOf = (leaf: Leaf): string => {
  const said = leaf.field._tag === "Opaque" ? undefined : leaf.field.description
  const words = constraints(leaf)
  return [said, words.length === 0 ? undefined : `(${words.join("; ")})`].filter((s) => s !== undefined && s !== "")
    .join(" ")
}

const parseJson = (text: string): Json.Json => JSON.parse(text)

const scalarFlag = (name: string, field: Fields.Text | Fields.Numeric | Fields.Truth): Flag.Flag<Json.Json> => {
  switch (field._tag) {
    case "Text":
      // An enum is told as the metavar, not parsed as a choice: the tool refuses what is not in it.
      return field.enum === undefined ? Flag.String(name)
        : Flag.String(name).pipe(Flag.withMetavar(field.enum.join("|")))
    case "Numeric":
      return field.integer ? Flag.Int(name) : Flag.Finite(name)
    case "Truth":
      return Flag.Boolean(name)
  }
}

/** The flag of one leaf; its parsed value is `Option` (absent, or the value) or an array (repeated). */
const flagOf = (leaf: Leaf): Flag.Flag<Option.Option<Json.Json> | ReadonlyArray<Json.Json>> => {
  const described = <A>(flag: Flag.Flag<A>) => Flag.withDescription(flag, helpOf(leaf))
  if (leaf.kind === "repeated" && leaf.field._tag === "List" && Fields.isScalar(leaf.field.items)) {
    return described(Flag.atLeast(scalarFlag(leaf.flag, leaf.field.items), 0))
  }
  if (leaf.kind === "scalar" && Fields.isScalar(leaf.field))
    return Flag.optional(described(scalarFlag(leaf.flag, leaf.field)))
  const json = Flag.mapTryCatch(
    Flag.String(leaf.flag),
    parseJson,
    (error) => `--${leaf.flag} is not JSON: ${error instanceof Error ? error.message : String(error)}`
  )
  return Flag.optional(described(Flag.withMetavar(json, "json")))
}

/**
 * The effect/cli flags of a tool's leaves, keyed by flag name: what `Command.make` takes. Every flag
 * is optional to the parser (a missing required field is the tool's refusal, not the parser's).
 *
 * @example
 * ```ts
 * import { Fields } from "effect-surface"
 * import { CliFlags } from "effect-surface/cli"
 * import { Result } from "effect"
 * import { Command } from "effect/cli"
 *
 * const leaves = Result.getOrThrow(CliFlags.leaves(Fields.fromJsonSchema({ type: "object", properties: { title: { type: "string" } } })))
 * const add = Command.make("add", CliFlags.config(leaves))
 * ```
 *
 * @since 0.1.0
 */
export const config = (
  leaves: ReadonlyArray<Leaf>
): Record<string, Flag.Flag<Option.Option<Json.Json> | ReadonlyArray<Json.Json>>> =>
  Object.fromEntries(leaves.map((leaf) => [leaf.flag, flagOf(leaf)]))

// Mutable: the arguments are built here, in records this module made.
const isObject = (json: Json.Json | undefined): json is Record<string, Json.Json> =>
  typeof json === "object" && json !== null && !Array.isArray(json)

const setAt = (into: Record<string, Json.Json>, path: ReadonlyArray<string>, value: Json.Json): void => {
  const [head, ...tail] = path
  if (head === undefined) return
  if (tail.length === 0) {
    into[head] = value
    return
  }
  const existing = into[head]
  const child: Record<string, Json.Json> = isObject(existing) ? { ...existing } : {}
  setAt(child, tail, value)
  into[head] = child
}

const fillRequired = (out: Record<string, Json.Json>, leaf: Leaf): void => {
  let node: Record<string, Json.Json> = out
  for (const [i, required] of leaf.within.entries()) {
    const key = leaf.path[i] ?? ""
    const existing = node[key]
    if (isObject(existing)) node = existing
    else if (required && existing === undefined) node = node[key] = {}
    else return
  }
  const last = leaf.path[leaf.path.length - 1] ?? ""
  if (leaf.kind === "repeated" && leaf.required && node[last] === undefined) node[last] = []
}

const valueOf = (parsed: Option.Option<Json.Json> | ReadonlyArray<Json.Json> | undefined): Json.Json | undefined => {
  if (parsed === undefined) return undefined
  if (Option.isOption(parsed)) return Option.getOrUndefined(parsed)
  return parsed.length === 0 ? undefined : parsed
}

/**
 * The tool's arguments from the parsed flags: each given flag's value at its path, nested objects
 * built as their fields are given (a required one always), an absent flag (or a repeated one given
 * no times) absent.
 *
 * @example
 * ```ts
 * import { Fields } from "effect-surface"
 * import { CliFlags } from "effect-surface/cli"
 * import { Data, Option, Result } from "effect"
 *
 * const leaves = Result.getOrThrow(CliFlags.leaves(Fields.fromJsonSchema({
 *   type: "object", properties: { address: { type: "object", properties: { city: { type: "string" } } } }
 * })))
 * CliFlags.args(leaves, { "address.city": Option.some("Oslo") }) // { address: { city: "Oslo" } }
 * ```
 *
 * @since 0.1.0
 */
export const args = (
  leaves: ReadonlyArray<Leaf>,
  parsed: Readonly<Record<string, Option.Option<Json.Json> | ReadonlyArray<Json.Json>>>
): Json.Json => {
  const whole = leaves.find((leaf) => leaf.path.length === 0)
  if (whole !== undefined) return valueOf(parsed[whole.flag]) ?? {}
  const out: Record<string, Json.Json> = {}
  for (const leaf of leaves) {
    const value = valueOf(parsed[leaf.flag])
    if (value !== undefined) setAt(out, leaf.path, value)
  }
  // A shell cannot say `{}` or `[]`: a required object, or a required list given no times, is
  // there empty wherever the object holding it is.
  for (const leaf of leaves) fillRequired(out, leaf)
  return out
}

/**
 * The command line that gives `value` to a tool with these leaves: `args`' inverse, for a caller
 * (or a test) that holds arguments and wants them as argv.
 *
 * @example
 * ```ts
 * import { Fields } from "effect-surface"
 * import { CliFlags } from "effect-surface/cli"
 * import { Result } from "effect"
 *
 * const leaves = Result.getOrThrow(CliFlags.leaves(Fields.fromJsonSchema({ type: "object", properties: { tags: { type: "array", items: { type: "string" } } } })))
 * CliFlags.argv(leaves, { tags: ["a", "b"] }) // ["--tags=a", "--tags=b"]
 * ```
 *
 * @since 0.1.0
 */
export const argv = (leaves: ReadonlyArray<Leaf>, value: Json.Json): ReadonlyArray<string> =>
  leaves.flatMap((leaf) => {
    const at = leaf.path.reduce<Json.Json | undefined>(
      (node, key) => isObject(node) && Object.hasOwn(node, key) ? node[key] : undefined,
      value
    )
    if (at === undefined) return []
    if (leaf.kind === "repeated" && Array.isArray(at))
      return at.flatMap((item: Json.Json) => [`--${leaf.flag}=${String(item)}`])
    if (leaf.kind === "scalar" && typeof at !== "object")
      return [`--${leaf.flag}=${String(at)}`]
    return [`--${leaf.flag}=${JSON.stringify(at)}`]
  })
