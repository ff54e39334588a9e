/**
 * Resources an app serves by handler, beside the `surface://` resources its surfaces mint.
 *
 * Not everything a host should read is a surface member: a README, a rendered chart, a file's bytes,
 * a record looked up by id. These are declared on the face as fixed URIs and RFC 6570 URI templates,
 * each with an Effect that reads it as text or as base64 bytes (`blob`), and optionally a stream of
 * changes a host can subscribe to. They are routed by scheme — `surface://` always belongs to the
 * roster, anything else to these handlers — so the two can never shadow each other, and an app
 * resource claiming `surface://` is refused when it is declared.
 *
 * @since 0.1.0
 */
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import type * as Json from "../../core/Json.ts"
import { ReservedResourceUri } from "../../core/ResolveError.ts"
import { messageOf } from "../../core/ToolFailure.ts"
import type * as ToolResult from "../../core/ToolResult.ts"
import type * as Completion from "./Completion.ts"
import * as RpcError from "./RpcError.ts"

// By its tag: a refusal raised by another copy of this package is still one.
const isProtocolError = (u: unknown): u is RpcError.ProtocolError => Predicate.isTagged(u, "ProtocolError")

/**
 * What a read answers with: text, or base64 bytes as `blob`, each with its mime type (else the
 * resource's declared one).
 *
 * @example
 * ```ts
 * import type { McpAppResources } from "effect-surface/mcp"
 * const text: McpAppResources.Contents = { text: "hello", mimeType: "text/plain" }
 * const bytes: McpAppResources.Contents = { blob: "iVBORw0KGgo=", mimeType: "image/png" }
 * ```
 *
 * @since 0.1.0
 */
export type Contents =
  | { readonly text: string; readonly mimeType?: string }
  | { readonly blob: string; readonly mimeType?: string }

/**
 * How a resource is listed.
 *
 * @example
 * ```ts
 * import type { McpAppResources } from "effect-surface/mcp"
 * const listing: McpAppResources.Listing = { name: "readme", mimeType: "text/markdown" }
 * ```
 *
 * @since 0.1.0
 */
export interface Listing {
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly mimeType?: string
  /** The resource's `_meta`, listed and read with it (a view's `ui` CSP and permissions). */
  readonly meta?: Json.JsonObject
}

/**
 * A resource at one fixed URI. `changes` pulses each time it changes, which a subscribed host is
 * told as `notifications/resources/updated`. A `ProtocolError` a read fails with is answered as
 * is; any other failure as an internal error naming the URI.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { McpAppResources } from "effect-surface/mcp"
 * const readme: McpAppResources.Resource = { name: "readme", mimeType: "text/markdown", read: Effect.succeed({ text: "# Board" }) }
 * ```
 *
 * @since 0.1.0
 */
export interface Resource extends Listing {
  readonly read: Effect.Effect<Contents | ReadonlyArray<Contents>, unknown>
  readonly changes?: Stream.Stream<unknown, unknown>
}

/**
 * The values a URI filled a template's variables with, percent-decoded.
 *
 * @example
 * ```ts
 * import type { McpAppResources } from "effect-surface/mcp"
 * const params: McpAppResources.Params = { id: "123" }
 * ```
 *
 * @since 0.1.0
 */
export type Params = { readonly [variable: string]: string }

/**
 * The resources under one URI template (`test://items/{id}`): read by the variables a URI fills
 * in, each variable optionally completed (`completion/complete` on `ref/resource`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { McpAppResources } from "effect-surface/mcp"
 * const item: McpAppResources.Template = {
 *   name: "item",
 *   mimeType: "application/json",
 *   read: ({ id }) => Effect.succeed({ text: JSON.stringify({ id }) })
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Template extends Listing {
  readonly read: (params: Params, uri: string) => Effect.Effect<Contents | ReadonlyArray<Contents>, unknown>
  readonly complete?: { readonly [variable: string]: Completion.Completer }
  readonly changes?: (params: Params, uri: string) => Stream.Stream<unknown, unknown>
}

/**
 * The app's resources: fixed ones by URI, templated ones by URI template (matched in order).
 *
 * @example
 * ```ts
 * import type { McpAppResources } from "effect-surface/mcp"
 *
 * declare const readme: McpAppResources.Resource
 * declare const item: McpAppResources.Template
 * const table: McpAppResources.Table = { resources: { "docs://readme": readme }, templates: { "items://{id}": item } }
 * ```
 *
 * @since 0.1.0
 */
export interface Table {
  readonly resources?: { readonly [uri: string]: Resource } | undefined
  readonly templates?: { readonly [uriTemplate: string]: Template } | undefined
}

// A template's matcher and expander (RFC 6570: the SDK's `UriTemplate`, named by its shape alone).
interface Matcher {
  match(uri: string): { readonly [key: string]: string | ReadonlyArray<string> } | null
  expand(params: { readonly [key: string]: string | ReadonlyArray<string> }): string
}

/**
 * A table checked and compiled once per change: template matchers and both list answers.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpAppResources } from "effect-surface/mcp"
 *
 * declare const table: McpAppResources.Table
 * const listed = Effect.map(McpAppResources.compile(table), (compiled) => compiled.advertisedResources) // the resources/list entries
 * ```
 *
 * @since 0.1.0
 */
export interface Compiled {
  readonly table: Table
  readonly templates: ReadonlyArray<
    { readonly uriTemplate: string; readonly template: Template; readonly matcher: Matcher }
  >
  readonly advertisedResources: ReadonlyArray<Json.JsonObject>
  readonly advertisedTemplates: ReadonlyArray<Json.JsonObject>
}

/**
 * The scheme only the roster mints.
 *
 * @example
 * ```ts
 * import { McpAppResources } from "effect-surface/mcp"
 * "surface://cells/focus".startsWith(McpAppResources.SURFACE) // true
 * ```
 *
 * @since 0.1.0
 */
export const SURFACE = "surface:"

/**
 * Whether a URI belongs to the roster (`surface:`, any case) rather than to the app's handlers.
 *
 * @example
 * ```ts
 * import { McpAppResources } from "effect-surface/mcp"
 * McpAppResources.isSurfaceUri("surface://cells/focus") // true
 * McpAppResources.isSurfaceUri("test://static-text") // false
 * ```
 *
 * @since 0.1.0
 */
export const isSurfaceUri = (uri: string): boolean => uri.toLowerCase().startsWith(SURFACE)

const listing = (listed: Listing): Json.JsonObject => ({
  name: listed.name,
  ...(listed.title === undefined ? {} : { title: listed.title }),
  ...(listed.description === undefined ? {} : { description: listed.description }),
  ...(listed.mimeType === undefined ? {} : { mimeType: listed.mimeType }),
  ...(listed.meta === undefined ? {} : { _meta: listed.meta })
})

/**
 * Check and compile a table: a URI or template under `surface:` is refused.
 *
 * @example
 * ```ts
 * import { McpAppResources } from "effect-surface/mcp"
 *
 * declare const readme: McpAppResources.Resource
 * McpAppResources.compile({ resources: { "surface://cells/x": readme } }) // fails with ReservedResourceUri
 * ```
 *
 * @since 0.1.0
 */
export const compile = (table: Table): Effect.Effect<Compiled, ReservedResourceUri> =>
  Effect.gen(function*() {
    const resources = Object.entries(table.resources ?? {})
    const templates = Object.entries(table.templates ?? {})
    for (const [uri] of [...resources, ...templates]) {
      if (isSurfaceUri(uri)) return yield* new ReservedResourceUri({ uri })
    }
    return {
      table,
      templates: templates.map(([uriTemplate, template]) => ({
        uriTemplate,
        template,
        matcher: new UriTemplate(uriTemplate)
      })),
      advertisedResources: resources.map(([uri, resource]) => ({ uri, ...listing(resource) })),
      advertisedTemplates: templates.map(([uriTemplate, template]) => ({ uriTemplate, ...listing(template) }))
    }
  })

/**
 * What a URI reaches among the app's resources.
 *
 * @example
 * ```ts
 * import type { McpAppResources } from "effect-surface/mcp"
 *
 * declare const item: McpAppResources.Template
 * const found: McpAppResources.Found = { _tag: "Template", uri: "items://1", uriTemplate: "items://{id}", template: item, params: { id: "1" } }
 * ```
 *
 * @since 0.1.0
 */
export type Found =
  | { readonly _tag: "Resource"; readonly uri: string; readonly resource: Resource }
  | {
    readonly _tag: "Template"
    readonly uri: string
    /** The template that matched: what a scope keyed by template is looked up by. */
    readonly uriTemplate: string
    readonly template: Template
    readonly params: Params
  }

const decodeParam = (value: string | ReadonlyArray<string>): string => {
  const text = typeof value === "string" ? value : value.join(",")
  return Result.getOrElse(Result.try(() => decodeURIComponent(text)), () => text)
}

const decodeParams = (matched: { readonly [key: string]: string | ReadonlyArray<string> }): Params =>
  Object.fromEntries(Object.entries(matched).map(([key, value]) => [key, decodeParam(value)]))

// A URI longer than the matcher takes is matched by nothing (the matcher throws on one).
const matchOf = (matcher: Matcher, uri: string) => Result.getOrElse(Result.try(() => matcher.match(uri)), () => null)

/**
 * Find a URI: a fixed resource first, then the first template that matches it. This is the one
 * matcher of app resources: what it finds is what a read serves, what a subscription follows, and
 * (with `canonicalOf` and `identitiesOf`) what scopes it needs.
 *
 * @example
 * ```ts
 * import { McpAppResources } from "effect-surface/mcp"
 *
 * declare const compiled: McpAppResources.Compiled
 * McpAppResources.find(compiled, "items://1") // { _tag: "Template", params: { id: "1" }, ... }
 * ```
 *
 * @since 0.1.0
 */
export const find = (compiled: Compiled, uri: string): Found | undefined => {
  const fixed = compiled.table.resources
  if (fixed !== undefined && Object.hasOwn(fixed, uri)) {
    const resource = fixed[uri]
    if (resource !== undefined) return { _tag: "Resource", uri, resource }
  }
  for (const { matcher, template, uriTemplate } of compiled.templates) {
    const matched = matchOf(matcher, uri)
    if (matched !== null) return { _tag: "Template", uri, uriTemplate, template, params: decodeParams(matched) }
  }
  return undefined
}

// What a template serves a URI as: the template and the decoded values it matched. Two URIs with
// one identity (`files://docs/secret`, `files://docs/secre%74`) are read alike by its handler.
const identityOf = (uriTemplate: string, params: Params): string =>
  JSON.stringify([uriTemplate, Object.keys(params).sort().map((key) => [key, params[key]])])

/**
 * What a URI is read as under every template that matches it (the template and its decoded
 * values): two URIs sharing one are read alike by that template's handler, so a scope keyed by one
 * URI protects every other spelling of it.
 *
 * @example
 * ```ts
 * import { McpAppResources } from "effect-surface/mcp"
 *
 * declare const compiled: McpAppResources.Compiled
 * const [plain] = McpAppResources.identitiesOf(compiled, "files://docs/secret")
 * plain === McpAppResources.identitiesOf(compiled, "files://docs/secre%74")[0] // true
 * ```
 *
 * @since 0.1.0
 */
export const identitiesOf = (compiled: Compiled, uri: string): ReadonlyArray<string> =>
  compiled.templates.flatMap(({ matcher, uriTemplate }) => {
    const matched = matchOf(matcher, uri)
    return matched === null ? [] : [identityOf(uriTemplate, decodeParams(matched))]
  })

/**
 * The URI a template writes the values it matched back to: the one spelling of what it serves
 * (`files://docs/secret` for `files://docs/secre%74`), where a fixed resource or a scope of the
 * same thing is keyed. A fixed resource is its own.
 *
 * @example
 * ```ts
 * import { McpAppResources } from "effect-surface/mcp"
 *
 * declare const compiled: McpAppResources.Compiled
 * declare const found: McpAppResources.Found
 * McpAppResources.canonicalOf(compiled, found) // "files://docs/secret"
 * ```
 *
 * @since 0.1.0
 */
export const canonicalOf = (compiled: Compiled, found: Found): string => {
  if (found._tag === "Resource") return found.uri
  const matcher = compiled.templates.find((t) => t.uriTemplate === found.uriTemplate)?.matcher
  return matcher === undefined ? found.uri
    : Result.getOrElse(Result.try(() => matcher.expand(found.params)), () => found.uri)
}

// `Array.isArray` does not narrow a `ReadonlyArray` out of a union, so the single arm is named by hand.
const asArray = (contents: Contents | ReadonlyArray<Contents>): ReadonlyArray<Contents> =>
  Array.isArray(contents) ? contents : [contents as Contents]

/**
 * Read what a URI found, each contents stamped with the URI and a mime type.
 *
 * @example
 * ```ts
 * import { McpAppResources } from "effect-surface/mcp"
 *
 * declare const found: McpAppResources.Found
 * const contents = McpAppResources.read(found) // [{ uri: "items://1", mimeType: "application/json", text: "..." }]
 * ```
 *
 * @since 0.1.0
 */
export const read = (found: Found): Effect.Effect<Array<ToolResult.ResourceContents>, RpcError.ProtocolError> => {
  const declared = found._tag === "Resource" ? found.resource : found.template
  const reading = found._tag === "Resource" ? found.resource.read : found.template.read(found.params, found.uri)
  return reading.pipe(
    Effect.map((contents) =>
      asArray(contents).map((one): ToolResult.ResourceContents => {
        const mimeType = one.mimeType ?? declared.mimeType
        const typed = {
          ...(mimeType === undefined ? {} : { mimeType }),
          ...(declared.meta && { _meta: declared.meta })
        }
        return "blob" in one ? { uri: found.uri, ...typed, blob: one.blob }
          : { uri: found.uri, ...typed, text: one.text }
      })
    ),
    Effect.mapError((error) =>
      isProtocolError(error)
        ? error
        : new RpcError.ProtocolError({
          code: RpcError.internalError,
          message: `resource ${found.uri} could not be read: ${messageOf(error)}`,
          data: { uri: found.uri }
        })
    )
  )
}

/**
 * The changes of what a URI found, when it declared any.
 *
 * @example
 * ```ts
 * import { McpAppResources } from "effect-surface/mcp"
 *
 * declare const found: McpAppResources.Found
 * const pulses = McpAppResources.changes(found) // Stream of unknown, or undefined
 * ```
 *
 * @since 0.1.0
 */
export const changes = (found: Found): Stream.Stream<unknown, unknown> | undefined =>
  found._tag === "Resource" ? found.resource.changes : found.template.changes?.(found.params, found.uri)

/**
 * The completer of one variable of a template, if it declared one.
 *
 * @example
 * ```ts
 * import { McpAppResources } from "effect-surface/mcp"
 *
 * declare const compiled: McpAppResources.Compiled
 * McpAppResources.completerOf(compiled, "items://{id}", "id")
 * ```
 *
 * @since 0.1.0
 */
export const completerOf = (
  compiled: Compiled,
  uriTemplate: string,
  variable: string
): Completion.Completer | undefined => {
  const template = compiled.templates.find((t) => t.uriTemplate === uriTemplate)?.template
  const table = template?.complete
  return table !== undefined && Object.hasOwn(table, variable) ? table[variable] : undefined
}

/**
 * Whether the table declares this URI template.
 *
 * @example
 * ```ts
 * import { McpAppResources } from "effect-surface/mcp"
 *
 * declare const compiled: McpAppResources.Compiled
 * McpAppResources.hasTemplate(compiled, "items://{id}") // true
 * ```
 *
 * @since 0.1.0
 */
export const hasTemplate = (compiled: Compiled, uriTemplate: string): boolean =>
  compiled.templates.some((t) => t.uriTemplate === uriTemplate)
