/**
 * How much of a toolset's schemas a model is shown, and the floor it is always shown.
 *
 * A broad server can publish hundreds of tools, and every schema in front of a model costs context
 * on every turn. The budget is one code path with a threshold, decided per server: a server whose
 * tool definitions fit (or that `alwaysLoad` names) shows full schemas; one that does not shows
 * each tool under its real name with a deferred schema — parameter names, scalar types and
 * `required`, which is what keeps a model's calls well formed — and `mcp__describe_tool` answers
 * the full one; one whose deferred schemas still do not fit shows the bare object schema. The
 * catalogue of names and descriptions is what a model chooses by, so it is never trimmed: when it
 * alone is over budget the toolset says so and points at the `tools` filter. Arguments are still
 * checked against the full schema. A tool-count cap (`maxTools`) bounds what a provider accepts,
 * and what it leaves out is named.
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as CallResult from "./CallResult.ts"
import * as Diagnostic from "./Diagnostic.ts"

/**
 * The budget when none is given: about a tenth of a 200k-token context window.
 *
 * @example
 * ```ts
 * import { McpDisclosure } from "effect-surface/client"
 * McpDisclosure.DEFAULT_BUDGET_TOKENS // 20000
 * ```
 *
 * @since 0.1.0
 */
export const DEFAULT_BUDGET_TOKENS = 20_000

/**
 * The tool-count cap when none is given: the most tools a model provider accepts in one request.
 *
 * @example
 * ```ts
 * import { McpDisclosure } from "effect-surface/client"
 * McpDisclosure.DEFAULT_MAX_TOOLS // 128
 * ```
 *
 * @since 0.1.0
 */
export const DEFAULT_MAX_TOOLS = 128

/**
 * The name of the tool that answers a tool's full schema.
 *
 * @example
 * ```ts
 * import { McpDisclosure } from "effect-surface/client"
 * McpDisclosure.DESCRIBE_TOOL // "mcp__describe_tool"
 * ```
 *
 * @since 0.1.0
 */
export const DESCRIBE_TOOL = "mcp__describe_tool"

/**
 * The `disclosure` option: the budget in estimated tokens per server, the servers (by configured
 * name) always shown in full, and the tool-count cap.
 *
 * @example
 * ```ts
 * import type { McpDisclosure } from "effect-surface/client"
 * const disclosure: McpDisclosure.Options = { budget: 8_000, alwaysLoad: ["memory"], maxTools: 64 }
 * ```
 *
 * @since 0.1.0
 */
export interface Options {
  readonly budget?: number | undefined
  readonly alwaysLoad?: ReadonlyArray<string> | undefined
  readonly maxTools?: number | undefined
}

/**
 * Tokens a text costs, at four characters per token: an order-of-magnitude estimate on purpose —
 * the threshold is a coarse decision, and a tokenizer would tie it to one model.
 *
 * @example
 * ```ts
 * import { McpDisclosure } from "effect-surface/client"
 * McpDisclosure.estimateTokens("twelve chars") // 3
 * ```
 *
 * @since 0.1.0
 */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 4)

/**
 * How a server's schemas are shown.
 *
 * @example
 * ```ts
 * import type { McpDisclosure } from "effect-surface/client"
 * const tier: McpDisclosure.Tier = "deferred"
 * ```
 *
 * @since 0.1.0
 */
export type Tier = "full" | "deferred" | "bare"

/**
 * The schema shown when even deferred schemas are over budget.
 *
 * @example
 * ```ts
 * import { McpDisclosure } from "effect-surface/client"
 * McpDisclosure.BARE_SCHEMA // { type: "object" }
 * ```
 *
 * @since 0.1.0
 */
export const BARE_SCHEMA: { readonly [key: string]: unknown } = { type: "object" }

type Schema = { readonly [key: string]: unknown }

const isRecord = (u: unknown): u is Schema => typeof u === "object" && u !== null && !Array.isArray(u)

// A parameter reduced to its type: a scalar keeps it, an object or array keeps only that it is one.
const typeOnly = (schema: unknown): Schema => {
  if (!isRecord(schema)) return {}
  const type = schema["type"]
  if (typeof type === "string") return { type }
  if (Array.isArray(type) && type.every((t) => typeof t === "string")) return { type }
  return {}
}

/**
 * A schema with its prose shed and its argument contract kept: each parameter's name and type, and
 * `required`; descriptions, enums, formats and nested bodies dropped.
 *
 * @example
 * ```ts
 * import { McpDisclosure } from "effect-surface/client"
 * McpDisclosure.deferSchema({
 *   type: "object",
 *   properties: { q: { type: "string", description: "What to search for" }, mode: { type: "string", enum: ["a", "b"] } },
 *   required: ["q"]
 * }) // { type: "object", properties: { q: { type: "string" }, mode: { type: "string" } }, required: ["q"] }
 * ```
 *
 * @since 0.1.0
 */
export const deferSchema = (schema: Schema): Schema => {
  const properties = schema["properties"]
  if (!isRecord(properties)) return BARE_SCHEMA
  const required = schema["required"]
  const names = Array.isArray(required) ? required.filter((name): name is string => typeof name === "string") : []
  return {
    type: "object",
    properties: Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, typeOnly(property)])),
    ...(names.length === 0 ? {} : { required: names })
  }
}

/**
 * What a disclosed tool carries: its name, its server's configured name, what a model is shown.
 *
 * @example
 * ```ts
 * import type { McpDisclosure } from "effect-surface/client"
 * const tool: McpDisclosure.Disclosed = { name: "docs__search", server: "docs", description: "Search", inputSchema: { type: "object" } }
 * ```
 *
 * @since 0.1.0
 */
export interface Disclosed {
  readonly name: string
  readonly server: string
  readonly description: string
  readonly inputSchema: Schema
}

/**
 * One server's tools measured, in estimated tokens: the catalogue alone (`floor`), with deferred
 * schemas, and with full schemas.
 *
 * @example
 * ```ts
 * import { McpDisclosure } from "effect-surface/client"
 * const m = McpDisclosure.measure([{ name: "a__b", server: "a", description: "B", inputSchema: { type: "object" } }])
 * m.floor <= m.full // true
 * ```
 *
 * @since 0.1.0
 */
export const measure = (
  tools: ReadonlyArray<Disclosed>
): { readonly floor: number; readonly deferred: number; readonly full: number } => {
  let floor = 0
  let deferred = 0
  let full = 0
  for (const { description, inputSchema, name } of tools) {
    floor += estimateTokens(JSON.stringify({ name, description }))
    deferred += estimateTokens(JSON.stringify({ name, description, inputSchema: deferSchema(inputSchema) }))
    full += estimateTokens(JSON.stringify({ name, description, inputSchema }))
  }
  return { floor, deferred, full }
}

/**
 * The tier a server's tools are shown in: full when they fit the budget or the server is in
 * `alwaysLoad`, else deferred when those fit, else bare.
 *
 * @example
 * ```ts
 * import { McpDisclosure } from "effect-surface/client"
 * McpDisclosure.tierOf("docs", { floor: 900, deferred: 4_000, full: 30_000 }, {}) // "deferred"
 * ```
 *
 * @since 0.1.0
 */
export const tierOf = (server: string, measured: ReturnType<typeof measure>, options: Options | undefined): Tier => {
  const budget = options?.budget ?? DEFAULT_BUDGET_TOKENS
  if (measured.full <= budget || (options?.alwaysLoad ?? []).includes(server)) return "full"
  return measured.deferred <= budget ? "deferred" : "bare"
}

/**
 * What disclosing a map decided: the map as shown (each tool's schema as its tier has it), whether
 * `mcp__describe_tool` belongs in it, what the cap left out, and what to report.
 *
 * @example
 * ```ts
 * import type { McpDisclosure } from "effect-surface/client"
 * declare const disclosed: McpDisclosure.Decision<{ readonly tool: McpDisclosure.Disclosed }>
 * disclosed.describe // true when some server's schemas are held back
 * ```
 *
 * @since 0.1.0
 */
export interface Decision<E> {
  readonly shown: ReadonlyMap<string, E>
  readonly describe: boolean
  readonly leftOut: ReadonlyArray<string>
  readonly diagnostics: ReadonlyArray<Diagnostic.Diagnostic>
}

const byServer = <E extends { readonly tool: Disclosed }>(map: ReadonlyMap<string, E>) => {
  const servers = new Map<string, Array<E>>()
  for (const entry of map.values()) {
    const list = servers.get(entry.tool.server)
    if (list === undefined) servers.set(entry.tool.server, [entry])
    else list.push(entry)
  }
  return servers
}

/**
 * Disclose a map: each server's tier decided and applied, then the cap (one place of which the
 * describe tool takes, when it is needed). Map order is kept, so the cap leaves out the last
 * servers' last tools.
 *
 * @example
 * ```ts
 * import { McpDisclosure } from "effect-surface/client"
 * declare const map: ReadonlyMap<string, { readonly tool: McpDisclosure.Disclosed }>
 * const { shown, describe, leftOut } = McpDisclosure.disclose(map, { budget: 8_000 })
 * ```
 *
 * @since 0.1.0
 */
export const disclose = <E extends { readonly tool: Disclosed }>(
  map: ReadonlyMap<string, E>,
  options?: Options
): Decision<E> => {
  const budget = options?.budget ?? DEFAULT_BUDGET_TOKENS
  const diagnostics: Array<Diagnostic.Diagnostic> = []
  const schemaOf = new Map<string, (schema: Schema) => Schema>()
  for (const [server, entries] of byServer(map)) {
    const measured = measure(entries.map((entry) => entry.tool))
    const tier = tierOf(server, measured, options)
    if (measured.floor > budget)
      diagnostics.push(Diagnostic.disclosureBudgetExceeded(server, entries.length, measured.floor, budget))
    if (tier === "full") continue
    diagnostics.push(Diagnostic.disclosureDeferred(server, tier, measured.full, budget))
    schemaOf.set(server, tier === "deferred" ? deferSchema : () => BARE_SCHEMA)
  }
  const describe = schemaOf.size > 0
  const room = Math.max(0, (options?.maxTools ?? DEFAULT_MAX_TOOLS) - (describe ? 1 : 0))
  const shown = new Map<string, E>()
  const leftOut: Array<string> = []
  for (const [name, entry] of map) {
    if (shown.size >= room) {
      leftOut.push(name)
      continue
    }
    const shed = schemaOf.get(entry.tool.server)
    shown.set(
      name,
      shed === undefined ? entry : { ...entry, tool: { ...entry.tool, inputSchema: shed(entry.tool.inputSchema) } }
    )
  }
  if (leftOut.length > 0) diagnostics.push(Diagnostic.toolsCapped(options?.maxTools ?? DEFAULT_MAX_TOOLS, leftOut))
  return { shown, describe, leftOut, diagnostics }
}

/**
 * What `mcp__describe_tool` is shown as: its description and input schema.
 *
 * @example
 * ```ts
 * import { McpDisclosure } from "effect-surface/client"
 * McpDisclosure.describeTool.inputSchema // { type: "object", properties: { name: … }, required: ["name"] }
 * ```
 *
 * @since 0.1.0
 */
export const describeTool: { readonly description: string; readonly inputSchema: Schema } = {
  description:
    "Answers the full input schema and description of a tool in this tool list. Some tools are listed with their " +
    "parameters' names and types only; call this with the tool's name before calling one whose parameters you need in detail.",
  inputSchema: {
    type: "object",
    properties: { name: { type: "string", description: "The tool's name exactly as listed." } },
    required: ["name"]
  }
}

const DescribeArgs = Schema.Struct({ name: Schema.String })
const decodeDescribeArgs = Schema.decodeUnknownResult(DescribeArgs)

/**
 * The name `mcp__describe_tool` was called with, or `undefined` when its arguments are not `{ name }`.
 *
 * @example
 * ```ts
 * import { McpDisclosure } from "effect-surface/client"
 * McpDisclosure.describedName({ name: "docs__search" }) // "docs__search"
 * ```
 *
 * @since 0.1.0
 */
export const describedName = (args: unknown): string | undefined => {
  const decoded = decodeDescribeArgs(args)
  return Result.isSuccess(decoded) ? decoded.success.name : undefined
}

/**
 * The answer `mcp__describe_tool` gives for one tool: its full definition, as text and as data.
 *
 * @example
 * ```ts
 * import { McpDisclosure } from "effect-surface/client"
 * McpDisclosure.describe({ name: "docs__search", server: "docs", description: "Search", inputSchema: { type: "object" } })
 * ```
 *
 * @since 0.1.0
 */
export const describe = (tool: Disclosed): CallResult.Result => {
  const definition = { name: tool.name, description: tool.description, inputSchema: tool.inputSchema }
  return { content: [{ type: "text", text: JSON.stringify(definition) }], structuredContent: definition }
}
