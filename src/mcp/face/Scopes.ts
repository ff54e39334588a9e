/**
 * Scopes narrowing exposure: each caller is shown only what its token's scopes reach.
 *
 * The expose map says which members cross to a face; a member's `scope` says which callers see it
 * there. This module is where that is applied for every list and every request of the MCP face:
 * the tools, resources, templates and prompts one caller may see (computed once per scope set and
 * per roster, never per token), and the scope a request needs before it may run. Members with no
 * scope are shown to every authenticated caller; the local caller sees everything. Bespoke tools,
 * prompts and the app's resources, which the expose map does not name, take theirs from `Options`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Bundle from "../../core/Bundle.ts"
import * as Identity from "../../core/Identity.ts"
import * as ItemUri from "../../core/ItemUri.ts"
import type * as Json from "../../core/Json.ts"
import * as AppResources from "./AppResources.ts"
import * as Prompts from "./Prompts.ts"
import * as Views from "../views/Views.ts"

/**
 * The scopes of what the expose map does not name: bespoke tools by name, prompts by name, app
 * resources by URI or URI template. A URI an app template serves (matched as a read matches it,
 * whatever the template's RFC 6570 operators) needs the scope keyed by that template and every scope
 * keyed by a URI the template reads as the same thing (`files://docs/secret` also protects
 * `files://docs/secre%74`); a caller needs all of them.
 *
 * @example
 * ```ts
 * import type { McpScopes } from "effect-surface/mcp"
 * const scopes: McpScopes.Options = { tools: { board_export: "board:admin" }, prompts: { triage: "board:read" } }
 * ```
 *
 * @since 0.1.0
 */
export interface Options {
  readonly tools?: { readonly [name: string]: string }
  readonly prompts?: { readonly [name: string]: string }
  readonly resources?: { readonly [uriOrTemplate: string]: string }
}

/**
 * What one caller is shown: the four lists, as their list answers carry them.
 *
 * @example
 * ```ts
 * import type { McpScopes } from "effect-surface/mcp"
 * declare const view: McpScopes.View
 * const names = view.tools.map((tool) => tool["name"])
 * ```
 *
 * @since 0.1.0
 */
export interface View {
  readonly tools: ReadonlyArray<Json.JsonObject>
  readonly resources: ReadonlyArray<Json.JsonObject>
  readonly templates: ReadonlyArray<Json.JsonObject>
  readonly prompts: ReadonlyArray<Json.JsonObject>
}

/**
 * The scope a request needs, and what it asks for (for the refusal's sentence).
 *
 * @example
 * ```ts
 * import type { McpScopes } from "effect-surface/mcp"
 * const need: McpScopes.Need = { scope: "board:write", what: "tool \"board_add\"" }
 * ```
 *
 * @since 0.1.0
 */
export interface Need {
  readonly scope: string
  readonly what: string
}

/**
 * A face's scopes: the view of a caller, and the need of a request.
 *
 * @example
 * ```ts
 * import { Identity } from "effect-surface"
 * import type { McpScopes } from "effect-surface/mcp"
 * declare const scopes: McpScopes.Scopes
 * const shown = scopes.view(Identity.token({ subject: "ada", clientId: "cli", scopes: ["board:read"] }))
 * ```
 *
 * @since 0.1.0
 */
export interface Scopes {
  readonly view: (caller: Identity.Principal) => Effect.Effect<View>
  /**
   * The scope a request needs. A request naming many things (a 2026 `subscriptions/listen`, each
   * URI needing what a 2025 `resources/subscribe` of it needs) answers the first need `caller` does
   * not meet, else the first it has; without a caller, the first.
   */
  readonly needs: (method: string, params: unknown, caller?: Identity.Principal) => Effect.Effect<Need | undefined>
}

/**
 * Where a face's lists come from: what `make` narrows for each caller.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Bundle } from "effect-surface"
 * import type { McpScopes } from "effect-surface/mcp"
 *
 * declare const resolved: Bundle.Resolved
 * declare const rest: Pick<McpScopes.Sources, "prompts" | "apps">
 * const sources: McpScopes.Sources = { resolved: Effect.succeed(resolved), ...rest }
 * ```
 *
 * @since 0.1.0
 */
export interface Sources {
  readonly resolved: Effect.Effect<Bundle.Resolved>
  readonly prompts: Effect.Effect<Prompts.Table>
  readonly apps: Effect.Effect<AppResources.Compiled>
}

interface Tables {
  readonly resolved: Bundle.Resolved
  readonly prompts: Prompts.Table
  readonly apps: AppResources.Compiled
}

const text = (value: unknown): string => typeof value === "string" ? value : ""

const maxViews = 256

// The URIs a listen request asks to follow (a malformed filter names none: it is refused later).
const listenedUris = (record: { readonly [key: string]: unknown }): ReadonlyArray<unknown> => {
  const filter = record["notifications"]
  const uris = typeof filter === "object" && filter !== null
    ? (filter as { readonly [key: string]: unknown })["resourceSubscriptions"]
    : undefined
  return Array.isArray(uris) ? uris : []
}

// The first of many needs `caller` does not meet, else the first there is.
const firstUnmet = <A>(
  items: ReadonlyArray<A>,
  needOf: (item: A) => Need | undefined,
  caller: Identity.Principal | undefined
): Need | undefined => {
  let first: Need | undefined
  for (const item of items) {
    const need = needOf(item)
    if (need === undefined) continue
    if (caller === undefined || !Identity.allows(caller, need.scope)) return need
    first ??= need
  }
  return first
}

/**
 * The scopes of a face over its sources.
 *
 * @example
 * ```ts
 * import { McpScopes } from "effect-surface/mcp"
 * declare const sources: McpScopes.Sources
 * const scopes = McpScopes.make({ tools: { board_export: "board:admin" } }, sources)
 * ```
 *
 * @since 0.1.0
 */
export const make = (options: Options, sources: Sources): Scopes => {
  const byName = options.tools ?? {}
  const prompts = options.prompts ?? {}
  const apps = options.resources ?? {}
  const toolScope = (resolved: Bundle.Resolved, name: string) =>
    resolved.toolByName.get(name)?.scope ?? (Object.hasOwn(byName, name) ? byName[name] : undefined)
  const templateByUri = new WeakMap<Bundle.Resolved, ReadonlyMap<string, Bundle.Template>>()
  const templatesOf = (resolved: Bundle.Resolved) => {
    let known = templateByUri.get(resolved)
    if (known === undefined) {
      known = new Map(resolved.templates.map((template) => [template.uriTemplate, template]))
      templateByUri.set(resolved, known)
    }
    return known
  }
  const scopeOf = (key: string) => Object.hasOwn(apps, key) ? apps[key] : undefined
  // The scopes keyed by URI, by what each URI is read as under each template that matches it.
  const keyedAs = new WeakMap<AppResources.Compiled, ReadonlyMap<string, ReadonlyArray<string>>>()
  const keyedOf = (compiled: AppResources.Compiled) => {
    let known = keyedAs.get(compiled)
    if (known === undefined) {
      const index = new Map<string, Array<string>>()
      for (const [key, scope] of Object.entries(apps)) {
        if (AppResources.hasTemplate(compiled, key)) continue
        for (const identity of AppResources.identitiesOf(compiled, key)) {
          index.set(identity, [...(index.get(identity) ?? []), scope])
        }
      }
      known = index
      keyedAs.set(compiled, known)
    }
    return known
  }
  // Every scope a read of `uri` among the app's resources needs, found by the matcher that serves
  // it. A fixed resource: its URI's. A URI a template serves: the template's; the URI's own; that of
  // the URI the template writes its decoded values back to (where a fixed resource of the same thing
  // is keyed); and that of every keyed URI a template reads as this one. So no other spelling of a
  // keyed URI (`files://docs/secre%74`) reaches it without its scope, and a template's own scope
  // never stands in for a stricter one keyed by URI.
  const appScopes = (compiled: AppResources.Compiled, uri: string): ReadonlyArray<string> => {
    const found = AppResources.find(compiled, uri)
    const own = scopeOf(uri)
    if (found?._tag !== "Template") return own === undefined ? [] : [own]
    const keyed = keyedOf(compiled)
    const scopes = new Set<string | undefined>([scopeOf(found.uriTemplate), own])
    scopes.add(scopeOf(AppResources.canonicalOf(compiled, found)))
    for (const identity of AppResources.identitiesOf(compiled, uri)) {
      for (const scope of keyed.get(identity) ?? []) scopes.add(scope)
    }
    scopes.delete(undefined)
    return [...scopes] as ReadonlyArray<string>
  }
  const surfaceScope = (resolved: Bundle.Resolved, uri: string): string | undefined => {
    const resource = resolved.byUri.get(uri)
    if (resource !== undefined) return resource.scope
    // A collection's item: its template's scope, read as the engine reads the item.
    return ItemUri.parseItemUri(resolved, uri)?.template.scope
  }
  // The one place deciding what a URI needs (a read, a subscribe, a listen, a listing): routed as a
  // read is, `surface:` to the roster and anything else to the app's handlers. A caller needs all.
  // A tool's view needs what the tool needs, so a view is shown and read only where its tool is.
  const resourceScopes = (tables: Pick<Tables, "resolved" | "apps">, uri: string): ReadonlyArray<string> => {
    if (!AppResources.isSurfaceUri(uri)) {
      const tool = Views.toolOf(uri)
      const viewScope = tool === undefined ? undefined : toolScope(tables.resolved, tool)
      return viewScope === undefined ? appScopes(tables.apps, uri) : [...appScopes(tables.apps, uri), viewScope]
    }
    const scope = surfaceScope(tables.resolved, uri)
    return scope === undefined ? [] : [scope]
  }
  const templateScope = (resolved: Bundle.Resolved, uriTemplate: string) => {
    const template = templatesOf(resolved).get(uriTemplate)
    return template !== undefined ? template.scope : Object.hasOwn(apps, uriTemplate) ? apps[uriTemplate] : undefined
  }
  const promptScope = (name: string) => Object.hasOwn(prompts, name) ? prompts[name] : undefined

  const build = (tables: Tables, caller: Identity.Principal): View => {
    const { resolved } = tables
    const allowed = (scope: string | undefined) => Identity.allows(caller, scope)
    return {
      tools: resolved.advertisedTools.filter((tool) => allowed(toolScope(resolved, text(tool["name"])))),
      resources: [...resolved.advertisedResources, ...tables.apps.advertisedResources].filter((resource) =>
        resourceScopes(tables, text(resource["uri"])).every(allowed)
      ),
      templates: [...resolved.advertisedResourceTemplates, ...tables.apps.advertisedTemplates].filter((template) =>
        allowed(templateScope(resolved, text(template["uriTemplate"])))
      ),
      prompts: Object.keys(tables.prompts).flatMap((name) => {
        const prompt = tables.prompts[name]
        return prompt !== undefined && allowed(promptScope(name)) ? [Prompts.advertise(name, prompt)] : []
      })
    }
  }
  // One view per scope set, rebuilt when any of its sources moved.
  const views = new Map<string, { readonly tables: Tables; readonly view: View }>()
  const view = (caller: Identity.Principal) =>
    Effect.map(
      Effect.all({ resolved: sources.resolved, prompts: sources.prompts, apps: sources.apps }),
      (tables) => {
        const key = Identity.viewKey(caller)
        const kept = views.get(key)
        if (
          kept !== undefined && kept.tables.resolved === tables.resolved && kept.tables.prompts === tables.prompts &&
          kept.tables.apps === tables.apps
        ) return kept.view
        if (views.size >= maxViews) views.clear()
        const built = build(tables, caller)
        views.set(key, { tables, view: built })
        return built
      }
    )
  const needs = (method: string, params: unknown, caller?: Identity.Principal): Effect.Effect<Need | undefined> => {
    const record = typeof params === "object" && params !== null ? params as { readonly [key: string]: unknown } : {}
    const need = (scope: string | undefined, what: string) => scope === undefined ? undefined : { scope, what }
    switch (method) {
      case "tools/call":
        return Effect.map(sources.resolved, (resolved) => {
          const name = text(record["name"])
          return need(toolScope(resolved, name), `tool "${name}"`)
        })
      case "resources/read":
      case "resources/subscribe":
      case "subscriptions/listen": {
        // Each URI named once, each of its scopes a need of its own.
        const uris = method === "subscriptions/listen" ? [...new Set(listenedUris(record).map(text))]
          : [text(record["uri"])]
        return Effect.map(
          Effect.all({ resolved: sources.resolved, apps: sources.apps }),
          (tables) =>
            firstUnmet(
              uris.flatMap((uri) => resourceScopes(tables, uri).map((scope) => ({ scope, what: `resource ${uri}` }))),
              (needed) => needed,
              caller
            )
        )
      }
      case "prompts/get": {
        const name = text(record["name"])
        return Effect.succeed(need(promptScope(name), `prompt "${name}"`))
      }
      case "completion/complete": {
        const ref = typeof record["ref"] === "object" && record["ref"] !== null
          ? record["ref"] as { readonly [key: string]: unknown }
          : {}
        if (ref["type"] === "ref/prompt") {
          const name = text(ref["name"])
          return Effect.succeed(need(promptScope(name), `prompt "${name}"`))
        }
        return Effect.map(sources.resolved, (resolved) => {
          const uri = text(ref["uri"])
          return need(templateScope(resolved, uri), `resource template ${uri}`)
        })
      }
      default:
        return Effect.succeed(undefined)
    }
  }
  return { view, needs }
}
