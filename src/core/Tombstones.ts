/**
 * What a name a past roster served, and this one does not, answers with.
 *
 * An agent holding a tool list from before a roster move made a reasonable call against a name
 * that was real; "unknown" tells it to doubt itself instead of re-reading the list. So every retired
 * tool name, resource URI and item template is remembered with which retirement it was — the
 * sibling left, or it stands but narrowed — because the agent's next move differs. A tombstone is
 * kept across the sibling's return and later departures (deleting it when the sibling came back
 * lost names for good once the sibling unloaded in two steps); it gives way only to the name being
 * served again or to the cap, which bounds a long-lived server's memory, oldest retirement first.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type * as Bundle from "./Bundle.ts"
import * as ItemUri from "./ItemUri.ts"

/**
 * How many retired names a roster remembers by default. Past it the oldest retirement is forgotten
 * (and answers as unknown): enough for any realistic roster history, bounded for a server that runs
 * for months.
 *
 * @example
 * ```ts
 * import type { Bundle } from "effect-surface"
 * import { Roster, Tombstones } from "effect-surface"
 *
 * declare const bundle: Bundle.Bundle
 * Roster.make(bundle, { cap: Tombstones.DEFAULT_CAP * 2 })
 * ```
 *
 * @since 0.1.0
 */
export const DEFAULT_CAP = 10_000

/**
 * A retired name as a refusal, with the sentence an agent can act on as its `message`. `kind` says
 * which list to re-read: a tool name, a resource URI, or an item template (`…/{id}`) whose items all
 * retired with it. `sibling` is the owner recorded at resolution; `retiredAt` the generation that
 * retired it last. Built from the table's `Retirement` when a retired name is looked up.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Roster } from "effect-surface"
 *
 * declare const roster: Roster.Roster
 * const program = Effect.gen(function*() {
 *   const found = yield* roster.lookupTool("t_ops_run")
 *   if (found._tag === "Retired") yield* Effect.logInfo(found.tombstone.message)
 *   // tool "t_ops_run" is no longer served: sibling "t" left the roster; re-read the tool list
 * })
 * ```
 *
 * @since 0.1.0
 */
export class Tombstone extends Schema.TaggedError<Tombstone>()("Tombstone", {
  kind: Schema.Literals(["tool", "resource", "template"]),
  name: Schema.String,
  sibling: Schema.String,
  reason: Schema.Literals(["SiblingLeft", "NoLongerExposed"]),
  retiredAt: Schema.Number
}) {
  override get message(): string {
    const why = this.reason === "SiblingLeft"
      ? `sibling "${this.sibling}" left the roster`
      : `sibling "${this.sibling}" is still on the roster but no longer exposes it`
    switch (this.kind) {
      case "tool":
        return `tool "${this.name}" is no longer served: ${why}; re-read the tool list`
      case "resource":
        return `resource "${this.name}" is no longer served: ${why}; re-read the resource list`
      case "template":
        return `resources under "${this.name}" are no longer served: ${why}; re-read the resource template list`
    }
  }
}

/**
 * One remembered retirement: the facts a `Tombstone` is built from when a retired name is looked
 * up. Kept as plain data because a table holds thousands and an `Error` captures a stack trace each
 * (measured: about 1.3 KB per entry as errors).
 *
 * @example
 * ```ts
 * import type { Tombstones } from "effect-surface"
 * const r: Tombstones.Retirement = { kind: "tool", name: "t_ops_run", sibling: "t", reason: "SiblingLeft", retiredAt: 1 }
 * ```
 *
 * @since 0.1.0
 */
export interface Retirement {
  readonly kind: Tombstone["kind"]
  readonly name: string
  readonly sibling: string
  readonly reason: Tombstone["reason"]
  readonly retiredAt: number
}

/**
 * The remembered retirements, keyed by kind and name, oldest retirement first.
 *
 * @example
 * ```ts
 * import { Tombstones } from "effect-surface"
 * const table: Tombstones.Table = Tombstones.empty
 * ```
 *
 * @since 0.1.0
 */
export type Table = ReadonlyMap<string, Retirement>

/**
 * A table with nothing retired: the boot generation's.
 *
 * @example
 * ```ts
 * import { Tombstones } from "effect-surface"
 * Tombstones.empty.size // 0
 * ```
 *
 * @since 0.1.0
 */
export const empty: Table = new Map()

type Kind = Tombstone["kind"]

const keyOf = (kind: Kind, name: string): string => `${kind} ${name}`

interface Owned {
  readonly kind: Kind
  readonly name: string
  readonly sibling: string | undefined
}

// Everything a generation serves, with its owner as resolution recorded it (never parsed from a name).
const servedBy = (resolved: Bundle.Resolved): ReadonlyArray<Owned> => [
  ...resolved.tools.map((t) => ({ kind: "tool" as const, name: t.name, sibling: t.sibling })),
  ...resolved.resources.map((r) => ({ kind: "resource" as const, name: r.uri, sibling: r.sibling })),
  ...resolved.templates.map((t) => ({ kind: "template" as const, name: t.uriTemplate, sibling: t.sibling }))
]

/**
 * The table after a roster move from `previous` to `next` (generation `generation`): what `previous`
 * served and `next` does not is retired now; what `next` serves again is forgotten; every other
 * tombstone is kept, its reason re-read against the roster that now stands (a sibling that narrowed
 * and then left is now "left"; one that left and came back narrower is now "no longer exposes").
 * Only sibling-owned names retire: the core and the root tools are part of every generation. Past
 * `cap` entries the oldest retirements are dropped.
 *
 * @example
 * ```ts
 * import type { Bundle } from "effect-surface"
 * import { Tombstones } from "effect-surface"
 *
 * declare const before: Bundle.Resolved
 * declare const after: Bundle.Resolved
 * const table = Tombstones.advance(Tombstones.empty, before, after, 1, Tombstones.DEFAULT_CAP)
 * ```
 *
 * @since 0.1.0
 */
export const advance = (
  table: Table,
  previous: Bundle.Resolved,
  next: Bundle.Resolved,
  generation: number,
  cap: number
): Table => {
  const served = new Set(servedBy(next).map((o) => keyOf(o.kind, o.name)))
  const standing = new Set(next.siblings)
  const reasonFor = (sibling: string) => standing.has(sibling) ? "NoLongerExposed" as const : "SiblingLeft" as const
  const out = new Map<string, Retirement>()
  for (const [key, retirement] of table) {
    if (served.has(key)) continue
    const reason = reasonFor(retirement.sibling)
    out.set(key, reason === retirement.reason ? retirement : { ...retirement, reason })
  }
  for (const owned of servedBy(previous)) {
    const key = keyOf(owned.kind, owned.name)
    if (owned.sibling === undefined || served.has(key)) continue
    // Re-inserted, so a name retired again counts as the newest retirement when the cap bites.
    out.delete(key)
    out.set(key, {
      kind: owned.kind,
      name: owned.name,
      sibling: owned.sibling,
      reason: reasonFor(owned.sibling),
      retiredAt: generation
    })
  }
  const excess = out.size - Math.max(0, cap)
  if (excess > 0) { for (const key of [...out.keys()].slice(0, excess)) out.delete(key) }
  return out
}

/**
 * What a tool name answers with: the served tool, its tombstone, or nothing ever served here (or
 * forgotten past the cap).
 *
 * @example
 * ```ts
 * import type { Bundle } from "effect-surface"
 * import { Tombstones } from "effect-surface"
 *
 * declare const resolved: Bundle.Resolved
 * declare const table: Tombstones.Table
 * const found: Tombstones.ToolLookup = Tombstones.lookupTool(resolved, table, "t_ops_run")
 * ```
 *
 * @since 0.1.0
 */
export type ToolLookup =
  | { readonly _tag: "Served"; readonly tool: Bundle.Tool }
  | { readonly _tag: "Retired"; readonly tombstone: Tombstone }
  | { readonly _tag: "Unknown"; readonly name: string }

/**
 * What a URI answers with: a served resource, an item of a served collection (its template and the
 * decoded id), a tombstone (of the resource, or of the template its item belonged to), or nothing.
 *
 * @example
 * ```ts
 * import type { Bundle } from "effect-surface"
 * import { Tombstones } from "effect-surface"
 *
 * declare const resolved: Bundle.Resolved
 * declare const table: Tombstones.Table
 * const found: Tombstones.UriLookup = Tombstones.lookupUri(resolved, table, "surface://collections/t/todos/42")
 * ```
 *
 * @since 0.1.0
 */
export type UriLookup =
  | { readonly _tag: "Resource"; readonly resource: Bundle.Resource }
  | { readonly _tag: "Item"; readonly template: Bundle.Template; readonly id: string }
  | { readonly _tag: "Retired"; readonly tombstone: Tombstone }
  | { readonly _tag: "Unknown"; readonly uri: string }

/**
 * Look a tool name up: served first, then the tombstones.
 *
 * @example
 * ```ts
 * import type { Bundle } from "effect-surface"
 * import { Tombstones } from "effect-surface"
 *
 * declare const resolved: Bundle.Resolved
 * Tombstones.lookupTool(resolved, Tombstones.empty, "todo_add") // { _tag: "Served", tool }
 * ```
 *
 * @since 0.1.0
 */
export const lookupTool = (resolved: Bundle.Resolved, table: Table, name: string): ToolLookup => {
  const tool = resolved.toolByName.get(name)
  if (tool !== undefined) return { _tag: "Served", tool }
  const retirement = table.get(keyOf("tool", name))
  return retirement === undefined ? { _tag: "Unknown", name }
    : { _tag: "Retired", tombstone: new Tombstone(retirement) }
}

/**
 * Look a URI up: a served resource first (the collection itself), then an item of a served
 * collection, then the resource's tombstone, then the tombstone of the template an item URI falls
 * under.
 *
 * @example
 * ```ts
 * import type { Bundle } from "effect-surface"
 * import { Tombstones } from "effect-surface"
 *
 * declare const resolved: Bundle.Resolved
 * Tombstones.lookupUri(resolved, Tombstones.empty, "surface://cells/filter") // { _tag: "Resource", resource }
 * ```
 *
 * @since 0.1.0
 */
export const lookupUri = (resolved: Bundle.Resolved, table: Table, uri: string): UriLookup => {
  const resource = resolved.byUri.get(uri)
  if (resource !== undefined) return { _tag: "Resource", resource }
  const item = ItemUri.parseItemUri(resolved, uri)
  if (item !== undefined) return { _tag: "Item", ...item }
  const split = ItemUri.splitItemUri(uri)
  const retirement = table.get(keyOf("resource", uri)) ??
    (split === undefined ? undefined : table.get(keyOf("template", `surface://collections/${split.collection}/{id}`)))
  return retirement === undefined ? { _tag: "Unknown", uri } : { _tag: "Retired", tombstone: new Tombstone(retirement) }
}
