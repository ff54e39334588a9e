/**
 * From what servers list to the one tool map an agent sees.
 *
 * Every listing — the first after a connect, a refresh after `tools/list_changed`, a re-list after a
 * re-dial — runs the same steps, so no path can skip one: decode each entry (a broken one, or one
 * nested past `MAX_DEPTH`, is left out and reported, never the whole listing), name it
 * (`McpNames`), compile its input schema into
 * the checker calls go through (a schema that cannot be compiled leaves the tool callable,
 * unchecked, and says so), then merge every server's tools into one map (a name two tools project
 * onto is resolved, never overwritten) and apply the `tools` filter. A tool keeps the server's own
 * description and input schema byte for byte; nothing the server says elsewhere (its instructions,
 * its annotations) is carried.
 *
 * A listing is bounded before any of this: past `MAX_LISTED_TOOLS` tools or `MAX_LISTING_BYTES`
 * bytes it is refused whole, and the server offers no tools (a diagnostic says so).
 *
 * With a baseline (a store holds the server's trusted fingerprints), drift is checked between
 * decoding and naming, on every listing alike: a changed tool is quarantined, a new one withheld, a
 * removed one noted (`McpDrift`). The disclosure budget runs after the merge, in the toolset.
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { JsonDecoder } from "../core/JsonSchemaDecoder.ts"
import { compileJsonSchema } from "../core/JsonSchemaDecoder.ts"
import type * as Config from "./Config.ts"
import * as Diagnostic from "./Diagnostic.ts"
import * as Drift from "./Drift.ts"
import * as Names from "./Names.ts"

/**
 * A tool as the toolset offers it: its projected name, where it runs, and the server's own
 * description and input schema, unchanged.
 *
 * @example
 * ```ts
 * import type { McpCatalog } from "effect-surface/client"
 * const tool: McpCatalog.Tool = {
 *   name: "everything__echo", server: "everything", tool: "echo",
 *   description: "Echoes back the input string",
 *   inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] }
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Tool {
  readonly name: string
  /** The server's configured name. */
  readonly server: string
  /** The tool's own name on that server. */
  readonly tool: string
  readonly description: string
  readonly inputSchema: { readonly [key: string]: unknown }
  /** What the tool's `structuredContent` must be, as the server declared it; every answer is checked against it. */
  readonly outputSchema?: { readonly [key: string]: unknown }
  readonly title?: string
  /** The listing's `annotations` and `_meta`, as the server gave them, for a caller that forwards them. */
  readonly annotations?: { readonly [key: string]: unknown }
  readonly meta?: { readonly [key: string]: unknown }
}

/**
 * A tool and the checker its arguments go through (`undefined`: unchecked here). A quarantined
 * tool is shown with our description and an empty schema, and its calls are refused.
 *
 * @example
 * ```ts
 * import type { McpCatalog } from "effect-surface/client"
 * declare const entry: McpCatalog.Entry
 * entry.tool.name
 * ```
 *
 * @since 0.1.0
 */
export interface Entry {
  readonly tool: Tool
  readonly check: JsonDecoder | undefined
  /** The checker of the tool's `structuredContent`, when it declares an output schema that compiles. */
  readonly output?: JsonDecoder | undefined
  readonly quarantined?: true | undefined
}

/**
 * The most tools one server's listing may hold. A listing with more is refused whole: the server
 * offers no tools, and a `server-unavailable` diagnostic says why.
 *
 * @example
 * ```ts
 * import { McpCatalog } from "effect-surface/client"
 * McpCatalog.MAX_LISTED_TOOLS // 10000
 * ```
 *
 * @since 0.1.0
 */
export const MAX_LISTED_TOOLS = 10_000

/**
 * The most bytes (as JSON) one server's listing may come to, every page together. A listing past it
 * is refused whole, like one past `MAX_LISTED_TOOLS`.
 *
 * @example
 * ```ts
 * import { McpCatalog } from "effect-surface/client"
 * McpCatalog.MAX_LISTING_BYTES // 16777216 (16 MiB)
 * ```
 *
 * @since 0.1.0
 */
export const MAX_LISTING_BYTES = 16 * 1024 * 1024

/**
 * How deeply a tool's definition may nest (objects and arrays within the entry). A tool nested
 * deeper is left out with a `tool-skipped` diagnostic, before any step that walks its schema.
 *
 * @example
 * ```ts
 * import { McpCatalog } from "effect-surface/client"
 * McpCatalog.MAX_DEPTH // 64
 * ```
 *
 * @since 0.1.0
 */
export const MAX_DEPTH = 64

// Whether `value` nests deeper than `limit`, walked with a stack of our own, so a definition nested
// any depth is measured without recursion (and stops at the first level past the limit).
const nestsDeeperThan = (value: unknown, limit: number): boolean => {
  const pending: Array<readonly [unknown, number]> = [[value, 0]]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, depth] = next
    if (typeof current !== "object" || current === null) continue
    if (depth + 1 > limit) return true
    for (const child of Array.isArray(current) ? current : Object.values(current)) pending.push([child, depth + 1])
  }
  return false
}

const decodeListed = Schema.decodeUnknownResult(Drift.ListedSchema)

const EMPTY_INPUT = { type: "object", properties: {} } as const

/**
 * One server's listing as entries, with what was noticed on the way. `baseline`, when the store
 * holds one, is what the listing is checked against for drift. Also answers the listing as decoded
 * (what a store keeps as the catalogue) and its fingerprints (the baseline it would become).
 *
 * @example
 * ```ts
 * import { McpCatalog } from "effect-surface/client"
 * const { entries } = McpCatalog.fromListing({ name: "everything", key: "everything" }, [
 *   { name: "echo", description: "Echoes back the input string", inputSchema: { type: "object" } }
 * ])
 * entries[0]?.tool.name // "everything__echo"
 * ```
 *
 * @since 0.1.0
 */
export const fromListing = (
  server: { readonly name: string; readonly key: string },
  listing: ReadonlyArray<unknown>,
  baseline?: Drift.Baseline | undefined
): {
  readonly entries: ReadonlyArray<Entry>
  readonly diagnostics: ReadonlyArray<Diagnostic.Diagnostic>
  readonly listed: ReadonlyArray<Drift.Listed>
  readonly fingerprints: Drift.Baseline
} => {
  const diagnostics: Array<Diagnostic.Diagnostic> = []
  const listed = decodeListing(server.name, listing, diagnostics)
  const drift = Drift.check(baseline, listed)
  const entries: Array<Entry> = []
  for (const tool of listed) {
    const verdict = drift.verdicts.get(tool.name)
    if (verdict === "new") {
      diagnostics.push(Drift.toolWithheld(server.name, tool.name))
      continue
    }
    if (verdict === "changed") diagnostics.push(Drift.toolQuarantined(server.name, tool.name))
    entries.push(
      entryOf(server, verdict === "changed" ? quarantine(server.name, tool) : tool, verdict === "changed", diagnostics)
    )
  }
  for (const tool of drift.removed) diagnostics.push(Drift.toolRemoved(server.name, tool))
  return { entries, diagnostics, listed, fingerprints: Drift.fingerprints(listed) }
}

// Each entry decoded (a broken one, or one nested too deeply, reported and left out), the first of
// a name twice listed kept.
const decodeListing = (server: string, listing: ReadonlyArray<unknown>, diagnostics: Array<Diagnostic.Diagnostic>) => {
  const listed: Array<Drift.Listed> = []
  const seen = new Set<string>()
  listing.forEach((raw, index) => {
    const decoded = decodeListed(raw)
    if (Result.isFailure(decoded))
      return void diagnostics.push(Diagnostic.toolSkipped(server, `entry ${index} has no usable name`))
    if (nestsDeeperThan(decoded.success, MAX_DEPTH)) {
      return void diagnostics.push(
        Diagnostic.toolSkipped(server, `"${decoded.success.name}" nests deeper than ${MAX_DEPTH} levels`)
      )
    }
    if (seen.has(decoded.success.name))
      return void diagnostics.push(
        Diagnostic.toolSkipped(server, `"${decoded.success.name}" is listed twice; the first is kept`)
      )
    seen.add(decoded.success.name)
    listed.push(decoded.success)
  })
  return listed
}

// What a quarantined tool is shown as: its name, with nothing the changed definition says.
const quarantine = (server: string, tool: Drift.Listed): Drift.Listed => ({
  name: tool.name,
  description: Drift.quarantinedDescription(server, tool.name),
  inputSchema: Drift.QUARANTINED_SCHEMA
})

const entryOf = (
  server: { readonly name: string; readonly key: string },
  listed: Drift.Listed,
  quarantined: boolean,
  diagnostics: Array<Diagnostic.Diagnostic>
): Entry => {
  const name = Names.project(server.key, listed.name)
  if (name !== `${server.key}${Names.SEPARATOR}${listed.name}`)
    diagnostics.push(Diagnostic.toolNameRewritten(server.name, listed.name, name))
  const inputSchema = listed.inputSchema ?? EMPTY_INPUT
  const compiled = quarantined ? undefined : compileJsonSchema(inputSchema)
  if (compiled !== undefined && Result.isFailure(compiled))
    diagnostics.push(Diagnostic.toolUnchecked(server.name, listed.name, compiled.failure.message))
  const tool: Tool = {
    name,
    server: server.name,
    tool: listed.name,
    description: listed.description ?? "",
    inputSchema,
    ...(listed.outputSchema === undefined || quarantined ? {} : { outputSchema: listed.outputSchema }),
    ...(listed.title === undefined ? {} : { title: listed.title }),
    ...(listed.annotations === undefined ? {} : { annotations: listed.annotations }),
    ...(listed._meta === undefined ? {} : { meta: listed._meta })
  }
  const check = compiled !== undefined && Result.isSuccess(compiled) ? compiled.success : undefined
  if (quarantined) return { tool, check, quarantined: true }
  const output = listed.outputSchema === undefined ? undefined : compileJsonSchema(listed.outputSchema)
  if (output !== undefined && Result.isFailure(output))
    diagnostics.push(Diagnostic.toolUnchecked(server.name, listed.name, output.failure.message))
  return output !== undefined && Result.isSuccess(output) ? { tool, check, output: output.success } : { tool, check }
}

/**
 * Every server's entries in one map, in server order. A name already taken (only possible when a
 * server's name contains `__`) is given instead with a hash of the server's key and the tool's name,
 * so neither tool is lost.
 *
 * @example
 * ```ts
 * import { McpCatalog } from "effect-surface/client"
 * declare const a: ReadonlyArray<McpCatalog.Entry>
 * declare const b: ReadonlyArray<McpCatalog.Entry>
 * const { map } = McpCatalog.merge([{ key: "a", entries: a }, { key: "b", entries: b }])
 * ```
 *
 * @since 0.1.0
 */
export const merge = <E extends Entry>(
  servers: ReadonlyArray<{ readonly key: string; readonly entries: ReadonlyArray<E> }>
): { readonly map: ReadonlyMap<string, E>; readonly diagnostics: ReadonlyArray<Diagnostic.Diagnostic> } => {
  const map = new Map<string, E>()
  const diagnostics: Array<Diagnostic.Diagnostic> = []
  for (const server of servers) {
    for (const entry of server.entries) {
      if (!map.has(entry.tool.name)) {
        map.set(entry.tool.name, entry)
        continue
      }
      const suffix = `_${Names.hash(`${server.key}\u0000${entry.tool.tool}`)}`
      const name = entry.tool.name.slice(0, Names.MAX_LENGTH - suffix.length) + suffix
      diagnostics.push(Diagnostic.toolNameCollision(entry.tool.server, entry.tool.tool, name))
      map.set(name, { ...entry, tool: { ...entry.tool, name } })
    }
  }
  return { map, diagnostics }
}

const matches = (entry: string, tool: Tool): boolean =>
  entry === tool.name || entry === `${tool.server}${Names.SEPARATOR}${tool.tool}`

/**
 * Apply the `tools` filter: an entry names a tool by its projected name or as
 * `${server}__${tool}` with the server's configured name. `unmatched` lists entries that named no
 * tool.
 *
 * @example
 * ```ts
 * import { McpCatalog } from "effect-surface/client"
 * declare const map: ReadonlyMap<string, McpCatalog.Entry>
 * const { kept } = McpCatalog.filter(map, { block: ["memory__delete_entities"] })
 * ```
 *
 * @since 0.1.0
 */
export const filter = <E extends Entry>(
  map: ReadonlyMap<string, E>,
  tools: Config.Options["tools"]
): { readonly kept: ReadonlyMap<string, E>; readonly unmatched: ReadonlyArray<string> } => {
  if (tools === undefined) return { kept: map, unmatched: [] }
  const names = "allow" in tools ? tools.allow : tools.block
  const keep = (entry: E) => names.some((name) => matches(name, entry.tool)) === "allow" in tools
  const kept = new Map([...map].filter(([, entry]) => keep(entry)))
  const unmatched = names.filter((name) => ![...map.values()].some((entry) => matches(name, entry.tool)))
  return { kept, unmatched }
}
