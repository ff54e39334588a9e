/**
 * Which tools show a view in a host that renders MCP Apps (`io.modelcontextprotocol/ui`), and how the
 * lists a host is shown change when it declares the extension.
 *
 * A view is an HTML document at a `ui://` URI, of type `text/html;profile=mcp-app`, that the host
 * renders in a sandboxed iframe when a tool linking to it (`_meta.ui.resourceUri`) is called. The
 * surface already says what each procedure takes, so a view is generated from its tool's input
 * schema; an author may give any tool a page of their own instead. Views are opt-in — where a
 * procedure is exposed (its expose entry's `view`, or the map's `views` for the whole surface), or in
 * the server's options for every procedure or tool by tool — and a host that does not declare the
 * extension is shown the tools exactly as without views, and no view among the resources: which tool
 * has a view is decided here (`linkedOf`), and who sees the links (`present`), once, for both revisions.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as Bundle from "../../core/Bundle.ts"
import type * as Json from "../../core/Json.ts"

/**
 * The extension a host declares (under `capabilities.extensions`) when it renders views.
 *
 * @example
 * ```ts
 * import { McpViews } from "effect-surface/mcp"
 * const capabilities = { extensions: { [McpViews.EXTENSION]: { mimeTypes: [McpViews.MIME] } } }
 * ```
 *
 * @since 0.1.0
 */
export const EXTENSION = "io.modelcontextprotocol/ui"

/**
 * The MIME type of a view's document.
 *
 * @example
 * ```ts
 * import { McpViews } from "effect-surface/mcp"
 * McpViews.MIME // "text/html;profile=mcp-app"
 * ```
 *
 * @since 0.1.0
 */
export const MIME = "text/html;profile=mcp-app"

/**
 * The origins a view may reach, as the host's Content Security Policy for its iframe. Each list is
 * empty by default: a view reaches no outside origin.
 *
 * @example
 * ```ts
 * import type { McpViews } from "effect-surface/mcp"
 * const csp: McpViews.Csp = { connectDomains: ["https://api.example.com"] }
 * ```
 *
 * @since 0.1.0
 */
export interface Csp {
  readonly connectDomains?: ReadonlyArray<string>
  readonly resourceDomains?: ReadonlyArray<string>
  readonly frameDomains?: ReadonlyArray<string>
  readonly baseUriDomains?: ReadonlyArray<string>
}

/**
 * The browser features a view asks its host for; none by default.
 *
 * @example
 * ```ts
 * import type { McpViews } from "effect-surface/mcp"
 * const permissions: McpViews.Permissions = { clipboardWrite: {} }
 * ```
 *
 * @since 0.1.0
 */
export interface Permissions {
  readonly camera?: {}
  readonly microphone?: {}
  readonly geolocation?: {}
  readonly clipboardWrite?: {}
}

/**
 * A view an author wrote: one self-contained HTML document (bundled by them), as text or read when
 * a host asks for it, served with the same metadata as a generated one.
 *
 * @example
 * ```ts
 * import type { McpViews } from "effect-surface/mcp"
 * const page: McpViews.Authored = { html: "<!doctype html><title>Tasks</title><p>Hello</p>" }
 * ```
 *
 * @since 0.1.0
 */
export interface Authored {
  readonly html: string | Effect.Effect<string, unknown>
  readonly title?: string
  readonly csp?: Csp
  readonly permissions?: Permissions
}

/**
 * Which tools show a view, beside what the expose maps ask (`view` on a procedure's entry, `views`
 * on a map): `procedures: true` gives every tool made from a procedure its generated view unless its
 * expose map says `false`; `tools` names tools one by one, bespoke ones too, each `true` (its
 * generated view) or an authored page, and `false` to leave one out whatever else says so. A tool
 * whose schema the generator cannot show still has a form: one JSON field.
 *
 * @example
 * ```ts
 * import type { McpViews } from "effect-surface/mcp"
 * const views: McpViews.Options = { procedures: true, tools: { board_export: { html: "<!doctype html><p>export</p>" } } }
 * ```
 *
 * @since 0.1.0
 */
export interface Options {
  readonly procedures?: boolean
  readonly tools?: { readonly [tool: string]: boolean | Authored }
  /** The CSP and permissions of every generated view (an authored one declares its own). */
  readonly csp?: Csp
  readonly permissions?: Permissions
}

const PREFIX = "ui://views/tools/"

/**
 * The URI of a tool's view.
 *
 * @example
 * ```ts
 * import { McpViews } from "effect-surface/mcp"
 * McpViews.uriOf("tasks_add") // "ui://views/tools/tasks_add"
 * ```
 *
 * @since 0.1.0
 */
export const uriOf = (tool: string): string => `${PREFIX}${encodeURIComponent(tool)}`

/**
 * The tool a view URI shows, if it is one.
 *
 * @example
 * ```ts
 * import { McpViews } from "effect-surface/mcp"
 * McpViews.toolOf("ui://views/tools/tasks_add") // "tasks_add"
 * McpViews.toolOf("docs://readme") // undefined
 * ```
 *
 * @since 0.1.0
 */
export const toolOf = (uri: string): string | undefined => {
  if (!uri.startsWith(PREFIX)) return undefined
  try {
    return decodeURIComponent(uri.slice(PREFIX.length))
  } catch {
    return undefined
  }
}

/**
 * One tool's view: what it shows, and how it is served.
 *
 * @example
 * ```ts
 * import type { McpViews } from "effect-surface/mcp"
 * declare const linked: McpViews.Linked
 * linked.uri // "ui://views/tools/tasks_add"
 * ```
 *
 * @since 0.1.0
 */
export interface Linked {
  readonly tool: string
  readonly uri: string
  /** The tool as `tools/list` advertises it: its name, title, description and input schema. */
  readonly advertised: Json.JsonObject
  readonly authored: Authored | undefined
  /** The resource `_meta` it is listed and read with. */
  readonly meta: Json.JsonObject
}

const cspOf = (csp: Csp | undefined): Json.JsonObject => {
  const out: { [key: string]: Json.Json } = {}
  for (const key of ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"] as const) {
    const origins = csp?.[key]
    if (origins !== undefined && origins.length > 0) out[key] = [...origins]
  }
  return out
}

/**
 * The resource `_meta.ui` of a view: its CSP (no outside origin unless named) and permissions.
 *
 * @example
 * ```ts
 * import { McpViews } from "effect-surface/mcp"
 * McpViews.resourceMeta(undefined, undefined) // { ui: { csp: {}, permissions: {}, prefersBorder: true } }
 * ```
 *
 * @since 0.1.0
 */
export const resourceMeta = (csp: Csp | undefined, permissions: Permissions | undefined): Json.JsonObject => ({
  ui: { csp: cspOf(csp), permissions: { ...permissions } as Json.JsonObject, prefersBorder: true }
})

/**
 * The tools of a roster that show a view, in the roster's order: the one decision of whether a tool
 * has one. The options' word on a tool by name comes first; then its expose map's (the entry's
 * `view`, else the map's `views`); then the options' `procedures`.
 *
 * @example
 * ```ts
 * import { McpViews } from "effect-surface/mcp"
 * declare const resolved: Parameters<typeof McpViews.linkedOf>[0]
 * McpViews.linkedOf(resolved, { procedures: true }).map((linked) => linked.uri)
 * ```
 *
 * @since 0.1.0
 */
export const linkedOf = (resolved: Bundle.Resolved, options: Options): ReadonlyArray<Linked> =>
  resolved.advertisedTools.flatMap((advertised): ReadonlyArray<Linked> => {
    const name = String(advertised["name"])
    const chosen = options.tools !== undefined && Object.hasOwn(options.tools, name) ? options.tools[name] : undefined
    const tool = resolved.toolByName.get(name)
    const shown = chosen ?? tool?.view ?? (options.procedures === true && tool?.origin._tag === "Procedure")
    if (shown === false) return []
    const authored = typeof chosen === "object" ? chosen : undefined
    const meta = authored === undefined
      ? resourceMeta(options.csp, options.permissions)
      : resourceMeta(authored.csp, authored.permissions)
    return [{ tool: name, uri: uriOf(name), advertised, authored, meta }]
  })

/**
 * Whether a client's capabilities declare the extension with the view MIME type among its
 * `mimeTypes`, the check ext-apps' own server helpers make: a client declaring the extension bare
 * (`{}`, as some clients do by default) names no document it renders, and sees no views.
 *
 * @example
 * ```ts
 * import { McpViews } from "effect-surface/mcp"
 * McpViews.declares({ extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } }) // true
 * McpViews.declares({ extensions: { "io.modelcontextprotocol/ui": {} } }) // false
 * ```
 *
 * @since 0.1.0
 */
export const declares = (capabilities: unknown): boolean => {
  const extensions = (capabilities as { readonly extensions?: unknown } | undefined)?.extensions
  if (typeof extensions !== "object" || extensions === null) return false
  const ui = (extensions as { readonly [key: string]: unknown })[EXTENSION]
  if (typeof ui !== "object" || ui === null) return false
  const mimeTypes = (ui as { readonly mimeTypes?: unknown }).mimeTypes
  return Array.isArray(mimeTypes) && mimeTypes.includes(MIME)
}

/**
 * What a host is shown, given whether it declared the extension: a host that did sees each tool
 * whose view it may read linked to it (`_meta.ui.resourceUri`); one that did not sees the tools as
 * they are and no view among the resources.
 *
 * @example
 * ```ts
 * import { McpViews } from "effect-surface/mcp"
 * const shown = { tools: [{ name: "tasks_add" }], resources: [{ uri: "ui://views/tools/tasks_add", name: "tasks_add", mimeType: McpViews.MIME }] }
 * McpViews.present(shown, true).tools // [{ name: "tasks_add", _meta: { ui: { resourceUri: "ui://views/tools/tasks_add" } } }]
 * McpViews.present(shown, false).resources // []
 * ```
 *
 * @since 0.1.0
 */
export const present = <
  V extends { readonly tools: ReadonlyArray<Json.JsonObject>; readonly resources: ReadonlyArray<Json.JsonObject> }
>(shown: V, declared: boolean): V => {
  const isView = (resource: Json.JsonObject) => resource["mimeType"] === MIME
  if (!declared) {
    return shown.resources.some(isView) ? { ...shown, resources: shown.resources.filter((r) => !isView(r)) } : shown
  }
  const readable = new Set(shown.resources.flatMap((r) => {
    const tool = isView(r) ? toolOf(String(r["uri"])) : undefined
    return tool === undefined ? [] : [tool]
  }))
  if (readable.size === 0) return shown
  return {
    ...shown,
    tools: shown.tools.map((tool) => {
      const name = String(tool["name"])
      if (!readable.has(name)) return tool
      const meta = typeof tool["_meta"] === "object" && tool["_meta"] !== null ? tool["_meta"] as Json.JsonObject : {}
      const ui = typeof meta["ui"] === "object" && meta["ui"] !== null ? meta["ui"] as Json.JsonObject : {}
      return { ...tool, _meta: { ...meta, ui: { ...ui, resourceUri: uriOf(name) } } }
    })
  }
}
