/**
 * The toolset for callers outside Effect: `mcpTools(servers, options)`, its rebuild from storage
 * (`rebuildMcpToolsFromStorage`), the connection stores to pass as `storage`, and re-trust.
 *
 * A thin face over the Effect API, not a second implementation: a `ManagedRuntime` holds the
 * toolset's layer, every `execute` runs the toolset's own `call` in it (an `AbortSignal` interrupts
 * the call, which cancels it on the server), the `tools` record follows the live map in place, and
 * `close` releases the runtime, which closes every connection. Callbacks written with Promises
 * (`auth`, `allowedHosts`, `policy`, `approve`) are read as Effects at the boundary.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Stream from "effect/Stream"
import * as Approval from "../core/Approval.ts"
import * as PromiseDoor from "../core/internal/promiseDoor.ts"
import type * as Progress from "../core/Progress.ts"
import type * as CallResult from "./CallResult.ts"
import type * as Catalog from "./Catalog.ts"
import type * as Config from "./Config.ts"
import type * as Diagnostic from "./Diagnostic.ts"
import { ToolsetClosed } from "./Errors.ts"
import * as Progressing from "./internal/progress.ts"
import * as McpToolset from "./McpToolset.ts"
import type * as Policy from "./Policy.ts"
import type * as Resources from "./Resources.ts"
import * as Store from "./Store.ts"
import * as StoreSqlite from "./StoreSqlite.ts"
import * as TokenStore from "./TokenStore.ts"
import * as TokenStoreSqlite from "./TokenStoreSqlite.ts"

type Awaitable<A> = A | PromiseLike<A>

/**
 * The options of `mcpTools`: those of `McpToolset.make`, with Promise-returning callbacks, and
 * `approve` to answer the policy's asks (without it, an ask is denied).
 *
 * @example
 * ```ts
 * import type { McpPromise } from "effect-surface/client"
 * const options: McpPromise.Options<{ readonly user: string }> = {
 *   session: { user: "ada" },
 *   auth: async (_server, { session }) => ({ token: `token-for-${session.user}` }),
 *   policy: { decide: (r) => ({ _tag: r.tool.startsWith("delete") ? "Ask" : "Allow" }) },
 *   approve: async (request) => request.server !== "prod"
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Options<S = unknown>
  extends Omit<Config.Options<S>, "auth" | "allowedHosts" | "policy" | "onDiagnostic" | "authorize">
{
  readonly allowedHosts?:
    | ReadonlyArray<string>
    | ((server: string, context: Config.SessionContext<S>) => Awaitable<ReadonlyArray<string>>)
    | undefined
  readonly auth?: ((server: string, context: Config.SessionContext<S>) => Awaitable<Config.Credential>) | undefined
  readonly policy?: { readonly decide: (request: Policy.Request) => Awaitable<Policy.Decision> } | undefined
  readonly approve?: ((request: Approval.Request) => Awaitable<boolean>) | undefined
  readonly onDiagnostic?: ((diagnostic: Diagnostic.Diagnostic) => void) | undefined
  /** Takes the person to an authorization URL and resolves to the URL they came back to (servers with `oauth`). */
  readonly authorize?: ((authorizationUrl: URL) => Awaitable<URL>) | undefined
}

/**
 * How one request of the Promise API may differ from the toolset's defaults: `signal` cancels it on
 * the server, `timeoutMs` is its own deadline.
 *
 * @example
 * ```ts
 * import type { McpPromise } from "effect-surface/client"
 * const options: McpPromise.RequestOptions = { signal: AbortSignal.timeout(5_000) }
 * ```
 *
 * @since 0.1.0
 */
export interface RequestOptions {
  readonly signal?: AbortSignal | undefined
  readonly timeoutMs?: number | undefined
}

/**
 * How one call may differ: a `RequestOptions`, and `onProgress`, which asks the server for progress
 * and is called with each report, in increasing order, until the call settles.
 *
 * @example
 * ```ts
 * import type { McpPromise } from "effect-surface/client"
 * const options: McpPromise.ExecuteOptions = { onProgress: ({ progress, total }) => console.log(progress, total) }
 * ```
 *
 * @since 0.1.0
 */
export interface ExecuteOptions extends RequestOptions {
  readonly onProgress?: ((update: Progress.Update) => void) | undefined
}

/**
 * One tool of the map: what a model is shown, and `execute`. `execute` resolves to the result and
 * rejects with the call's tagged error — an `isError` result as an `Error` whose message is
 * `MCP tool error: ` and the server's text (and whose `structuredContent` is the server's structured
 * detail, when it gave one). Aborting `signal` cancels the call on the server and rejects with the
 * signal's `reason` (an `AbortError` unless one was given; an already aborted signal sends
 * nothing); a call after `close`, or cut off by it, rejects with `ToolsetClosed`.
 *
 * @example
 * ```ts
 * import type { McpPromise } from "effect-surface/client"
 * declare const tool: McpPromise.Tool
 * const result = await tool.execute({ message: "hi" }, { signal: AbortSignal.timeout(5_000) })
 * ```
 *
 * @since 0.1.0
 */
export interface Tool {
  readonly name: string
  readonly description: string
  readonly inputSchema: Catalog.Tool["inputSchema"]
  /** What the tool's `structuredContent` is, when the server declared it (each answer is checked against it). */
  readonly outputSchema?: Catalog.Tool["outputSchema"]
  readonly execute: (args: unknown, options?: ExecuteOptions) => Promise<CallResult.Result>
}

/**
 * What `mcpTools` resolves to. `tools` follows the servers' lists in place; `diagnostics` is read
 * fresh each time (after `close`, as they stood then); `close` ends every connection and may be
 * called more than once. `reconciled` resolves once every server has been checked, and rejects
 * with `ToolsetClosed` if the toolset closes first — never as an unhandled rejection when nobody
 * awaits it.
 *
 * @example
 * ```ts
 * import type { McpPromise } from "effect-surface/client"
 * declare const toolset: McpPromise.Toolset
 * Object.keys(toolset.tools)
 * await toolset.close()
 * ```
 *
 * @since 0.1.0
 */
export interface Toolset {
  readonly tools: { readonly [name: string]: Tool }
  readonly close: () => Promise<void>
  readonly reconciled: Promise<void>
  readonly diagnostics: ReadonlyArray<Diagnostic.Diagnostic>
  /** Every remote server's resources, asked of the servers now. */
  readonly resources: () => Promise<ReadonlyArray<Resources.Resource>>
  /** Every remote server's resource templates, asked of the servers now. */
  readonly resourceTemplates: () => Promise<ReadonlyArray<Resources.ResourceTemplate>>
  /** Read a resource of the server keyed `server`, through the policy and under the deadline. */
  readonly readResource: (
    server: string,
    uri: string,
    options?: RequestOptions
  ) => Promise<ReadonlyArray<Resources.Content>>
  /** Every remote server's prompts, named `${server}__${prompt}`. */
  readonly prompts: () => Promise<ReadonlyArray<Resources.Prompt>>
  /** Fill in a prompt by its projected name, through the policy and under the deadline. */
  readonly getPrompt: (
    name: string,
    args?: { readonly [key: string]: string },
    options?: RequestOptions
  ) => Promise<Resources.Messages>
}

const lift = <A>(f: () => Awaitable<A>): Effect.Effect<A, unknown> =>
  Effect.tryPromise({ try: async () => f(), catch: (e) => e })

const toEffectOptions = <S>(options: Options<S>): Config.Options<S> => {
  const { allowedHosts, approve: _approve, auth, authorize, onDiagnostic, policy, ...rest } = options
  return {
    ...rest,
    ...(allowedHosts === undefined ? {} : {
      allowedHosts: typeof allowedHosts === "function" ? (server, context) => lift(() => allowedHosts(server, context))
        : allowedHosts
    }),
    ...(auth === undefined ? {} : { auth: (server, context) => lift(() => auth(server, context)) }),
    ...(authorize === undefined ? {} : { authorize: (url) => lift(() => authorize(url)) }),
    ...(policy === undefined ? {}
      : { policy: { decide: (request) => Effect.orDie(lift(() => policy.decide(request))) } }),
    ...(onDiagnostic === undefined ? {} : { onDiagnostic })
  }
}

const approvalLayer = (approve: NonNullable<Options["approve"]>) =>
  Layer.succeed(
    Approval.Approval,
    Approval.Approval.of({
      decide: (request) =>
        lift(() => approve(request)).pipe(
          Effect.map((yes) => yes ? Approval.allow : Approval.deny("the person declined")),
          Effect.catch(() => Effect.succeed(Approval.deny("the approval could not be asked")))
        )
    })
  )

/**
 * Connect the servers and resolve to their tools as one record. Rejects with a `WiringError` when
 * the configuration cannot work (nothing is started then); a server that is refused or down is a
 * diagnostic, and the others load.
 *
 * @example
 * ```ts
 * import { mcpTools } from "effect-surface/client"
 *
 * const { tools, close } = await mcpTools(
 *   [{ name: "docs", type: "streamable-http", url: "https://mcp.example.com/mcp" }],
 *   { allowedHosts: ["mcp.example.com"], session: "ada", auth: async () => ({ token: "…" }) }
 * )
 * const answer = await tools["docs__search"]?.execute({ query: "retries" })
 * await close()
 * ```
 *
 * @since 0.1.0
 */
export const mcpTools = <S = unknown>(
  servers: ReadonlyArray<Config.Server>,
  options: Options<S> = {}
): Promise<Toolset> =>
  open(Layer.effect(McpToolset.McpToolset, McpToolset.make(servers, toEffectOptions(options))), options)

/**
 * Rebuild the toolset from `options.storage` after a restart or a wake: resolves at once to the
 * stored map, without asking any server (so also while one is down), and checks each server in the
 * background; `reconciled` resolves when that is done. Rejects with `NothingStored` for an empty
 * store (a first start is `mcpTools`) and `StoredServerMismatch` for a row whose transport or URL
 * differs from its configuration.
 *
 * @example
 * ```ts
 * import { createSqliteMcpConnectionStore, rebuildMcpToolsFromStorage } from "effect-surface/client"
 *
 * const storage = createSqliteMcpConnectionStore("toolset.db")
 * const servers = [{ name: "docs", type: "streamable-http", url: "https://mcp.example.com/mcp" }] as const
 * const { tools, reconciled, close } = await rebuildMcpToolsFromStorage(servers, { storage }, { stdio: true })
 * Object.keys(tools) // the stored map, before any server answered
 * await reconciled
 * await close()
 * ```
 *
 * @since 0.1.0
 */
export const rebuildMcpToolsFromStorage = <S = unknown>(
  servers: ReadonlyArray<Config.Server>,
  options: Options<S>,
  capabilities: McpToolset.Capabilities = { stdio: true }
): Promise<Toolset> =>
  open(
    Layer.effect(McpToolset.McpToolset, McpToolset.rebuild(servers, toEffectOptions(options), capabilities)),
    options
  )

const deadline = (options: RequestOptions | undefined): McpToolset.CallOptions | undefined =>
  options?.timeoutMs === undefined ? undefined : { timeoutMs: options.timeoutMs }

const open = async (
  toolsetLayer: Layer.Layer<McpToolset.McpToolset, unknown>,
  options: Options<any>
): Promise<Toolset> => {
  const door = PromiseDoor.make(
    ManagedRuntime.make(
      options.approve === undefined ? toolsetLayer : Layer.provide(toolsetLayer, approvalLayer(options.approve))
    ),
    (name) => new ToolsetClosed({ name })
  )
  const toolset = await PromiseDoor.boot(door, Effect.service(McpToolset.McpToolset))
  const tools: Record<string, Tool> = {}
  const follow = (map: ReadonlyMap<string, Catalog.Tool>) => {
    for (const name of Object.keys(tools)) if (!map.has(name)) delete tools[name]
    for (const [name, tool] of map) {
      const current = tools[name]
      if (
        current !== undefined && current.description === tool.description &&
        current.inputSchema === tool.inputSchema && current.outputSchema === tool.outputSchema
      )
        continue
      tools[name] = {
        name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
        execute: (args, callOptions) =>
          door.run(
            name,
            Progressing.reportingTo(callOptions?.onProgress)(toolset.call(name, args, deadline(callOptions))),
            {
              signal: callOptions?.signal
            }
          )
      }
    }
  }
  follow(await door.run("tools", toolset.tools))
  const follower = door.run("changes", Stream.runForEach(toolset.changes, (map) => Effect.sync(() => follow(map))))
  follower.catch(() => {}) // it ends only when the toolset closes
  const reconciled = door.run("reconciled", toolset.reconciled)
  // Settled ToolsetClosed when closed first: rejected for whoever awaits it, never unhandled.
  reconciled.catch(() => {})
  // After close, the diagnostics as they stood when it closed.
  let diagnostics: ReadonlyArray<Diagnostic.Diagnostic> = []
  const latest = Effect.map(toolset.diagnostics, (now) => {
    diagnostics = now
  })
  const read = "resources/read"
  return {
    tools,
    reconciled,
    resources: () => door.run("resources/list", toolset.resources),
    resourceTemplates: () => door.run("resources/templates/list", toolset.resourceTemplates),
    readResource: (server, uri, readOptions) =>
      door.run(read, toolset.readResource(server, uri, deadline(readOptions)), { signal: readOptions?.signal }),
    prompts: () => door.run("prompts/list", toolset.prompts),
    getPrompt: (name, args, getOptions) =>
      door.run(name, toolset.getPrompt(name, args, deadline(getOptions)), { signal: getOptions?.signal }),
    get diagnostics() {
      if (!door.isClosed()) door.runSync(latest)
      return diagnostics
    },
    close: () => door.close(latest)
  }
}

/**
 * A connection store in memory, to pass as `storage`: rows live as long as the process.
 *
 * @example
 * ```ts
 * import { createMemoryMcpConnectionStore, mcpTools } from "effect-surface/client"
 * const storage = createMemoryMcpConnectionStore()
 * const toolset = await mcpTools([{ name: "memory", type: "stdio", command: "mcp-server-memory" }], { storage })
 * ```
 *
 * @since 0.1.0
 */
export const createMemoryMcpConnectionStore = (): Store.Store => Effect.runSync(Store.makeMemory)

/**
 * A SQLite connection store, to pass as `storage`.
 *
 * @example
 * ```ts
 * import type { McpPromise } from "effect-surface/client"
 * declare const storage: McpPromise.SqliteStore
 * await storage.close()
 * ```
 *
 * @since 0.1.0
 */
export interface SqliteStore extends Store.Store {
  /** Close the database; may be called more than once. */
  readonly close: () => Promise<void>
}

/**
 * Open (creating as needed) a SQLite connection store at `path` — a file, or `":memory:"` — to pass
 * as `storage`. Throws the `StoreError` when the file cannot be opened or was written by a later
 * version.
 *
 * @example
 * ```ts
 * import { createSqliteMcpConnectionStore, mcpTools } from "effect-surface/client"
 * const storage = createSqliteMcpConnectionStore("toolset.db")
 * const toolset = await mcpTools([{ name: "memory", type: "stdio", command: "mcp-server-memory" }], { storage })
 * await toolset.close()
 * await storage.close()
 * ```
 *
 * @since 0.1.0
 */
export const createSqliteMcpConnectionStore = (path: string): SqliteStore => {
  const runtime = ManagedRuntime.make(StoreSqlite.layer(path))
  const store = runtime.runSync(Effect.service(Store.McpConnectionStore))
  return { ...store, close: () => runtime.dispose() }
}

/**
 * Clear the baseline of every row named `serverName`, once its change is known to be legitimate:
 * its next listing is trusted and becomes its baseline. Resolves to how many rows it cleared.
 *
 * @example
 * ```ts
 * import { createSqliteMcpConnectionStore, retrustMcpServer } from "effect-surface/client"
 * await retrustMcpServer(createSqliteMcpConnectionStore("toolset.db"), "docs")
 * ```
 *
 * @since 0.1.0
 */
export const retrustMcpServer = (store: Store.Store, serverName: string): Promise<number> =>
  Effect.runPromise(McpToolset.retrust(store, serverName))

/**
 * A SQLite token store, to pass as `tokenStore`.
 *
 * @example
 * ```ts
 * import type { McpPromise } from "effect-surface/client"
 * declare const tokenStore: McpPromise.SqliteTokenStore
 * await tokenStore.close()
 * ```
 *
 * @since 0.1.0
 */
export interface SqliteTokenStore extends TokenStore.TokenStore {
  /** Close the database; may be called more than once. */
  readonly close: () => Promise<void>
}

/**
 * Open (creating it with mode 0600 as needed) a SQLite token store at `path`, to pass as
 * `tokenStore`: OAuth sign-ins then outlive the process. Throws the `TokenStoreError` when the file
 * cannot be opened or was written by a later version.
 *
 * @example
 * ```ts
 * import { createSqliteMcpTokenStore, mcpTools } from "effect-surface/client"
 * declare const openBrowserAndWaitForCallback: (url: URL) => Promise<URL>
 * const tokenStore = createSqliteMcpTokenStore("tokens.db")
 * const toolset = await mcpTools(
 *   [{ name: "docs", type: "streamable-http", url: "https://mcp.example.com/mcp",
 *      oauth: { clientName: "my agent", redirectUrl: "http://127.0.0.1:8765/callback" } }],
 *   { authorize: openBrowserAndWaitForCallback, tokenStore }
 * )
 * ```
 *
 * @since 0.1.0
 */
export const createSqliteMcpTokenStore = (path: string): SqliteTokenStore => {
  const runtime = ManagedRuntime.make(TokenStoreSqlite.layer(path))
  const store = runtime.runSync(Effect.service(TokenStore.McpTokenStore))
  return { ...store, close: () => runtime.dispose() }
}
