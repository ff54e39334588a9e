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
import type * as Effect from "effect/Effect"
import type * as Schema from "effect/Schema"
import type * as Json from "./Json.ts"
import type * as SchemaBridge from "./SchemaBridge.ts"
import type * as Client from "../surface/Client.ts"
import type * as Expose from "../surface/Expose.ts"
import type * as Surface from "../surface/Surface.ts"
import type * as Caller from "./Caller.ts"
import type * as Tools from "./Tool.ts"

/**
 * A client a face can serve: its procedures may need the caller's services (`Caller.Services`:
 * who is calling, progress, asking the caller), which every face provides per call, and nothing
 * else. A client whose procedures need anything more is refused where the bundle is built; provide
 * it when making the implementation.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import type { Bundle } from "effect-surface"
 * import { Client, Identity, Implementation, Surface } from "effect-surface"
 *
 * const Cards = Surface.make({ procedures: { card: { mine: { input: Schema.String, output: Schema.Boolean } } } })
 * const cards = Implementation.make(Cards, {
 *   procedures: { card: { mine: (author) => Effect.map(Identity.current, (me) => me.subject === author) } }
 * })
 * const served: Bundle.Served = Client.erase(Client.directDispatch(cards)) // needs Identity: served
 * ```
 *
 * @since 0.1.0
 */
export type Served = Client.AnyClient<Caller.Services>

/**
 * The clients of a bundle, as bespoke root tools receive them: the core's, and each sibling's by key.
 *
 * @example
 * ```ts
 * import type { Bundle, Client } from "effect-surface"
 *
 * declare const board: Client.AnyClient
 * declare const stopwatch: Client.AnyClient
 * const clients: Bundle.Clients = { core: board, clients: { stopwatch } }
 * ```
 *
 * @since 0.1.0
 */
export interface Clients {
  readonly core?: Served
  readonly clients: { readonly [sibling: string]: Served }
}

/**
 * A hand-authored tool as a bundle holds it: any input and answer, over client `C`. Its handler may
 * require the services a face provides on each call (`Caller.Services`: progress, and asking its
 * caller) and nothing else — a face cannot know what else a table's handlers need, so an app
 * provides the rest when it builds the table (close over them, or `Effect.provide` inside the
 * handler). Anything with no request to serve provides `Caller.none`.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import type { Bundle } from "effect-surface"
 * import * as Tools from "effect-surface/tools"
 *
 * const ping: Bundle.BespokeTool<Bundle.Clients> = Tools.make({
 *   description: "Answer pong.",
 *   input: Schema.Struct({ times: Schema.Int }),
 *   mutates: false,
 *   handler: ({ times }) => Effect.succeed("pong".repeat(times))
 * })
 * ```
 *
 * @since 0.1.0
 */
export type BespokeTool<C> = // `any` for input and answer, as in `Tools.AnyTool`: those positions are contravariant.
  Tools.Tool<any, any, unknown, Caller.Services, C>

/**
 * One surface of a bundle and the map saying what of it crosses.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import type { Bundle } from "effect-surface"
 * import { Expose, Surface } from "effect-surface"
 *
 * const Notes = Surface.make({ cells: { latest: Surface.cell(Schema.String, "") } })
 * const core: Bundle.Member = { surface: Notes, expose: Expose.make(Notes, { cells: { latest: true } }) }
 * ```
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
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Bundle, Surface } from "effect-surface"
 * import * as Tools from "effect-surface/tools"
 *
 * declare const Jobs: Surface.Spec
 * const jobs: Bundle.Sibling = {
 *   surface: Jobs,
 *   expose: {},
 *   // named `jobs_count` on the face; its handler is handed the sibling's own client
 *   tools: { count: Tools.make({ description: "Count the procedures.", mutates: false, handler: (_: void, client) => Effect.succeed(Object.keys(client.procedures).length) }) }
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Sibling<C = Served> extends Member {
  readonly tools?: { readonly [name: string]: BespokeTool<C> }
}

/**
 * A bundle's clients typed by its surfaces: the core's `Client` and each sibling's by key. A face
 * whose client factory yields these hands every bespoke tool its typed client — no run-time
 * narrowing — since each tool receives exactly what the factory dialled for its key. `R` is what
 * their procedures need of the caller (`Identity`, say): within `Caller.Services`, none by default.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import type { Bundle } from "effect-surface"
 * import { Surface } from "effect-surface"
 *
 * const Board = Surface.make({ cells: { focus: Surface.cell(Schema.String, "") } })
 * const Stopwatch = Surface.make({ cells: { laps: Surface.cell(Schema.Int, 0) } })
 * type Clients = Bundle.Typed<typeof Board, { readonly stopwatch: typeof Stopwatch }>
 * declare const clients: Clients
 * const laps = clients.clients.stopwatch.cells.laps.read // Effect<number, ...>
 * ```
 *
 * @since 0.1.0
 */
export interface Typed<
  Core extends Surface.Spec,
  Siblings extends { readonly [sibling: string]: Surface.Spec } = {},
  R extends Caller.Services = never
> {
  readonly core: Client.Client<Core, R>
  readonly clients: { readonly [K in keyof Siblings]: Client.Client<Siblings[K], R> }
}

/**
 * A rooted bundle: an optional core, keyed siblings, and bare-named root tools that receive every
 * client. At least one of `core` and `surfaces` must be given.
 *
 * @example
 * ```ts
 * import type { Bundle } from "effect-surface"
 *
 * declare const core: Bundle.Member
 * declare const jobs: Bundle.Sibling
 * const bundle: Bundle.Bundle = { core, surfaces: { jobs } } // jobs' names are prefixed `jobs_`
 * ```
 *
 * @since 0.1.0
 */
export interface Bundle {
  readonly core?: Member
  readonly surfaces?: Siblings
  readonly tools?: RootTools
}

/**
 * A bundle's siblings, by key: what a roster move replaces whole.
 *
 * @example
 * ```ts
 * import type { Bundle } from "effect-surface"
 *
 * declare const jobs: Bundle.Sibling
 * const surfaces: Bundle.Siblings = { jobs }
 * ```
 *
 * @since 0.1.0
 */
export type Siblings = { readonly [sibling: string]: Sibling }

/**
 * A bundle's bare-named root tools, by name, each handed every client.
 *
 * @example
 * ```ts
 * import type { Bundle } from "effect-surface"
 *
 * declare const ping: Bundle.BespokeTool<Bundle.Clients>
 * const tools: Bundle.RootTools = { ping }
 * ```
 *
 * @since 0.1.0
 */
export type RootTools = { readonly [name: string]: BespokeTool<Clients> }

/**
 * Where a tool name came from — recorded at resolution, never parsed back out of the name.
 *
 * @example
 * ```ts
 * import type { Bundle } from "effect-surface"
 * import { ResolveError } from "effect-surface"
 *
 * const origin: Bundle.Origin = { _tag: "Procedure", sibling: "jobs", ns: "job", verb: "run" } // tool "jobs_job_run"
 * ResolveError.describeOrigin(origin) // 'sibling "jobs"\'s procedure "job.run"'
 * ```
 *
 * @since 0.1.0
 */
export type Origin =
  | { readonly _tag: "Procedure"; readonly sibling: string | undefined; readonly ns: string; readonly verb: string }
  | { readonly _tag: "SiblingTool"; readonly sibling: string; readonly name: string }
  | { readonly _tag: "RootTool"; readonly name: string }

/**
 * One direction of a member's JSON codec, compiled once at resolution: a value to its wire form
 * (what `resources/read` and a tool's answer carry: a `Date` as its ISO string, …), or a wire form
 * back to a value.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import type { Bundle } from "effect-surface"
 *
 * const encode: Bundle.Codec = Schema.encodeUnknownEffect(Schema.toCodecJson(Schema.Date))
 * const wire = Effect.runSync(encode(new Date(0))) // "1970-01-01T00:00:00.000Z"
 * ```
 *
 * @since 0.1.0
 */
export type Codec = (value: unknown) => Effect.Effect<unknown, Schema.SchemaError>

/**
 * A resource a bundle serves: one exposed cell, collection, stream or event, with the codecs its
 * reads and subscriptions need compiled once, when the bundle is resolved.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Resolver, Surface } from "effect-surface"
 *
 * const Clock = Surface.make({ cells: { since: Surface.cell(Schema.Date, new Date(0)) } })
 * const program = Effect.gen(function*() {
 *   const resolved = yield* Resolver.resolveBundle({ core: { surface: Clock, expose: { cells: { since: true } } } })
 *   const since = resolved.byUri.get("surface://cells/since")
 *   return since === undefined ? undefined : yield* since.encode(new Date(0)) // "1970-01-01T00:00:00.000Z"
 * })
 * ```
 *
 * @since 0.1.0
 */
export interface Resource {
  readonly uri: string
  readonly name: string
  readonly kind: "cell" | "collection" | "stream" | "event"
  readonly sibling: string | undefined
  readonly key: string
  /** The scope a caller's token must hold to see and use it (the expose map's `scope`); none: any caller. */
  readonly scope?: string | undefined
  /** The value schema of a cell, the entry schema of a stream or event, the item schema of a collection. */
  readonly schema: Surface.Shape
  /** The whole declaration, for a collection: its key schema is needed to encode a snapshot. */
  readonly collection?: Surface.Collection
  /** `schema`'s JSON encoder: a cell's value, one entry of a stream or event, one item of a collection. */
  readonly encode: Codec
  /** For a collection, its key schema's JSON encoder (a key's wire form is a string). */
  readonly encodeKey?: Codec
}

/**
 * The item template of an exposed collection: `surface://collections[/<sibling>]/<key>/{id}`, with
 * the codecs an item read needs compiled once: the id (the URI's last segment, percent-decoded) to a
 * key, a key back to its wire form, and an item to its wire form.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Resolver, Surface } from "effect-surface"
 *
 * const Board = Surface.make({ collections: { tasks: Surface.collection(Schema.String, Schema.Struct({ title: Schema.String })) } })
 * const program = Effect.gen(function*() {
 *   const resolved = yield* Resolver.resolveBundle({ core: { surface: Board, expose: { collections: { tasks: true } } } })
 *   const tasks = resolved.templateByCollection.get("tasks") // surface://collections/tasks/{id}
 *   return tasks === undefined ? undefined : yield* tasks.decodeKey("t1") // the key "t1"
 * })
 * ```
 *
 * @since 0.1.0
 */
export interface Template {
  readonly uriTemplate: string
  readonly name: string
  readonly sibling: string | undefined
  readonly key: string
  /** The scope a caller's token must hold to see and use it (the expose map's `scope`); none: any caller. */
  readonly scope?: string | undefined
  readonly collection: Surface.Collection
  /** The item schema's JSON encoder. */
  readonly encode: Codec
  /** The key schema's JSON encoder. */
  readonly encodeKey: Codec
  /** The key schema's JSON decoder, for an id read out of a URI. */
  readonly decodeKey: Codec
}

/**
 * A tool a bundle serves, generated from a procedure or hand-authored, with its input compiled once.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Bundle } from "effect-surface"
 *
 * declare const tool: Bundle.Tool
 * const decoded = tool.input.decode({ title: "write docs" }) // the tool's input, or an InputError naming the field
 * const answer = tool.target._tag === "Procedure" ? tool.target.encode(new Date(0)) : Effect.succeed(undefined)
 * ```
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
  /** The scope a caller's token must hold to see and call it; none: any caller. */
  readonly scope?: string | undefined
  /**
   * Whether the expose map asks that a face rendering views show it as one (the entry's `view`, else
   * the map's `views`); `undefined` where it says nothing, as for a bespoke tool.
   */
  readonly view?: boolean | undefined
  /** A bespoke tool's `_meta`, listed verbatim; `undefined` lists no `_meta` key. */
  readonly meta: Json.JsonObject | undefined
  /** A bespoke tool's own `annotations`, listed verbatim; `undefined` lists those `mutates` implies. */
  readonly annotations: Json.JsonObject | undefined
  readonly input: SchemaBridge.Compiled<unknown>
  readonly target:
    | {
      readonly _tag: "Procedure"
      readonly ns: string
      readonly verb: string
      readonly procedure: Surface.Procedure
      /** The declared output's JSON encoder (the identity when none is declared): an answer travels in its wire form. */
      readonly encode: Codec
    }
    | { readonly _tag: "SiblingTool"; readonly tool: BespokeTool<Served> }
    | { readonly _tag: "RootTool"; readonly tool: BespokeTool<Clients> }
}

/**
 * A resolved bundle: flat tables, their indices, and the three list answers, computed once per
 * generation and replaced whole by a roster move, so no request reads a half-updated roster.
 *
 * @example
 * ```ts
 * import type { Bundle } from "effect-surface"
 *
 * declare const resolved: Bundle.Resolved
 * const listed = resolved.advertisedTools.map((tool) => tool["name"])
 * const focus = resolved.byUri.get("surface://cells/focus")
 * ```
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
  /**
   * The `tools/list` answer: name, title, description, inputSchema, an outputSchema on a tool made from
   * a procedure (its declared output and errors), annotations, and `_meta` where a tool has one.
   */
  readonly advertisedTools: ReadonlyArray<Json.JsonObject>
  /** The `resources/list` answer. */
  readonly advertisedResources: ReadonlyArray<Json.JsonObject>
  /** The `resources/templates/list` answer. */
  readonly advertisedResourceTemplates: ReadonlyArray<Json.JsonObject>
}
