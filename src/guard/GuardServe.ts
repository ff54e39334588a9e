/**
 * A guard served over MCP: its granted tools as the MCP face's root tools, each call handed whole
 * to the guard's `execute`.
 *
 * The face lists each tool with the upstream's name, description, annotations and `_meta`, and the
 * input schema the guard rebuilt with its restrictions; it does not check the arguments itself
 * (`checkedBy: "handler"`), because a refusal made before `execute` would be a refusal without an
 * audit row and in other words than the shell's. So the MCP door and the command line meet at the
 * same path, and nothing here serves MCP a second way: it is the face's own layers over a bundle
 * of root tools.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ServeError } from "effect/http/HttpServerError"
import type * as Bundle from "../core/Bundle.ts"
import * as Identity from "../core/Identity.ts"
import type * as ResolveError from "../core/ResolveError.ts"
import * as Tool from "../core/Tool.ts"
import type * as ToolResult from "../core/ToolResult.ts"
import * as Engine from "../core/Engine.ts"
import * as McpFace from "../mcp/face/Face.ts"
import * as McpHttp from "../mcp/Http.ts"
import type * as HttpChecks from "../mcp/transport/HttpChecks.ts"
import {
  McpServer,
  type Options as McpServerOptions,
  McpServedConnection,
  type Settings as McpServerSettings
} from "../mcp/McpServer.ts"
import * as Guard from "./Guard.ts"
import * as ServeTools from "../serve/ServeTools.ts"

/**
 * The guard's tools as root tools, by their upstream names, each calling `execute` through the MCP door.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Guard, GuardServe } from "effect-surface/guard"
 * const names = Effect.map(Effect.service(Guard.Guard), (guard) => Object.keys(GuardServe.rootTools(guard)))
 * ```
 *
 * @since 0.1.0
 */
export const rootTools = (guard: Guard.Guard["Service"]): Bundle.RootTools =>
  Object.fromEntries(guard.tools.map((tool) => [
    tool.name,
    Tool.make({
      description: tool.description,
      ...(tool.title === undefined ? {} : { title: tool.title }),
      ...(tool.meta === undefined ? {} : { meta: tool.meta }),
      ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
      input: Tool.jsonSchema(tool.inputSchema, { checkedBy: "handler" }),
      mutates: tool.annotations?.["readOnlyHint"] !== true,
      // The row names the caller the face verified (or the local one, over stdio).
      handler: (args) => Effect.flatMap(Identity.current, (caller) => guard.execute("mcp", tool.name, args, caller)),
      // `execute` answers with the result itself, refusals framed already.
      render: (result: ToolResult.ToolResult) => result
    })
  ]))

/**
 * The MCP face's options for a guard: its settings, and the guard's tools as a bundle of root tools.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpServer } from "effect-surface/mcp"
 * import { Guard, GuardServe } from "effect-surface/guard"
 * const server = Effect.map(Effect.service(Guard.Guard), (guard) => McpServer.layerStdio(GuardServe.faceOptions(guard)))
 * ```
 *
 * @since 0.1.0
 */
export const faceOptions = (guard: Guard.Guard["Service"], settings: McpServerSettings = {}): McpServerOptions => ({
  ...settingsOf(guard, settings),
  ...ServeTools.rooted(rootTools(guard)),
  client: Effect.succeed({ clients: {} })
})

const settingsOf = (guard: Guard.Guard["Service"], settings: McpServerSettings = {}): McpServerSettings => ({
  serverInfo: { name: `guard-${guard.file.upstream.name}`, version: "0.1.0" },
  ...settings,
  scopes: { ...settings.scopes, tools: { ...grantScopes(guard), ...settings.scopes?.tools } }
})

// The scope each grant names: behind a resource server, its tool is shown only to tokens holding it.
const grantScopes = (guard: Guard.Guard["Service"]): { readonly [tool: string]: string } =>
  Object.fromEntries(
    Object.entries(guard.file.grants).flatMap(([tool, grant]) =>
      typeof grant === "object" && grant.scope !== undefined ? [[tool, grant.scope]] : []
    )
  )

/**
 * The core a guard is served on: its tools as the bundle's root tools, and an engine whose call to a
 * name it does not list (a tool the grants deny, or none the upstream has) still goes to `execute`
 * before the protocol answers "unknown tool" — so that refusal writes its audit row as the shell's
 * does. The face itself is unchanged: the engine is the service it requires, swapped here.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { McpServer } from "effect-surface/mcp"
 * import { Guard, GuardServe } from "effect-surface/guard"
 * const server = Layer.unwrap(Effect.map(Effect.service(Guard.Guard), (guard) =>
 *   McpServer.layer({}).pipe(Layer.provide(GuardServe.layerCore(guard)))))
 * ```
 *
 * @since 0.1.0
 */
export const layerCore = (guard: Guard.Guard["Service"]): Layer.Layer<Engine.Services, ResolveError.ResolveError> =>
  Layer.effect(
    Engine.Engine,
    Effect.map(Engine.Engine, (engine) => Engine.Engine.of({ ...engine, call: auditingUnknown(guard, engine) }))
  ).pipe(
    Layer.provideMerge(
      McpFace.layerCore({ ...ServeTools.rooted(rootTools(guard)), client: Effect.succeed({ clients: {} }) })
    )
  )

const auditingUnknown =
  (guard: Guard.Guard["Service"], engine: Engine.Engine["Service"]): Engine.Engine["Service"]["call"] => (name, args) =>
    Effect.tapError(
      engine.call(name, args),
      (error) =>
        error._tag === "UnknownTool"
          ? Effect.flatMap(Identity.current, (caller) => Effect.asVoid(guard.execute("mcp", name, args, caller)))
          : Effect.void
    )

const withGuard = <A, E>(
  f: (settings: McpServerSettings) => Layer.Layer<A, E, McpFace.Requires>,
  settings?: McpServerSettings
) =>
  Layer.unwrap(
    Effect.map(Effect.service(Guard.Guard), (guard) =>
      f(settingsOf(guard, settings)).pipe(Layer.provide(layerCore(guard))))
  )

/**
 * The guard in context as an `McpServer`, no transport connected yet.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { McpHttp } from "effect-surface/mcp"
 * import { Guard, GuardServe } from "effect-surface/guard"
 * const app = McpHttp.layerServer({ port: 3000 }).pipe(Layer.provide(GuardServe.layer()), Layer.provide(Guard.layerFile("guard.json")))
 * ```
 *
 * @since 0.1.0
 */
export const layer = (settings?: McpServerSettings): Layer.Layer<McpServer, ResolveError.ResolveError, Guard.Guard> =>
  withGuard((options) => McpServer.layer(options), settings)

/**
 * The guard in context served over this process's stdio.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
 * import { McpServedConnection } from "effect-surface/mcp"
 * import { Guard, GuardServe } from "effect-surface/guard"
 *
 * Effect.flatMap(Effect.service(McpServedConnection), (connection) => connection.closed).pipe(
 *   Effect.provide(GuardServe.layerStdio().pipe(Layer.provide(Guard.layerFile("guard.json")))),
 *   NodeRuntime.runMain
 * )
 * ```
 *
 * @since 0.1.0
 */
export const layerStdio = (
  settings?: McpServerSettings
): Layer.Layer<McpServer | McpServedConnection, ResolveError.ResolveError, Guard.Guard> =>
  withGuard((options) => McpServer.layerStdio(options), settings)

/**
 * The guard in context served over Streamable HTTP, listening once the layer is built.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { McpHttp } from "effect-surface/mcp"
 * import { Guard, GuardServe } from "effect-surface/guard"
 *
 * const url = Effect.map(Effect.service(McpHttp.Endpoint), (endpoint) => endpoint.url).pipe(
 *   Effect.provide(GuardServe.layerHttp({ port: 0 }).pipe(Layer.provide(Guard.layerFile("guard.json"))))
 * )
 * ```
 *
 * @since 0.1.0
 */
export const layerHttp = (
  http: McpHttp.HttpOptions,
  settings?: McpServerSettings
): Layer.Layer<McpHttp.Endpoint, ResolveError.ResolveError | ServeError | HttpChecks.UnguardedBind, Guard.Guard> =>
  withGuard((options) => McpHttp.layerServer(http).pipe(Layer.provide(McpServer.layer(options))), settings)

/**
 * Serve a guard over this process's stdio until the host disconnects (or closes stdin).
 *
 * @example
 * ```ts
 * import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
 * import { Guard, GuardServe } from "effect-surface/guard"
 * NodeRuntime.runMain(GuardServe.serveStdio(Guard.layerFile("guard.json")))
 * ```
 *
 * @since 0.1.0
 */
export const serveStdio = (guard: Layer.Layer<Guard.Guard, Guard.StartError>, settings?: McpServerSettings) =>
  Effect.flatMap(Effect.service(McpServedConnection), (connection) => connection.closed).pipe(
    Effect.provide(layerStdio(settings).pipe(Layer.provide(guard)))
  )

/**
 * Serve a guard over Streamable HTTP until interrupted, telling `onListening` the endpoint's URL
 * once it listens.
 *
 * @example
 * ```ts
 * import { Console } from "effect"
 * import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
 * import { Guard, GuardServe } from "effect-surface/guard"
 * NodeRuntime.runMain(GuardServe.serveHttp(Guard.layerFile("guard.json"), { port: 0 }, (url) => Console.error(url)))
 * ```
 *
 * @since 0.1.0
 */
export const serveHttp = (
  guard: Layer.Layer<Guard.Guard, Guard.StartError>,
  http: McpHttp.HttpOptions,
  onListening: (url: string) => Effect.Effect<void>,
  settings?: McpServerSettings
) =>
  Effect.flatMap(
    Effect.service(McpHttp.Endpoint),
    (endpoint) => Effect.andThen(onListening(endpoint.url), Effect.never)
  ).pipe(
    Effect.provide(layerHttp(http, settings).pipe(Layer.provide(guard)))
  )
