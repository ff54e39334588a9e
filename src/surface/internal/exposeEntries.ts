/**
 * One expose map entry decoded as the untrusted input it is (a map may come from a config file):
 * what exposes, what denies, and the sentence naming what else was written. Apart from `Expose.ts`
 * so the check reads as the map's rules and this as the entry grammar.
 *
 * @internal
 */
export type Entries = { readonly [key: string]: unknown }

export const isEntries = (u: unknown): u is Entries => typeof u === "object" && u !== null && !Array.isArray(u)

/** A value as a refusal quotes it. */
export const shown = (u: unknown): string =>
  Array.isArray(u) ? "an array"
    : typeof u === "object" && u !== null ? "an object"
    : typeof u === "string" ? JSON.stringify(u)
    : String(u)

const memberEntry = "a member is exposed by true or { scope: string } and denied by false or by leaving it out"
const procedureEntry = "a procedure is exposed by true or { mutates?: boolean, scope?: string, view?: boolean } " +
  "and denied by false or by leaving it out"

/** An exposing entry decoded: what it overrides (`undefined`: not said). */
export interface Exposed {
  readonly exposed: true
  readonly mutates: boolean | undefined
  readonly scope: string | undefined
  readonly view: boolean | undefined
}

/** An entry decoded: denied, or exposed. */
export type Decoded = { readonly exposed: false } | Exposed

const fields = ["mutates", "scope", "view"]

// A field that is true or false when given.
const flag = (entry: Entries, field: string): boolean | undefined | { readonly refused: string } => {
  const value = Object.hasOwn(entry, field) ? entry[field] : undefined
  return value === undefined || typeof value === "boolean"
    ? value
    : { refused: `"${field}" is ${shown(value)}: it must be true or false` }
}

// A scope is an RFC 6749 scope-token: printable ASCII, no space, quote or backslash.
const scopeToken = /^[\x21\x23-\x5B\x5D-\x7E]+$/

const decodeScope = (entry: Entries): string | undefined | { readonly refused: string } => {
  const scope = Object.hasOwn(entry, "scope") ? entry["scope"] : undefined
  if (scope === undefined) return undefined
  return typeof scope === "string" && scopeToken.test(scope)
    ? scope
    : { refused: `"scope" is ${shown(scope)}: it must be one OAuth scope (printable, no spaces or quotes)` }
}

const plain: Decoded = { exposed: true, mutates: undefined, scope: undefined, view: undefined }

export const decodeProcedureEntry = (entry: unknown): Decoded | string => {
  if (entry === true) return plain
  if (entry === false || entry === undefined) return { exposed: false }
  if (!isEntries(entry)) return `${shown(entry)} is not an entry: ${procedureEntry}`
  const extra = Object.keys(entry).find((field) => !fields.includes(field))
  if (extra !== undefined) return `unknown field "${extra}": ${procedureEntry}`
  const mutates = flag(entry, "mutates")
  if (typeof mutates === "object") return mutates.refused
  const view = flag(entry, "view")
  if (typeof view === "object") return view.refused
  const scope = decodeScope(entry)
  if (typeof scope === "object") return scope.refused
  return { exposed: true, mutates, scope, view }
}

/**
 * The map itself decoded: an object whose own keys are groups or `views`, and its `views` switch
 * (on, off or not said); or where it is refused (`key`: the top-level key, `""` the map) and why.
 */
export const decodeMap = (u: unknown, groups: ReadonlyArray<string>):
  | { readonly _tag: "Decoded"; readonly map: Entries; readonly views: boolean | undefined }
  | { readonly _tag: "Refused"; readonly refused: { readonly key: string; readonly reason: string } } =>
{
  const refused = (key: string, reason: string) => ({ _tag: "Refused" as const, refused: { key, reason } })
  if (!isEntries(u)) return refused("", `it is ${shown(u)}, not an object of groups`)
  const unknown = Object.keys(u).find((key) => key !== "views" && !groups.includes(key))
  if (unknown !== undefined) {
    return refused(unknown, `an expose map's groups are ${groups.join(", ")} (beside them, views: true or false)`)
  }
  const views = Object.hasOwn(u, "views") ? u["views"] : undefined
  return views === undefined || typeof views === "boolean"
    ? { _tag: "Decoded", map: u, views }
    : refused("views", `it is ${shown(views)}, not true or false`)
}

// A member's entry decoded: exposed (with its scope, maybe none), denied, or refused with a reason.
export const decodeMemberEntry = (entry: unknown): Decoded | string => {
  if (entry === true) return plain
  if (entry === false || entry === undefined) return { exposed: false }
  if (!isEntries(entry)) return `${shown(entry)} is not an entry: ${memberEntry}`
  const extra = Object.keys(entry).find((field) => field !== "scope")
  if (extra !== undefined) return `unknown field "${extra}": ${memberEntry}`
  const scope = decodeScope(entry)
  if (typeof scope === "object") return scope.refused
  if (scope === undefined) return memberEntry
  return { ...plain, scope }
}
