/**
 * The face-neutral engine: what every face does with a bundle, whatever protocol asked.
 *
 * A face receives a tool call, a read, a subscription, a completion of an item id, a roster move; it
 * should own the protocol and nothing else. Resolving the name against the Roster, dispatching over
 * the ConnectionPool, framing the answer, following changes across roster moves and dropped links,
 * and saying why something was refused are the same for MCP, ACP, the command line and the client
 * toolset's local bundles, so they are decided here once, as Effects over the core's services.
 * Refusals are tagged values (`EngineError`); each face maps them to its protocol in one place.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import type { LinkError } from "../surface/LinkError.ts"
import type { Owned } from "../surface/Owned.ts"
import type * as Bundle from "./Bundle.ts"
import type * as Caller from "./Caller.ts"
import * as ConnectionPool from "./ConnectionPool.ts"
import type { EngineError, Retired, UnknownResource, UnknownTool, Unreadable } from "./EngineError.ts"
import { call, type CallEnv, invoke } from "./internal/engineCalls.ts"
import { collectionKeys, read, type ReadEnv, resolve, watch } from "./internal/engineReads.ts"
import type * as Reads from "./Reads.ts"
import type * as ResolveError from "./ResolveError.ts"
import * as Resolver from "./Resolver.ts"
import * as Roster from "./Roster.ts"
import * as SchemaBridge from "./SchemaBridge.ts"
import type * as ToolResult from "./ToolResult.ts"
import * as Watch from "./Watch.ts"

/**
 * How the engine waits and follows.
 * @example
 * ```ts
 * import { Schedule } from "effect"
 * import type { Engine } from "effect-surface"
 * const options: Engine.Options = { itemDeadline: "2 seconds", resubscribe: Schedule.spaced("1 second") }
 * ```
 *
 * @since 0.1.0
 */
export interface Options {
  /** How long a collection item read (or a completion of its ids) waits for its source. Default 5 seconds. */
  readonly itemDeadline?: Duration.Input | undefined
  /** The least time between two notices for one subscription. Default 50 milliseconds. */
  readonly coalesce?: Duration.Input | undefined
  /** How a dropped subscription is re-opened; its budget restarts at each live open. Default exponential from 100ms, 6 retries. */
  readonly resubscribe?: Schedule.Schedule<unknown, unknown> | undefined
}

/**
 * A pool failure on the way to a client: no connection, a lost one, or a closed pool.
 *
 * @example
 * ```ts
 * import type { Engine } from "effect-surface"
 * const retryable = (e: Engine.PoolError) => e._tag !== "PoolClosed"
 * ```
 *
 * @since 0.1.0
 */
export type PoolError = ConnectionPool.ConnectionLost | ConnectionPool.DialFailed | ConnectionPool.PoolClosed

/**
 * The engine of one served bundle. Every operation reads the roster at the moment it runs, so a
 * request sees either the old roster or the new, never a mix.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Caller, Engine } from "effect-surface"
 *
 * const program = Effect.gen(function*() {
 *   const engine = yield* Engine.Engine
 *   const result = yield* engine.call("tasks_add", { title: "write docs" }).pipe(Effect.provideContext(Caller.none))
 *   const contents = yield* engine.read("surface://collections/tasks")
 *   return { result, contents }
 * })
 * ```
 *
 * @since 0.1.0
 */
export class Engine extends Context.Service<Engine, {
  /** Decode `args` for the named tool and call it; a failed call is an `isError` result, never a failure. */
  readonly call: (
    name: string,
    args: unknown
  ) => Effect.Effect<ToolResult.ToolResult, UnknownTool | Retired, Caller.Services>
  /** Call a served tool with already-decoded input. */
  readonly invoke: (tool: Bundle.Tool, input: unknown) => Effect.Effect<ToolResult.ToolResult, never, Caller.Services>
  /** What a `surface://` URI addresses now. */
  readonly resolve: (uri: string) => Effect.Effect<Reads.Target, UnknownResource | Retired>
  /** Read a `surface://` URI, snapshot first, in its wire form. */
  readonly read: (uri: string) => Effect.Effect<Reads.Contents, EngineError>
  /**
   * Follow a `surface://` URI for one subscriber: `onChange` (coalesced) at each change, `onOpen`
   * once it is live, across roster moves and dropped links, until the URI is no longer served, its
   * source ends, or its retry budget runs out — then a last `onChange`. Fails only when nothing
   * serves `uri` to begin with.
   */
  readonly watch: (
    uri: string,
    onChange: Effect.Effect<void>,
    onOpen?: Effect.Effect<void>
  ) => Effect.Effect<void, UnknownResource | Retired>
  /** How many subscriptions are being followed now. */
  readonly watching: Effect.Effect<number>
  /** The item ids a collection template holds now, in their URI form; `undefined` when `uriTemplate` is no collection's. */
  readonly collectionKeys: (uriTemplate: string) => Effect.Effect<ReadonlyArray<string> | undefined, Unreadable>
  /** Replace the sibling map whole; a refused roster leaves everything as it was. */
  readonly reroster: (surfaces: Bundle.Siblings) => Effect.Effect<Bundle.Resolved, ResolveError.ResolveError>
  /** Replace the root tools whole, through the same composition. */
  readonly retool: (tools: Bundle.RootTools) => Effect.Effect<Bundle.Resolved, ResolveError.ResolveError>
  /** Run `f` over the bundle's clients, leased from the pool. */
  readonly withClients: <A, E, R>(
    f: (clients: Bundle.Clients) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, Exclude<E, LinkError> | PoolError, R>
}>()("effect-surface/Engine") {}

/** What one engine is built over. */
interface Env extends CallEnv, ReadEnv {
  readonly resolver: Resolver.Resolver["Service"]
}

// Checked first, so a refused move touches nothing; then the connection is retired BEFORE the move
// is published, so nothing reacting to the move (a subscription re-opening) can lease the connection
// the old roster dialled. Uninterruptible: the move never stops between the two.
const reroster = (env: Env) =>
  Effect.fn("Engine.reroster")(function*(surfaces: Bundle.Siblings) {
    const now = yield* env.roster.current
    yield* env.resolver.resolveBundle({ ...now.bundle, surfaces })
    yield* env.pool.retire
    return yield* env.roster.reroster(surfaces)
  }, Effect.uninterruptible)

/**
 * Build the engine over the roster, pool and resolver in context.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Engine } from "effect-surface"
 * const engine = Engine.make({ itemDeadline: "2 seconds" }) // Effect<Engine, never, Roster | ConnectionPool | Resolver>
 * ```
 *
 * @since 0.1.0
 */
export const make = (
  options: Options = {}
): Effect.Effect<Engine["Service"], never, Roster.Roster | ConnectionPool.ConnectionPool | Resolver.Resolver> =>
  Effect.gen(function*() {
    const env: Env = {
      roster: yield* Roster.Roster,
      pool: yield* ConnectionPool.ConnectionPool,
      resolver: yield* Resolver.Resolver,
      itemDeadline: options.itemDeadline ?? Duration.seconds(5),
      coalesce: options.coalesce ?? Watch.defaultCoalesce,
      resubscribe: options.resubscribe ?? Schedule.max([Schedule.exponential("100 millis"), Schedule.recurs(6)]),
      watchers: yield* Ref.make(0)
    }
    return Engine.of({
      call: call(env),
      invoke: (tool, input) => invoke(env, tool, input),
      resolve: resolve(env),
      read: read(env),
      watch: watch(env),
      watching: Ref.get(env.watchers),
      collectionKeys: collectionKeys(env),
      reroster: reroster(env),
      // The clients a root tool receives do not depend on the root tools, so no re-dial.
      retool: env.roster.retool,
      withClients: env.pool.use
    })
  })

/**
 * Provide the engine over the roster, pool and resolver in context.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import type { Bundle } from "effect-surface"
 * import { ConnectionPool, Engine, Resolver, Roster } from "effect-surface"
 *
 * declare const bundle: Bundle.Bundle
 * declare const clients: Bundle.Clients
 * const core = Engine.layer().pipe(
 *   Layer.provideMerge(Layer.mergeAll(Roster.layer(bundle), ConnectionPool.layer({ dial: Effect.succeed(clients) }))),
 *   Layer.provideMerge(Resolver.layer)
 * )
 * ```
 *
 * @since 0.1.0
 */
export const layer = (
  options?: Options
): Layer.Layer<Engine, never, Roster.Roster | ConnectionPool.ConnectionPool | Resolver.Resolver> =>
  Layer.effect(Engine, make(options))

/**
 * Everything the engine stands on, for one bundle, with the default of each: the bundle, how to dial
 * its clients, and how the engine waits.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Bundle, Engine, Surface } from "effect-surface"
 *
 * declare const Notes: Surface.Spec
 * declare const clients: Bundle.Clients
 * const options: Engine.BundleOptions = { core: { surface: Notes, expose: {} }, client: Effect.succeed(clients) }
 * ```
 *
 * @since 0.1.0
 */
export interface BundleOptions<E = never, R = never, C extends Bundle.Clients = Bundle.Clients> extends Options {
  readonly core?: Bundle.Member | undefined
  /** The siblings, keyed (a sibling whose tools are typed by its surface is built with `Resolver.sibling`). */
  readonly surfaces?: Bundle.Siblings | undefined
  /** Bare-named root tools, handed the clients `client` yields. */
  readonly tools?: Bundle.RootTools | { readonly [name: string]: Bundle.BespokeTool<C> } | undefined
  /** Dials the bundle's clients, again after every drop and roster move (read the current roster); see `ConnectionPool`. */
  readonly client: Effect.Effect<C | Owned<C>, E, R>
  /** The most retired names remembered; see `Roster`. */
  readonly tombstoneCap?: number | undefined
  /** Who keeps running when the link drops, as a lost connection's message says. Default "The server". */
  readonly server?: string | undefined
}

/**
 * The whole core for one bundle, each service its default: `Engine`, `Roster`, `ConnectionPool`,
 * `Resolver` and `SchemaBridge`. A face provided with it shares them with anything else in the
 * same Layer graph.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Bundle, Surface } from "effect-surface"
 * import { Engine } from "effect-surface"
 *
 * declare const Notes: Surface.Spec
 * declare const clients: Bundle.Clients
 * const core = Engine.layerBundle({ core: { surface: Notes, expose: {} }, client: Effect.succeed(clients) })
 * ```
 *
 * @since 0.1.0
 */
export const layerBundle = <E, R, C extends Bundle.Clients = Bundle.Clients>(
  options: BundleOptions<E, R, C>
): Layer.Layer<Services, ResolveError.ResolveError, Exclude<R, Scope.Scope>> => {
  // Held erased: each tool is handed exactly what `client` dialled for its key, which `C` types.
  const bundle: Bundle.Bundle = {
    ...(options.core === undefined ? {} : { core: options.core }),
    ...(options.surfaces === undefined ? {} : { surfaces: options.surfaces }),
    ...(options.tools === undefined ? {} : { tools: options.tools as unknown as Bundle.RootTools })
  }
  const pool = ConnectionPool.layer({ dial: options.client, name: "the served surface", server: options.server })
  const roster = Roster.layer(bundle, { cap: options.tombstoneCap })
  return layer(options).pipe(
    Layer.provideMerge(Layer.mergeAll(roster, pool)),
    Layer.provideMerge(Resolver.layer),
    Layer.provideMerge(SchemaBridge.SchemaBridge.layer)
  )
}

/**
 * The services `layerBundle` provides, which a face requires.
 *
 * @example
 * ```ts
 * import type { Effect } from "effect"
 * import type { Engine } from "effect-surface"
 * declare const face: Effect.Effect<void, never, Engine.Services>
 * ```
 *
 * @since 0.1.0
 */
export type Services =
  | Engine
  | Roster.Roster
  | ConnectionPool.ConnectionPool
  | Resolver.Resolver
  | SchemaBridge.SchemaBridge
