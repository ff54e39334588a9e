/**
 * The phrases both directions of the bridge build their messages from, so an Effect Schema decoder
 * and the JSON Schema checker word the same mistake the same way: `expected "x" or "y", got "z"`,
 * `expected at least 3 characters, got "ab"`, `expected a number greater than 3, got 1`. A message
 * names the value it was given last, after `, got `, so `withoutValues` can leave the value out.
 *
 * @internal
 */
import { preview } from "../InputError.ts"

/** `a`, `a or b`, `a, b or c`. */
export const orList = (items: ReadonlyArray<string>): string =>
  items.length <= 1 ? (items[0] ?? "nothing") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`

// A long enum would drown the message; a model acts on the first few options.
const MAX_LISTED = 8

/** The accepted values of a literal union or an `enum`, bounded: `"a", "b" or "c"`. */
export const values = (options: ReadonlyArray<unknown>): string => {
  const shown = [...new Set(options.map((o) => preview(o, 24)))]
  return shown.length <= MAX_LISTED
    ? orList(shown)
    : `${shown.slice(0, MAX_LISTED).join(", ")} or one of ${shown.length - MAX_LISTED} more`
}

/** `1 item`, `3 items`. */
export const counted = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? "" : "s"}`

/** What a length bound says: `at least 3 characters`, `between 1 and 2 items`, `exactly 1 field`. */
export const lengthBound = (
  noun: "character" | "item" | "field",
  min: number | undefined,
  max: number | undefined
): string =>
  min !== undefined && max !== undefined
    ? min === max ? `exactly ${counted(min, noun)}` : `between ${min} and ${max} ${noun}s`
    : min !== undefined
    ? `at least ${counted(min, noun)}`
    : `at most ${counted(max ?? 0, noun)}`

/** What a length check failed on, by the kind of value that failed it. */
export const lengthIssue = (value: unknown, min: number | undefined, max: number | undefined): string => {
  if (typeof value === "string") return `expected ${lengthBound("character", min, max)}, got ${preview(value)}`
  if (Array.isArray(value)) return `expected ${lengthBound("item", min, max)}, got ${value.length}`
  const size = typeof value === "object" && value !== null ? Object.keys(value).length : undefined
  return `expected ${lengthBound("field", min, max)}, got ${size ?? preview(value)}`
}

/** A number bound as a phrase: `greater than 3`, `at most 5`, `between 1 and 5`. */
export type NumberBound =
  | { readonly _tag: "GreaterThan" | "AtLeast" | "LessThan" | "AtMost"; readonly bound: string }
  | { readonly _tag: "Between"; readonly min: string; readonly max: string }

const numberWords = (b: NumberBound): string => {
  switch (b._tag) {
    case "GreaterThan":
      return `greater than ${b.bound}`
    case "AtLeast":
      return `at least ${b.bound}`
    case "LessThan":
      return `less than ${b.bound}`
    case "AtMost":
      return `at most ${b.bound}`
    case "Between":
      return `between ${b.min} and ${b.max}`
  }
}

export const numberIssue = (value: unknown, bound: NumberBound): string =>
  `expected a number ${numberWords(bound)}, got ${preview(value)}`

export const multipleIssue = (value: unknown, step: string): string =>
  `expected a number that is a multiple of ${step}, got ${preview(value)}`

export const patternIssue = (value: unknown, source: string): string =>
  `expected a string matching /${source}/, got ${preview(value)}`

export const MISSING = "missing required field"

export const UNEXPECTED = "unexpected field"

export const oneOfIssue = (matched: number, value: unknown): string =>
  `matches ${matched} alternatives where exactly one is allowed, got ${preview(value)}`

/** A thrown value as a short phrase; reading it must not throw in turn (a hostile getter could). */
export const thrown = (cause: unknown): string => {
  try {
    const text = cause instanceof Error ? `${cause.name}: ${cause.message}`
      : typeof cause === "string" ? cause : preview(cause)
    return text.length > 120 ? `${text.slice(0, 119)}…` : text
  } catch {
    return "an unreadable error"
  }
}

/** The message for an input the checker could not even read (a throwing getter, a revoked Proxy). */
export const unreadable = (cause: unknown): string => `could not be read (${thrown(cause)})`

// Messages are bounded: the default wording of a custom schema may quote a whole type.
const MAX_MESSAGE = 160

export const bounded = (text: string): string => text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 1)}…` : text
