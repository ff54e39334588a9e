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
const procedureEntry =
  "a procedure is exposed by true or { mutates?: boolean, scope?: string } and denied by false or by leaving it out"

/** A procedure entry decoded: `undefined` denies, otherwise the `mutates` override (maybe none). */
export type Decoded =
  | { readonly exposed: false }
  | { readonly exposed: true; readonly mutates: boolean | undefined; readonly scope: string | undefined }

// A scope is an RFC 6749 scope-token: printable ASCII, no space, quote or backslash.
const scopeToken = /^[\x21\x23-\x5B\x5D-\x7E]+$/

const decodeScope = (entry: Entries): string | undefined | { readonly refused: string } => {
  const scope = Object.hasOwn(entry, "scope") ? entry["scope"] : undefined
  if (scope === undefined) return undefined
  return typeof scope === "string" && scopeToken.test(scope)
    ? scope
    : { refused: `"scope" is ${shown(scope)}: it must be one OAuth scope (printable, no spaces or quotes)` }
}

export const decodeProcedureEntry = (entry: unknown): Decoded | string => {
  if (entry === true) return { exposed: true, mutates: undefined, scope: undefined }
  if (entry === false || entry === undefined) return { exposed: false }
  if (!isEntries(entry)) return `${shown(entry)} is not an entry: ${procedureEntry}`
  const extra = Object.keys(entry).find((field) => field !== "mutates" && field !== "scope")
  if (extra !== undefined) return `unknown field "${extra}": ${procedureEntry}`
  const mutates = Object.hasOwn(entry, "mutates") ? entry["mutates"] : undefined
  if (mutates !== undefined && typeof mutates !== "boolean")
    return `"mutates" is ${shown(mutates)}: it must be true or false`
  const scope = decodeScope(entry)
  if (typeof scope === "object") return scope.refused
  return { exposed: true, mutates, scope }
}

// A member's entry decoded: exposed (with its scope, maybe none), denied, or refused with a reason.
export const decodeMemberEntry = (entry: unknown): Decoded | string => {
  if (entry === true) return { exposed: true, mutates: undefined, scope: undefined }
  if (entry === false || entry === undefined) return { exposed: false }
  if (!isEntries(entry)) return `${shown(entry)} is not an entry: ${memberEntry}`
  const extra = Object.keys(entry).find((field) => field !== "scope")
  if (extra !== undefined) return `unknown field "${extra}": ${memberEntry}`
  const scope = decodeScope(entry)
  if (typeof scope === "object") return scope.refused
  if (scope === undefined) return memberEntry
  return { exposed: true, mutates: undefined, scope }
}
