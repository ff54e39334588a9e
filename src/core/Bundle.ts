/**
 * The shapes of a rooted bundle, before and after resolution.
 *
 * A face serves a *bundle*: an unprefixed core surface beside keyed sibling surfaces, plus
 * hand-authored tools at the root. Resolution turns it into flat tables with indices and the list
 * answers a host reads, computed once per generation. These types are what the Resolver produces,
 * the Roster holds, and every face reads — kept apart from the Resolver's code so a face depends on
 * the shape, not on how it is computed.
 *
 * @since 0.1.0
 */
import type * as Json from "./Json.ts"
import type * as SchemaBridge from "./SchemaBridge.ts"
import type * as Client from "../surface/Client.ts"
import type * as Expose from "../surface/Expose.ts"
import type * as Surface from "../surface/Surface.ts"
import type * as Tools from "../tools.ts"
// Types only, from a module that loads no SDK: the request services are the one thing a face
// provides to every bespoke handler, so the bundle's tool type names them.
import type * as Request from "../mcp/Request.ts"

/**
 * The clients of a bundle, as bespoke root tools receive them: the core's, and each sibling's by key.
 *
 * @since 0.1.0
 */
export interface Clients {
  readonly core?: Client.AnyClient
  readonly clients: { readonly [sibling: string]: Client.AnyClient }
}

/**
 * A hand-authored tool as a bundle holds it: any input and answer, over client `C`. Its handler may
 * require the request services a face provides on each call (`McpRequest.Services`: progress, and
 * asking the calling client) and nothing else — a face cannot know what else a table's handlers
 * need, so an app provides the rest when it builds the table (close over them, or `Effect.provide`
 * inside the handler). A face with no request to serve provides `McpRequest.none`.
 *
 * @since 0.1.0
 */
// `any` for input and answer, as in `Tools.AnyTool`: those positions are contravariant.
export type BespokeTool<C> = Tools.Tool<any, any, unknown, Request.Services, C>

/**
 * One surface of a bundle and the map saying what of it crosses.
 *
 * @since 0.1.0
 */
export interface Member {
  readonly surface: Surface.Spec
  readonly expose: Expose.AnyExposeMap
}

/**
 * A sibling: a member with its own bespoke tools, which receive the sibling's client.
 *
 * @since 0.1.0
 */
export interface Sibling extends Member {
  readonly tools?: { readonly [name: string]: BespokeTool<Client.AnyClient> }
}

/**
 * A rooted bundle: an optional core, keyed siblings, and bare-named root tools that receive every
 * client. At least one of `core` and `surfaces` must be given.
 *
 * @since 0.1.0
 */
export interface Bundle {
  readonly core?: Member
  readonly surfaces?: { readonly [sibling: string]: Sibling }
  readonly tools?: { readonly [name: string]: BespokeTool<Clients> }
}

/**
 * Where a tool name came from — recorded at resolution, never parsed back out of the name.
 *
 * @since 0.1.0
 */
export type Origin =
  | { readonly _tag: "Procedure"; readonly sibling: string | undefined; readonly ns: string; readonly verb: string }
  | { readonly _tag: "SiblingTool"; readonly sibling: string; readonly name: string }
  | { readonly _tag: "RootTool"; readonly name: string }

/**
 * A resource a bundle serves: one exposed cell, collection, stream or event.
 *
 * @since 0.1.0
 */
export interface Resource {
  readonly uri: string
  readonly name: string
  readonly kind: "cell" | "collection" | "stream" | "event"
  readonly sibling: string | undefined
  readonly key: string
  /** The value schema of a cell, the entry schema of a stream or event, the item schema of a collection. */
  readonly schema: Surface.Shape
  /** The whole declaration, for a collection: its key schema is needed to encode a snapshot. */
  readonly collection?: Surface.Collection
}

/**
 * The item template of an exposed collection: `surface://collections[/<sibling>]/<key>/{id}`.
 *
 * @since 0.1.0
 */
export interface Template {
  readonly uriTemplate: string
  readonly name: string
  readonly sibling: string | undefined
  readonly key: string
  readonly collection: Surface.Collection
}

/**
 * A tool a bundle serves, generated from a procedure or hand-authored, with its input compiled once.
 *
 * @since 0.1.0
 */
export interface Tool {
  readonly name: string
  readonly origin: Origin
  /** The sibling that owns the name; `undefined` for the core and the bundle root. */
  readonly sibling: string | undefined
  readonly title: string | undefined
  readonly description: string
  readonly mutates: boolean
  readonly input: SchemaBridge.Compiled<unknown>
  readonly target:
    | { readonly _tag: "Procedure"; readonly ns: string; readonly verb: string; readonly procedure: Surface.Procedure }
    | { readonly _tag: "SiblingTool"; readonly tool: BespokeTool<Client.AnyClient> }
    | { readonly _tag: "RootTool"; readonly tool: BespokeTool<Clients> }
}

/**
 * A resolved bundle: flat tables, their indices, and the three list answers, computed once per
 * generation and replaced whole by a roster move, so no request reads a half-updated roster.
 *
 * @since 0.1.0
 */
export interface Resolved {
  readonly bundle: Bundle
  readonly siblings: ReadonlyArray<string>
  readonly resources: ReadonlyArray<Resource>
  readonly templates: ReadonlyArray<Template>
  readonly tools: ReadonlyArray<Tool>
  readonly byUri: ReadonlyMap<string, Resource>
  /** Keyed by `"<sibling>/<key>"` for a sibling's collection and `"<key>"` for the core's. */
  readonly templateByCollection: ReadonlyMap<string, Template>
  readonly toolByName: ReadonlyMap<string, Tool>
  /** The `tools/list` answer: name, title, description, inputSchema, annotations. */
  readonly advertisedTools: ReadonlyArray<Json.JsonObject>
  /** The `resources/list` answer. */
  readonly advertisedResources: ReadonlyArray<Json.JsonObject>
  /** The `resources/templates/list` answer. */
  readonly advertisedResourceTemplates: ReadonlyArray<Json.JsonObject>
}
