/**
 * Many MCP servers as one tool map an agent can hand to a model without handing over the keys.
 *
 * An agent connects servers it did not write: their names collide, their URLs come from files,
 * their binaries come from plugins, their tools can be destructive whatever their annotations say,
 * and they hang, die and change their lists. A toolset is the one place all of that is decided: it
 * wires every server through the same checks, names every tool legally and stably, and runs every
 * call down one path — look the name up, check the arguments against the server's schema, ask the
 * policy, resolve the credential, send with a deadline over the server's connection pool, read the
 * answer through the one result adapter. The Promise API and the `effect/ai` Toolkit are built on
 * this same path, never beside it. Closing the scope closes every connection. A local bundle
 * (`type: "local"`) sits in the same map, its calls dispatched through the core's engine.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import type * as Scope from "effect/Scope"
import * as Approval from "../core/Approval.ts"
import { entrySpanWith } from "../core/internal/span.ts"
import * as AiToolkit from "./AiToolkit.ts"
import * as CallResult from "./CallResult.ts"
import * as Catalog from "./Catalog.ts"
import * as Config from "./Config.ts"
import * as Diagnostic from "./Diagnostic.ts"
import {
  type CallError,
  type NothingStored,
  ServerUnavailable,
  type StoredServerMismatch,
  UnknownTool,
  WiringError
} from "./Errors.ts"
import * as Diagnostics from "./internal/diagnostics.ts"
import * as Invoke from "./internal/invoke.ts"
import * as Link from "./internal/link.ts"
import * as Local from "./internal/local.ts"
import * as Projection from "./internal/projection.ts"
import * as Reach from "./internal/reach.ts"
import * as Stored from "./internal/stored.ts"
import type * as Resources from "./Resources.ts"
import * as Store from "./Store.ts"

/**
 * How one call may differ from the toolset's defaults.
 *
 * @example
 * ```ts
 * import type { McpToolset } from "effect-surface/client"
 * const options: McpToolset.CallOptions = { timeoutMs: 5_000 }
 * ```
 *
 * @since 0.1.0
 */
export interface CallOptions {
  /** This call's deadline, over the server's and the toolset's. */
  readonly timeoutMs?: number | undefined
}

/**
 * A running toolset. `tools` and `changes` give the projected map (`changes` starts with the
 * current one and follows every `tools/list_changed`); `call` runs a tool by its projected name;
 * `toolkit` builds an `effect/ai` Toolkit over the tools held now; `reconciled` completes once the
 * map has been checked against the servers (at once for a toolset made by connecting; for a
 * rebuilt one, when every server's background listing has ended).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { McpToolset } from "effect-surface/client"
 * declare const toolset: McpToolset.Toolset
 * const program = Effect.gen(function*() {
 *   const tools = yield* toolset.tools
 *   return yield* toolset.call("memory__read_graph", {})
 * })
 * ```
 *
 * @since 0.1.0
 */
export interface Toolset {
  readonly tools: Effect.Effect<ReadonlyMap<string, Catalog.Tool>>
  readonly changes: Stream.Stream<ReadonlyMap<string, Catalog.Tool>>
  readonly call: (name: string, args: unknown, options?: CallOptions) => Effect.Effect<CallResult.Result, CallError>
  readonly diagnostics: Effect.Effect<ReadonlyArray<Diagnostic.Diagnostic>>
  readonly toolkit: Effect.Effect<AiToolkit.Kit>
  readonly reconciled: Effect.Effect<void>
  /** Every remote server's resources, asked of the servers now. */
  readonly resources: Effect.Effect<ReadonlyArray<Resources.Resource>>
  /** Every remote server's resource templates, asked of the servers now. */
  readonly resourceTemplates: Effect.Effect<ReadonlyArray<Resources.ResourceTemplate>>
  /** Read a resource of the server keyed `server`, through the policy and under the deadline. */
  readonly readResource: (
    server: string,
    uri: string,
    options?: CallOptions
  ) => Effect.Effect<ReadonlyArray<Resources.Content>, CallError>
  /** Every remote server's prompts, named `${server}__${prompt}`. */
  readonly prompts: Effect.Effect<ReadonlyArray<Resources.Prompt>>
  /** Fill in a prompt by its projected name, through the policy and under the deadline. */
  readonly getPrompt: (
    name: string,
    args?: { readonly [key: string]: string },
    options?: CallOptions
  ) => Effect.Effect<Resources.Messages, CallError>
}

/**
 * The toolset as a service, for a program that is handed one (`layer`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpToolset } from "effect-surface/client"
 * const program = Effect.gen(function*() {
 *   const toolset = yield* McpToolset.McpToolset
 *   return yield* toolset.tools
 * })
 * ```
 *
 * @since 0.1.0
 */
export class McpToolset extends Context.Service<McpToolset, Toolset>()("effect-surface/McpToolset") {}

// A remote server gets a link over MCP (seeded from storage, in a rebuild); a local bundle, one over
// the core's engine, listed off its roster at once.
const connect = (server: Config.Wired, env: Link.Env, seed: Stored.Seed | undefined) =>
  server.config.type === "local"
    ? Local.make({ ...server, config: server.config }, env)
    : Link.make({ ...server, config: server.config }, env, seed)

/**
 * Connect the servers and project their tools, in the current scope. Refuses the configuration
 * (`WiringError`) before anything starts; past that it does not fail: a server that is refused or
 * cannot be reached is a diagnostic, and the others load. Closing the scope closes every
 * connection (children killed, HTTP sessions deleted, SSE streams ended). The `Approval` in context
 * here answers the policy's asks. With `storage`, each server's listing is recorded (its first
 * becomes its baseline) and checked against a baseline already there.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpToolset } from "effect-surface/client"
 *
 * const program = Effect.scoped(Effect.gen(function*() {
 *   const toolset = yield* McpToolset.make([
 *     { name: "memory", type: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] }
 *   ], { timeoutMs: 30_000 })
 *   return yield* toolset.call("memory__read_graph", {})
 * }))
 * ```
 *
 * @since 0.1.0
 */
export const make: <S = unknown>(
  servers: ReadonlyArray<Config.Server>,
  options?: Config.Options<S>
) => Effect.Effect<Toolset, WiringError, Scope.Scope> = Effect.fn("McpToolset.make")(function*<S>(
  servers: ReadonlyArray<Config.Server>,
  options: Config.Options<S> = {}
) {
  return yield* start(yield* Config.wire(servers, options), options, undefined)
})

/**
 * What a rebuild may use of the runtime it wakes in: `stdio: false` where no process can be
 * started (its stdio servers are left out, each with a diagnostic).
 *
 * @example
 * ```ts
 * import type { McpToolset } from "effect-surface/client"
 * const capabilities: McpToolset.Capabilities = { stdio: false }
 * ```
 *
 * @since 0.1.0
 */
export interface Capabilities {
  readonly stdio: boolean
}

/**
 * Everything a rebuild can refuse before anything starts.
 *
 * @example
 * ```ts
 * import type { McpToolset } from "effect-surface/client"
 * const retryCold = (e: McpToolset.RebuildError) => e._tag === "NothingStored"
 * ```
 *
 * @since 0.1.0
 */
export type RebuildError = WiringError | NothingStored | StoredServerMismatch | Store.StoreError

/**
 * Rebuild a toolset from `options.storage` after a restart or a wake: the map is projected from the
 * stored catalogue at once — no `tools/list`, no dial waited on, so it resolves while a server is
 * down — and each server is listed in the background, the map corrected in place if it moved and
 * checked for drift; `reconciled` completes when every listing has ended. Until a server's listing
 * is in, a call to it waits for it, and a tool it withdrew is refused (`ToolWithdrawn`). The
 * configuration is given again (the store keeps no command, header or credential). An empty store
 * is `NothingStored` (a first start is `make`), and a row whose transport or URL differs from its
 * configuration is `StoredServerMismatch`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpStoreSqlite, McpToolset } from "effect-surface/client"
 *
 * const servers = [{ name: "docs", type: "streamable-http", url: "https://mcp.example.com/mcp" }] as const
 * const wake = Effect.scoped(Effect.gen(function*() {
 *   const storage = yield* McpStoreSqlite.make("toolset.db")
 *   const toolset = yield* McpToolset.rebuild(servers, { storage, allowedHosts: ["mcp.example.com"] }, { stdio: true })
 *   return [...(yield* toolset.tools).keys()] // from storage, before any server answered
 * }))
 * ```
 *
 * @since 0.1.0
 */
export const rebuild: <S = unknown>(
  servers: ReadonlyArray<Config.Server>,
  options: Config.Options<S>,
  capabilities?: Capabilities
) => Effect.Effect<Toolset, RebuildError, Scope.Scope> = Effect.fn("McpToolset.rebuild")(function*<S>(
  servers: ReadonlyArray<Config.Server>,
  options: Config.Options<S>,
  capabilities: Capabilities = { stdio: true }
) {
  const store = options.storage
  if (store === undefined)
    return yield* new WiringError({
      reason: "a rebuild reads the stored catalogue: pass storage (the store the toolset was made with)"
    })
  const wired = yield* Config.wire(servers, options)
  const { diagnostics, seeds } = yield* Stored.seedsFor(wired.servers, yield* store.list)
  const runnable = wired.servers.filter((server) => capabilities.stdio || server.config.type !== "stdio")
  const refused = wired.servers.filter((server) => !runnable.includes(server))
  const notes = [
    ...diagnostics,
    ...refused.map((server) =>
      Diagnostic.stdioRefused(server.config.name, "this runtime cannot start processes (stdio: false)")
    )
  ]
  return yield* start({ ...wired, servers: runnable }, options, { seeds, notes })
})

/**
 * Clear the baseline of every stored row named `serverName`, once its change is known to be
 * legitimate: the next listing of that server (a reconnect, a `tools/list_changed`, a rebuild's
 * reconcile, a new toolset) is trusted and becomes its baseline. Answers how many rows it cleared.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpToolset, type McpStore } from "effect-surface/client"
 * declare const storage: McpStore.Store
 * const program = McpToolset.retrust(storage, "docs")
 * ```
 *
 * @since 0.1.0
 */
export const retrust: (store: Store.Store, serverName: string) => Effect.Effect<number, Store.StoreError> =
  Store.retrust

// A name the map does not hold: under a server that offers no tools now, that server's reason
// (a process that exited says its code and stderr), so the caller learns why and not only that.
const unknown = (links: ReadonlyArray<Link.Link>, name: string): UnknownTool | ServerUnavailable => {
  for (const link of links) {
    if (!name.startsWith(`${link.wired.key}__`)) continue
    const reason = link.unavailable?.()
    if (reason !== undefined)
      return new ServerUnavailable({ name, server: link.wired.config.name, retrySafe: true, reason })
  }
  return new UnknownTool({ name })
}

// One toolset over wired servers, connected (`make`) or seeded from storage (`rebuild`).
const start = Effect.fnUntraced(function*<S>(
  wired: Effect.Success<ReturnType<typeof Config.wire>>,
  options: Config.Options<S>,
  rebuilt:
    | { readonly seeds: ReadonlyMap<string, Stored.Seed>; readonly notes: ReadonlyArray<Diagnostic.Diagnostic> }
    | undefined
) {
  const approval = yield* Effect.serviceOption(Approval.Approval)
  const diagnostics = yield* Diagnostics.make(options)
  for (const collision of wired.collisions)
    yield* diagnostics.emit(Diagnostic.serverNameCollision(collision.name, collision.keys))
  for (const note of rebuilt?.notes ?? []) yield* diagnostics.emit(note)

  const state = yield* SubscriptionRef.make<Projection.State>(Projection.empty)
  const invokeEnv: Invoke.Env = { options, approval }
  const prepare = (name: string, found: Projection.Located) => Invoke.prepare(name, found, invokeEnv)
  const links = yield* Ref.make<ReadonlyArray<Link.Link>>([])
  const publishing = yield* Semaphore.make(1)
  const project = Effect.gen(function*() {
    const perServer = yield* Effect.forEach(yield* Ref.get(links), (link) =>
      Effect.map(link.entries, (entries) => ({
        key: link.wired.key,
        entries: entries.map((entry): Projection.Located => ({ ...entry, link }))
      })))
    const projected = Projection.project(perServer, options, prepare)
    yield* Effect.forEach(projected.diagnostics, diagnostics.emit, { discard: true })
    yield* SubscriptionRef.set(state, projected.state)
    return projected.unmatched
  })
  const publish = publishing.withPermits(1)(Effect.asVoid(project))

  const env: Link.Env = { options, emit: diagnostics.emit, publish }
  const made = yield* Effect.forEach(wired.servers, (server) => connect(server, env, rebuilt?.seeds.get(server.key)), {
    concurrency: "unbounded"
  })
  const live = made.filter((link) => link !== undefined)
  yield* Ref.set(links, live)
  const reconciled = yield* Projection.firstPublish(
    live,
    rebuilt !== undefined,
    publishing.withPermits(1)(project),
    (entries) =>
      Effect.forEach(entries, (entry) => diagnostics.emit(Diagnostic.filterUnmatched(entry)), { discard: true })
  )

  // The hot path: each tool's call is prepared when the map is projected (`invoke.ts`).
  const call = (name: string, args: unknown, callOptions?: CallOptions): Effect.Effect<CallResult.Result, CallError> =>
    entrySpanWith("McpToolset.call", () => ({ attributes: { "mcp.tool": name } }), () => {
      const current = SubscriptionRef.getUnsafe(state)
      const run = current.calls.get(name)
      if (run !== undefined) return run(args, callOptions?.timeoutMs)
      return current.describe?.name === name ? Projection.describeCall(current.describe, args)
        : Effect.flatMap(Ref.get(links), (all) => Effect.fail(unknown(all, name)))
    })

  const reach: Reach.Env = { links: Ref.get(links), options, approval }
  const toolset: Toolset = {
    resources: Reach.resources(reach),
    resourceTemplates: Reach.resourceTemplates(reach),
    readResource: (server, uri, callOptions) => Reach.read(reach, server, uri, callOptions?.timeoutMs),
    prompts: Reach.prompts(reach),
    getPrompt: (name, args, callOptions) => Reach.get(reach, name, args ?? {}, callOptions?.timeoutMs),
    tools: Effect.map(SubscriptionRef.get(state), (s) => s.tools),
    changes: Stream.map(SubscriptionRef.changes(state), (s) => s.tools),
    call,
    diagnostics: diagnostics.all,
    toolkit: Effect.flatMap(
      SubscriptionRef.get(state),
      (s) => AiToolkit.make(s.tools, (name, args) => call(name, args))
    ),
    reconciled: Deferred.await(reconciled)
  }
  return toolset
})

/**
 * The toolset as a layer: connected when the layer is built, closed when it is released.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { McpToolset } from "effect-surface/client"
 *
 * const Tools = McpToolset.layer([{ name: "memory", type: "stdio", command: "mcp-server-memory" }])
 * const program = Effect.gen(function*() {
 *   const toolset = yield* McpToolset.McpToolset
 *   return [...(yield* toolset.tools).keys()]
 * }).pipe(Effect.provide(Tools))
 * ```
 *
 * @since 0.1.0
 */
export const layer = <S = unknown>(
  servers: ReadonlyArray<Config.Server>,
  options?: Config.Options<S>
): Layer.Layer<McpToolset, WiringError> => Layer.effect(McpToolset, make(servers, options))
