/**
 * What a toolset noticed while wiring and running, as data.
 *
 * Much of what can go wrong with someone else's server should not stop an agent: a colliding name,
 * a plugin whose binary escapes its root, a server that is down, a listing with a broken entry. The
 * toolset carries on with the rest and says what it did instead, once, as a diagnostic — a record a
 * program can match on `kind` and a sentence a person can read — handed to `onDiagnostic`, kept on
 * the toolset, and logged. No diagnostic ever carries a credential. Drift's and the store's own
 * kinds are made beside their concept, in `McpDrift` and `McpStore`.
 *
 * @since 0.1.0
 */

interface Base<K extends string> {
  readonly kind: K
  /** `warning` when something configured does not work as written; `info` otherwise. */
  readonly level: "info" | "warning"
  readonly message: string
}

/**
 * One diagnostic, by `kind`.
 *
 * @example
 * ```ts
 * import type { McpDiagnostic } from "effect-surface/client"
 * const show = (d: McpDiagnostic.Diagnostic) => d.kind === "server-name-collision" ? d.keys.join(", ") : d.message
 * ```
 *
 * @since 0.1.0
 */
export type Diagnostic =
  | Base<"server-name-collision"> & { readonly name: string; readonly keys: ReadonlyArray<string> }
  | Base<"tool-name-rewritten"> & { readonly server: string; readonly tool: string; readonly projected: string }
  | Base<"tool-name-collision"> & { readonly server: string; readonly tool: string; readonly projected: string }
  | Base<"host-not-allowed"> & { readonly server: string; readonly host: string }
  | Base<"stdio-refused"> & { readonly server: string; readonly reason: string }
  | Base<"server-unavailable"> & {
    readonly server: string
    readonly reason: string
    /** For a stdio server whose process ended before it answered: how, and what it said last. */
    readonly exited?: Exited | undefined
  }
  | Base<"tool-filter-unmatched"> & { readonly entry: string }
  | Base<"tool-unchecked"> & { readonly server: string; readonly tool: string; readonly reason: string }
  | Base<"tool-skipped"> & { readonly server: string; readonly reason: string }
  | Base<"tool-needs-tasks"> & { readonly server: string; readonly tool: string }
  | Base<"tools-changed"> & {
    readonly server: string
    readonly added: ReadonlyArray<string>
    readonly removed: ReadonlyArray<string>
  }
  | Base<"disclosure-deferred"> & {
    readonly server: string
    readonly tier: "deferred" | "bare"
    readonly tokens: number
    readonly budget: number
  }
  | Base<"disclosure-budget-exceeded"> & {
    readonly server: string
    readonly tools: number
    readonly floor: number
    readonly budget: number
  }
  | Base<"tools-capped"> & { readonly maxTools: number; readonly leftOut: ReadonlyArray<string> }
  | Base<"tool-quarantined"> & { readonly server: string; readonly tool: string }
  | Base<"tool-withheld"> & { readonly server: string; readonly tool: string }
  | Base<"tool-removed"> & { readonly server: string; readonly tool: string }
  | Base<"store-unavailable"> & { readonly server: string; readonly reason: string }
  | Base<"stored-row-replaced"> & { readonly server: string; readonly reason: string }
  | Base<"server-unreconciled"> & { readonly server: string; readonly reason: string }
  | Base<"server-not-stored"> & { readonly server: string }
  | Base<"stored-server-unconfigured"> & { readonly server: string }

/**
 * How a stdio server's process ended: its exit code (or the signal that ended it) and its last
 * stderr lines (up to ten, each URL in them cleared of credentials).
 *
 * @example
 * ```ts
 * import type { McpDiagnostic } from "effect-surface/client"
 * const exited: McpDiagnostic.Exited = { code: 3, signal: null, stderr: ["DATABASE_URL is not set"] }
 * ```
 *
 * @since 0.1.0
 */
export interface Exited {
  readonly code: number | null
  readonly signal: string | null
  readonly stderr: ReadonlyArray<string>
}

/**
 * The kinds a diagnostic may have.
 *
 * @example
 * ```ts
 * import type { McpDiagnostic } from "effect-surface/client"
 * const kind: McpDiagnostic.Kind = "host-not-allowed"
 * ```
 *
 * @since 0.1.0
 */
export type Kind = Diagnostic["kind"]

/**
 * Two servers in one toolset share a name: both keep it with a suffix hashed from what they are.
 *
 * @example
 * ```ts
 * import { McpDiagnostic } from "effect-surface/client"
 * McpDiagnostic.serverNameCollision("local", ["local_1a2b3c4d", "local_5e6f7a8b"]).message
 * ```
 *
 * @since 0.1.0
 */
export const serverNameCollision = (name: string, keys: ReadonlyArray<string>): Diagnostic => ({
  kind: "server-name-collision",
  level: "warning",
  name,
  keys,
  message:
    `${keys.length} servers are named "${name}": their tools are named under ${
      keys.map((k) => `"${k}"`).join(" and ")
    }, ` +
    `each suffixed from what the server is, so reordering the list never repoints a name. None was dropped.`
})

/**
 * A tool's name was not legal as `${server}__${tool}` and was rewritten.
 *
 * @example
 * ```ts
 * import { McpDiagnostic } from "effect-surface/client"
 * McpDiagnostic.toolNameRewritten("docs", "search.v2", "docs__search_v2_1a2b3c4d").message
 * ```
 *
 * @since 0.1.0
 */
export const toolNameRewritten = (server: string, tool: string, projected: string): Diagnostic => ({
  kind: "tool-name-rewritten",
  level: "info",
  server,
  tool,
  projected,
  message:
    `tool "${tool}" of MCP server "${server}" is named "${projected}": model providers accept only [a-zA-Z0-9_-], up to 64 characters.`
})

/**
 * Two tools projected onto one name (a server name containing `__` can do it); the later one was
 * renamed with a hash of where it comes from.
 *
 * @example
 * ```ts
 * import { McpDiagnostic } from "effect-surface/client"
 * McpDiagnostic.toolNameCollision("a__b", "c", "a__b__c_1a2b3c4d").message
 * ```
 *
 * @since 0.1.0
 */
export const toolNameCollision = (server: string, tool: string, projected: string): Diagnostic => ({
  kind: "tool-name-collision",
  level: "warning",
  server,
  tool,
  projected,
  message:
    `tool "${tool}" of MCP server "${server}" projected onto a name another tool already has; it is named "${projected}" instead.`
})

/**
 * A server's URL names a host outside `allowedHosts` — or, with none given, an address that is not
 * public (`why` says which): it was not contacted and offers no tools.
 *
 * @example
 * ```ts
 * import { McpDiagnostic } from "effect-surface/client"
 * McpDiagnostic.hostNotAllowed("docs", "evil.example").message
 * ```
 *
 * @since 0.1.0
 */
export const hostNotAllowed = (
  server: string,
  host: string,
  why = `its host "${host}" is not in allowedHosts`
): Diagnostic => ({
  kind: "host-not-allowed",
  level: "warning",
  server,
  host,
  message: `MCP server "${server}" was not contacted: ${why}. The other servers load.`
})

/**
 * A stdio server was not started: its command or working directory resolves outside its root.
 *
 * @example
 * ```ts
 * import { McpDiagnostic } from "effect-surface/client"
 * McpDiagnostic.stdioRefused("plugin", "bin/server resolves to /usr/local/bin/x, outside /opt/plugin").message
 * ```
 *
 * @since 0.1.0
 */
export const stdioRefused = (server: string, reason: string): Diagnostic => ({
  kind: "stdio-refused",
  level: "warning",
  server,
  reason,
  message: `MCP server "${server}" was not started: ${reason}. The other servers load.`
})

/**
 * A server could not be connected and listed: it offers no tools now. A stdio server whose process
 * ended first carries how (`exited`), which the reason also says.
 *
 * @example
 * ```ts
 * import { McpDiagnostic } from "effect-surface/client"
 * McpDiagnostic.serverUnavailable("memory", "the process exited").message
 * ```
 *
 * @since 0.1.0
 */
export const serverUnavailable = (server: string, reason: string, exited?: Exited): Diagnostic => ({
  kind: "server-unavailable",
  level: "warning",
  server,
  reason,
  ...(exited === undefined ? {} : { exited }),
  message: `MCP server "${server}" offers no tools: ${reason}`
})

/**
 * A `tools` filter entry matched no tool.
 *
 * @example
 * ```ts
 * import { McpDiagnostic } from "effect-surface/client"
 * McpDiagnostic.filterUnmatched("memory__reed_graph").message
 * ```
 *
 * @since 0.1.0
 */
export const filterUnmatched = (entry: string): Diagnostic => ({
  kind: "tool-filter-unmatched",
  level: "warning",
  entry,
  message: `the tools filter names "${entry}", which no server lists.`
})

/**
 * A tool's input schema cannot be used to check arguments here; its calls go unchecked (the server
 * still checks them).
 *
 * @example
 * ```ts
 * import { McpDiagnostic } from "effect-surface/client"
 * McpDiagnostic.toolUnchecked("docs", "search", 'JSON Schema at "#/required": must be an array of strings').message
 * ```
 *
 * @since 0.1.0
 */
export const toolUnchecked = (server: string, tool: string, reason: string): Diagnostic => ({
  kind: "tool-unchecked",
  level: "warning",
  server,
  tool,
  reason,
  message:
    `the input schema of tool "${tool}" of MCP server "${server}" cannot be checked here (${reason}); its arguments go to the server unchecked.`
})

/**
 * An entry of a server's tool listing is not a tool and was left out.
 *
 * @example
 * ```ts
 * import { McpDiagnostic } from "effect-surface/client"
 * McpDiagnostic.toolSkipped("docs", "entry 3 has no name").message
 * ```
 *
 * @since 0.1.0
 */
export const toolSkipped = (server: string, reason: string): Diagnostic => ({
  kind: "tool-skipped",
  level: "warning",
  server,
  reason,
  message: `MCP server "${server}" listed something that is not a tool, left out: ${reason}`
})

/**
 * A tool can only be called as a task (`execution.taskSupport: "required"`), and the session with
 * its server is a 2025-11-25 one, where this toolset does not follow tasks: the tool is left out
 * rather than shown to a model that could never call it. On a 2026-07-28 session such a tool is
 * listed and followed as a task.
 *
 * @example
 * ```ts
 * import { McpDiagnostic } from "effect-surface/client"
 * McpDiagnostic.toolNeedsTasks("everything", "simulate-research-query").message
 * ```
 *
 * @since 0.1.0
 */
export const toolNeedsTasks = (server: string, tool: string): Diagnostic => ({
  kind: "tool-needs-tasks",
  level: "warning",
  server,
  tool,
  message: `tool "${tool}" of MCP server "${server}" was left out: it can only be called as a task ` +
    `(execution.taskSupport "required"), and this toolset follows tasks on 2026-07-28 sessions only, ` +
    `while this server speaks 2025-11-25 here.`
})

/**
 * A server's tool list changed and the map followed it.
 *
 * @example
 * ```ts
 * import { McpDiagnostic } from "effect-surface/client"
 * McpDiagnostic.toolsChanged("board", ["board__jobs_count"], []).message
 * ```
 *
 * @since 0.1.0
 */
export const toolsChanged = (
  server: string,
  added: ReadonlyArray<string>,
  removed: ReadonlyArray<string>
): Diagnostic => ({
  kind: "tools-changed",
  level: "info",
  server,
  added,
  removed,
  message:
    `MCP server "${server}" changed its tools: ${added.length} added${
      added.length === 0 ? "" : ` (${added.join(", ")})`
    }, ` +
    `${removed.length} removed${removed.length === 0 ? "" : ` (${removed.join(", ")})`}.`
})

/**
 * A server's tool definitions are over the disclosure budget: its tools are shown with deferred
 * schemas (parameter names, scalar types, `required`) or, when even those are over, the bare object
 * schema; `mcp__describe_tool` answers the full one.
 *
 * @example
 * ```ts
 * import { McpDiagnostic } from "effect-surface/client"
 * McpDiagnostic.disclosureDeferred("github", "deferred", 41_250, 20_000).message
 * ```
 *
 * @since 0.1.0
 */
export const disclosureDeferred = (
  server: string,
  tier: "deferred" | "bare",
  tokens: number,
  budget: number
): Diagnostic => ({
  kind: "disclosure-deferred",
  level: "info",
  server,
  tier,
  tokens,
  budget,
  message:
    `the tool definitions of MCP server "${server}" come to about ${tokens} tokens, over the budget of ${budget}: its tools are shown ` +
    (tier === "deferred" ? "with parameter names, types and required only" : "with a bare object schema") +
    `, and mcp__describe_tool answers each full schema.`
})

/**
 * Even the catalogue of a server's tool names and descriptions — what a model routes on, never
 * trimmed — is over the budget. The way down is the `tools` filter.
 *
 * @example
 * ```ts
 * import { McpDiagnostic } from "effect-surface/client"
 * McpDiagnostic.disclosureBudgetExceeded("cloud", 900, 27_000, 20_000).message
 * ```
 *
 * @since 0.1.0
 */
export const disclosureBudgetExceeded = (server: string, tools: number, floor: number, budget: number): Diagnostic => ({
  kind: "disclosure-budget-exceeded",
  level: "warning",
  server,
  tools,
  floor,
  budget,
  message:
    `MCP server "${server}" lists ${tools} tools whose names and descriptions alone come to about ${floor} tokens, over the ` +
    `disclosure budget of ${budget}. The catalogue is what a model chooses tools by, so it is not trimmed: use the tools filter ` +
    `(allow or block) to bring it down.`
})

/**
 * The map held more tools than `maxTools` (a provider's limit); those named were left out.
 *
 * @example
 * ```ts
 * import { McpDiagnostic } from "effect-surface/client"
 * McpDiagnostic.toolsCapped(128, ["cloud__z1", "cloud__z2"]).message
 * ```
 *
 * @since 0.1.0
 */
export const toolsCapped = (maxTools: number, leftOut: ReadonlyArray<string>): Diagnostic => ({
  kind: "tools-capped",
  level: "warning",
  maxTools,
  leftOut,
  message:
    `the toolset holds more tools than maxTools (${maxTools}); ${leftOut.length} were left out: ${
      leftOut.join(", ")
    }. ` +
    `Use the tools filter to choose which stay.`
})
