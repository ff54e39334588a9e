/**
 * The MCP face of a bundle, minus the protocol engine: what every session of it shares.
 *
 * A served bundle has one engine (its roster, its connection pool) however many hosts are
 * connected; only a session's subscriptions, its log level and its protocol state are its own. This
 * module is the shared part the MCP protocol adds on top of the core's engine — prompts,
 * completion, the app's own resources beside the `surface://` ones, a read deadline, and the
 * instructions and server info an `initialize` answers with — so a stdio session, an in-memory
 * test session and every Streamable HTTP session run the same request path. The face requires the
 * core's services from its context; `make` given a bundle and a client factory provides the
 * defaults itself.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import type * as Scope from "effect/Scope"
import type * as Bundle from "../../core/Bundle.ts"
import type * as Caller from "../../core/Caller.ts"
import * as ConnectionPool from "../../core/ConnectionPool.ts"
import * as Engine from "../../core/Engine.ts"
import type * as Json from "../../core/Json.ts"
import type * as ResolveError from "../../core/ResolveError.ts"
import * as Roster from "../../core/Roster.ts"
import * as ToolResult from "../../core/ToolResult.ts"
import * as Watch from "../../core/Watch.ts"
import type * as AppResources from "./AppResources.ts"
import * as Completion from "./Completion.ts"
import * as Broadcast from "./Broadcast.ts"
import type * as Logging from "./Logging.ts"
import * as Prompts from "./Prompts.ts"
import * as RpcError from "./RpcError.ts"
import * as Scopes from "./Scopes.ts"
import * as Serving from "./internal/serving.ts"
import * as ViewResources from "./internal/views.ts"
import type * as Views from "../views/Views.ts"

/**
 * The most resources one holder may follow at once unless told otherwise: a 2025 session's
 * subscriptions, and the URIs one 2026 listen request may name. One number, so neither revision
 * is the cheaper door.
 *
 * @example
 * ```ts
 * import { McpFace } from "effect-surface/mcp"
 * const cap = McpFace.defaultMaxSubscriptions // 256
 * ```
 *
 * @since 0.1.0
 */
export const defaultMaxSubscriptions = 256

/**
 * What the MCP face adds to the core's engine: how it introduces itself, what it offers beside the
 * bundle, and how long a read may take.
 *
 * @example
 * ```ts
 * import type { McpFace } from "effect-surface/mcp"
 * const settings: McpFace.Settings = { serverInfo: { name: "board", version: "1.0.0" }, readDeadline: "5 seconds" }
 * ```
 *
 * @since 0.1.0
 */
export interface Settings {
  readonly serverInfo?: { readonly name: string; readonly version: string; readonly title?: string }
  /** A string, or an Effect read at each `initialize` (an empty answer sends no instructions). */
  readonly instructions?: string | Effect.Effect<string>
  /** How long any `resources/read` waits for its answer; past it the read fails, naming the URI. Default 10 seconds. */
  readonly readDeadline?: Duration.Input
  readonly coalesce?: Duration.Input // The least time between two `resources/updated` for one URI; 50ms.
  /** Prompts offered beside the tools; replaced at run time with `setPrompts`. */
  readonly prompts?: Prompts.Table
  /** Resources served by handler beside the `surface://` ones; replaced with `setResources`. */
  readonly resources?: AppResources.Table
  /** The level a session's handlers log to its host at until the host sends `logging/setLevel`. Default `info`. */
  readonly logLevel?: Logging.Level
  /**
   * The scopes of what the expose map does not name (bespoke tools, prompts, app resources): behind
   * a resource server, each is shown only to callers whose token holds its scope.
   */
  readonly scopes?: Scopes.Options
  /**
   * Views a host rendering MCP Apps shows for tools, generated from each input schema or authored:
   * beside those the expose maps ask for (`views`, an entry's `view`), and over them by tool name.
   */
  readonly views?: Views.Options
}

/**
 * How a bundle is served over MCP with the core's default services: the face's settings, the
 * bundle, and how to dial its clients (see `Engine.BundleOptions`).
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Client, Expose, Implementation, Surface } from "effect-surface"
 * import type { McpFace } from "effect-surface/mcp"
 *
 * const Notes = Surface.make({ cells: { latest: Surface.cell(Schema.String, "") } })
 * const options = Effect.map(Implementation.cells(Notes), (cells): McpFace.Options => ({
 *   core: { surface: Notes, expose: Expose.make(Notes, { cells: { latest: true } }) },
 *   client: Effect.succeed({ core: Client.erase(Client.directDispatch(Implementation.make(Notes, { cells, procedures: {} }))), clients: {} }),
 *   readDeadline: "5 seconds"
 * }))
 * ```
 *
 * @since 0.1.0
 */
export interface Options<E = never, R = never, C extends Bundle.Clients = Bundle.Clients>
  extends Settings, Engine.BundleOptions<E, R, C>
{
  readonly coalesce?: Duration.Input
}

/**
 * The core services a face requires from its context (`Engine.layerBundle` provides them).
 * @example
 * ```ts
 * import type { Effect } from "effect"
 * import type { McpFace } from "effect-surface/mcp"
 * declare const face: Effect.Effect<McpFace.Face, never, McpFace.Requires>
 * ```
 *
 * @since 0.1.0
 */
export type Requires = Engine.Engine | Roster.Roster | ConnectionPool.ConnectionPool

/**
 * A `completion/complete` request: what to complete (a prompt's argument, or a resource template's
 * variable), the text typed so far, and the arguments already filled in.
 *
 * @example
 * ```ts
 * import type { McpFace } from "effect-surface/mcp"
 *
 * declare const face: McpFace.Face
 * const request: McpFace.CompleteRequest = {
 *   ref: { type: "ref/resource", uri: "surface://collections/tasks/{id}" },
 *   argument: { name: "id", value: "t1" }
 * }
 * const answer = face.complete(request) // { values: ["t1", "t10", ...], total, hasMore }
 * ```
 *
 * @since 0.1.0
 */
export type CompleteRequest = Serving.CompleteRequest

/**
 * A served bundle, shared by its sessions: every request a session answers is one of these Effects,
 * a refusal a tagged value (`McpRpcError.Refusal`) the session turns into its JSON-RPC error.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpFace } from "effect-surface/mcp"
 *
 * declare const options: McpFace.Options
 * const program = Effect.gen(function*() {
 *   const face: McpFace.Face = yield* McpFace.make(options)
 *   const tools = (yield* face.roster.current).advertisedTools
 *   const contents = yield* face.readResource("surface://cells/focus")
 *   return { tools, contents }
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
export interface Face {
  readonly roster: Roster.Roster
  readonly engine: Engine.Engine["Service"]
  readonly serverInfo: { readonly name: string; readonly version: string; readonly title?: string }
  /**
   * The server's instructions: a fixed text (or none), or an Effect read at each `initialize` so a
   * host connecting after a roster move is told the roster it gets. Empty text sends no key.
   */
  readonly instructions:
    | { readonly _tag: "Static"; readonly text: string | undefined }
    | { readonly _tag: "Dynamic"; readonly read: Effect.Effect<string | undefined> }
  /** Replace the sibling map whole; a refused roster leaves the face exactly as it was. */
  readonly reroster: (surfaces: Bundle.Siblings) => Effect.Effect<void, ResolveError.ResolveError>
  /** Replace the root tools whole, through the same composition (a clash is refused, naming both). */
  readonly setTools: (tools: Bundle.RootTools) => Effect.Effect<void, ResolveError.ResolveError>
  /** Replace the prompts whole; sessions send `notifications/prompts/list_changed`. */
  readonly setPrompts: (prompts: Prompts.Table) => Effect.Effect<void>
  /** Replace the app's resources whole; refused when one claims `surface:`. */
  readonly setResources: (resources: AppResources.Table) => Effect.Effect<void, ResolveError.ResolveError>
  /** The prompts now served, and each later table (the first frame is the current one). */
  readonly prompts: { readonly current: Effect.Effect<Prompts.Table>; readonly changes: Stream.Stream<Prompts.Table> }
  /** The app's resources now served, and each later table. */
  readonly appResources: {
    readonly current: Effect.Effect<AppResources.Compiled>
    readonly changes: Stream.Stream<AppResources.Compiled>
  }
  /** The level a session logs at until its host sets one. */
  readonly logLevel: Logging.Level
  /** A tool call; a retired tool answers as an `isError` result naming why. */
  readonly callTool: (
    name: string,
    args: unknown
  ) => Effect.Effect<ToolResult.ToolResult, RpcError.Refusal, Caller.Services>
  readonly listResources: Effect.Effect<ReadonlyArray<Json.JsonObject>>
  readonly listResourceTemplates: Effect.Effect<ReadonlyArray<Json.JsonObject>>
  readonly listPrompts: Effect.Effect<ReadonlyArray<Json.JsonObject>>
  readonly getPrompt: (
    name: string,
    args: unknown
  ) => Effect.Effect<
    { readonly description: string; readonly messages: Array<Prompts.Message> },
    RpcError.Refusal,
    Caller.Services
  >
  readonly complete: (request: CompleteRequest) => Effect.Effect<Completion.Completion, RpcError.Refusal>
  /** What one caller is shown: every list narrowed to its scopes (cached per scope set). */
  readonly view: Scopes.Scopes["view"]
  /** The scope a request needs (a call, a read, a prompt, a completion), if any. */
  readonly needs: Scopes.Scopes["needs"]
  /** Whether anything serves `uri`, of either kind: a refusal naming it when nothing does. */
  readonly checkUri: (uri: string) => Effect.Effect<void, RpcError.Refusal>
  readonly readResource: (uri: string) => Effect.Effect<ReadonlyArray<ToolResult.ResourceContents>, RpcError.Refusal>
  /**
   * Follow `uri` for one subscriber: `onChange` (coalesced) at each change until interrupted,
   * `onOpen` once it is live. A `surface://` URI is followed by the engine (across roster moves and
   * dropped links); an app resource across app-resource moves. It ends — with a last `onChange`, so
   * the host re-reads and learns why — when the URI is no longer served or its source ends. Fails
   * only when nothing serves `uri` to begin with.
   */
  readonly watch: (
    uri: string,
    onChange: Effect.Effect<void>,
    onOpen?: Effect.Effect<void>
  ) => Effect.Effect<void, RpcError.Refusal>
  /**
   * How many URIs are being followed now: one watch per URI, however many sessions subscribed to
   * it (and any `watch` run directly).
   */
  readonly watching: Effect.Effect<number>
  /**
   * What every session hears unprompted, followed once for them all: the list moves, announced to
   * each session registered as leading, and one follow per subscribed URI, fanned out to each
   * session holding it. A session registers with it; it runs no listener fiber of its own.
   */
  readonly broadcaster: Broadcast.Broadcaster
}

const defaultServerInfo = { name: "effect-surface", version: "0.1.0" }

const instructionsOf = (instructions: Settings["instructions"]): Face["instructions"] => {
  const nonEmpty = (text: string) => text === "" ? undefined : text
  return instructions === undefined || typeof instructions === "string"
    ? { _tag: "Static", text: nonEmpty(instructions ?? "") }
    : { _tag: "Dynamic", read: Effect.map(instructions, nonEmpty) }
}

const build = (settings: Settings): Effect.Effect<Face, ResolveError.ResolveError, Requires | Scope.Scope> =>
  Effect.gen(function*() {
    const rosterService = yield* Roster.Roster
    const followed = yield* ViewResources.follow(settings.resources ?? {}, rosterService, settings.views)
    const env: Serving.Env = {
      engine: yield* Engine.Engine,
      roster: rosterService,
      pool: yield* ConnectionPool.ConnectionPool,
      prompts: yield* SubscriptionRef.make<Prompts.Table>(settings.prompts ?? {}),
      apps: followed.apps,
      readDeadline: Duration.fromInputUnsafe(settings.readDeadline ?? Duration.seconds(10)),
      coalesce: settings.coalesce ?? Watch.defaultCoalesce,
      watchers: yield* Ref.make(0)
    }
    const { apps, engine, prompts, roster } = env
    const lists = {
      prompts: { current: SubscriptionRef.get(prompts), changes: SubscriptionRef.changes(prompts) },
      appResources: { current: SubscriptionRef.get(apps), changes: SubscriptionRef.changes(apps) }
    }
    const scopes = Scopes.make(settings.scopes ?? {}, {
      resolved: roster.current,
      prompts: lists.prompts.current,
      apps: lists.appResources.current
    })
    const broadcaster = yield* Broadcast.make({
      roster,
      apps: lists.appResources,
      prompts: lists.prompts,
      watch: Serving.watch(env)
    })
    return {
      roster,
      engine,
      serverInfo: settings.serverInfo ?? defaultServerInfo,
      instructions: instructionsOf(settings.instructions),
      reroster: (surfaces) => Effect.asVoid(engine.reroster(surfaces)),
      setTools: (tools) => Effect.asVoid(engine.retool(tools)),
      setPrompts: (table) => SubscriptionRef.set(prompts, table),
      setResources: followed.setTable,
      ...lists,
      logLevel: settings.logLevel ?? "info",
      callTool: Serving.callTool(env),
      listResources: Effect.zipWith(roster.current, SubscriptionRef.get(apps), (resolved, compiled) => [
        ...resolved.advertisedResources,
        ...compiled.advertisedResources
      ]),
      listResourceTemplates: Effect.zipWith(roster.current, SubscriptionRef.get(apps), (resolved, compiled) => [
        ...resolved.advertisedResourceTemplates,
        ...compiled.advertisedTemplates
      ]),
      listPrompts: Effect.map(
        SubscriptionRef.get(prompts),
        (table) => Object.entries(table).map(([name, prompt]) => Prompts.advertise(name, prompt))
      ),
      getPrompt: (name, args) =>
        Effect.flatMap(Serving.promptNamed(env, name), (prompt) => Prompts.get(name, prompt, args, env.pool.use)),
      complete: Serving.complete(env),
      view: scopes.view,
      needs: scopes.needs,
      checkUri: Serving.checkUri(env),
      readResource: Serving.readResource(env),
      watch: Serving.watch(env),
      watching: Effect.zipWith(engine.watching, Ref.get(env.watchers), (a, b) => a + b),
      broadcaster
    } satisfies Face
  })

/**
 * Whether options carry a bundle and a client factory (so the face provides the core's defaults
 * itself) rather than settings alone.
 *
 * @example
 * ```ts
 * import { McpFace } from "effect-surface/mcp"
 * McpFace.isBundled({ serverInfo: { name: "x", version: "1" } }) // false: the core comes from context
 * ```
 *
 * @since 0.1.0
 */
export const isBundled = <E, R, C extends Bundle.Clients>(
  options: Settings | Options<E, R, C>
): options is Options<E, R, C> => "client" in options

/**
 * Build the shared part of an MCP face in a scope. Given settings alone, the face requires the
 * core's services (`Requires`) from its context, so it shares them with whatever else the Layer
 * graph serves; given a bundle and its client factory, it builds the defaults itself
 * (`Engine.layerBundle`), and closing the scope disposes every connection.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Client, Implementation, Surface } from "effect-surface"
 * import { McpFace } from "effect-surface/mcp"
 *
 * const Todos = Surface.make({ procedures: { todo: { add: { input: Schema.String, output: Schema.String, mutates: true } } } })
 * const todos = Implementation.make(Todos, { procedures: { todo: { add: (title) => Effect.succeed(`added ${title}`) } } })
 *
 * const face = McpFace.make({
 *   core: { surface: Todos, expose: { procedures: { "todo.add": true } } },
 *   client: Effect.succeed({ core: Client.erase(Client.directDispatch(todos)), clients: {} })
 * }) // Effect<McpFace.Face, ResolveError, Scope>
 * ```
 *
 * @since 0.1.0
 */
export function make<E, R, C extends Bundle.Clients = Bundle.Clients>(
  options: Options<E, R, C>
): Effect.Effect<Face, ResolveError.ResolveError, Scope.Scope | Exclude<R, Scope.Scope>>
export function make(settings: Settings): Effect.Effect<Face, ResolveError.ResolveError, Scope.Scope | Requires>
export function make<E, R, C extends Bundle.Clients>(
  options: Settings | Options<E, R, C>
): Effect.Effect<Face, ResolveError.ResolveError, Scope.Scope | Requires | Exclude<R, Scope.Scope>> {
  return isBundled(options)
    ? Effect.flatMap(Layer.build(layerCore(options)), (context) => Effect.provideContext(build(options), context))
    : build(options)
}

/**
 * The core's default services for a bundle served over MCP: `Engine.layerBundle`, with the pool's
 * messages naming the MCP server.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { McpFace, McpServer } from "effect-surface/mcp"
 *
 * declare const options: McpFace.Options
 * const served = McpServer.layer({ serverInfo: { name: "board", version: "1.0.0" } }).pipe(Layer.provide(McpFace.layerCore(options)))
 * ```
 *
 * @since 0.1.0
 */
export const layerCore = <E, R, C extends Bundle.Clients = Bundle.Clients>(
  options: Options<E, R, C>
): Layer.Layer<Engine.Services, ResolveError.ResolveError, Exclude<R, Scope.Scope>> =>
  Engine.layerBundle({ ...options, server: options.server ?? "The MCP server" })
