/**
 * Serving plain tool objects over MCP: tools an app already wrote, tested and governed, served as
 * they are.
 *
 * A plain tool is a record with a JSON Schema and an `execute` function, the shape most agent
 * frameworks use. Serving one must not open a second door into it: the object handed in is the one
 * whose `execute` runs, looked up at each call, so whatever wraps it (a permission check, a
 * redaction, an audit hook) is what a remote caller reaches. Each becomes a root tool of the MCP
 * face over the core — its schema advertised verbatim and checked by the core's JSON Schema decoder
 * before `execute` runs, its failures framed by the core — so there is no second server here. What
 * a request/response protocol cannot keep (a pause for a person's consent, a credential nobody
 * provides) is refused when the tools are handed over, never dropped silently.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import type { ServeError } from "effect/http/HttpServerError"
import type * as Bundle from "../core/Bundle.ts"
import * as Json from "../core/Json.ts"
import type * as ResolveError from "../core/ResolveError.ts"
import * as Tool from "../core/Tool.ts"
import * as ToolFailure from "../core/ToolFailure.ts"
import * as ToolResult from "../core/ToolResult.ts"
import * as Surface from "../surface/Surface.ts"
import * as McpHttp from "../mcp/Http.ts"
import type * as HttpChecks from "../mcp/transport/HttpChecks.ts"
import {
  McpServer,
  type Options as McpServerOptions,
  McpServedConnection,
  type Settings as McpServerSettings
} from "../mcp/McpServer.ts"
import {
  CheckInUnsupported,
  CredentialsMissing,
  DuplicateTool,
  MalformedTool,
  NoTools,
  type ServeToolsError
} from "./ServeToolsError.ts"

/**
 * The `_meta` key a served tool's declarations travel under, namespaced so a host's own keys and
 * another library's never meet it.
 *
 * @example
 * ```ts
 * import { ServeTools } from "effect-surface/serve"
 * ServeTools.DECLARATIONS_KEY // "effect-surface/declarations"
 * ```
 *
 * @since 0.1.0
 */
export const DECLARATIONS_KEY = "effect-surface/declarations"

/**
 * What `execute` is handed beside its arguments: an abort signal that fires when the call is
 * cancelled (the host sent `notifications/cancelled`, or the server is closing), the credential
 * the provider gave for a tool that declares `needs`, and the tool's name.
 *
 * @example
 * ```ts
 * import type { ServeTools } from "effect-surface/serve"
 * const execute = async (args: { readonly q: string }, ctx: ServeTools.ExecuteContext) => {
 *   const answer = await fetch(`http://127.0.0.1:8080/?q=${args.q}`, { signal: ctx.signal })
 *   return answer.text()
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface ExecuteContext {
  readonly signal: AbortSignal
  readonly credential: unknown
  readonly tool: string
}

/**
 * A plain tool: a name, a description, a JSON Schema for its input (an object schema), and
 * `execute`. `execute` refuses a call by throwing `refuse(message, detail)` (from
 * `effect-surface/tools`): the agent reads the message. Anything else it throws is a bug: logged on
 * the server with its stack and an id, and the agent is told only that id. `checkIn` (a person's
 * consent before it runs) and `needs` (credentials pushed to it) are read only to refuse what cannot
 * be kept; `declarations` (plain JSON) travel in the listing's `_meta` under `DECLARATIONS_KEY`.
 * `mutates` (default `true`) sets the read-only and destructive hints a host shows.
 *
 * @example
 * ```ts
 * import type { ServeTools } from "effect-surface/serve"
 * const lookup: ServeTools.PlainTool = {
 *   name: "lookup",
 *   description: "Look an order up by id.",
 *   inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
 *   mutates: false,
 *   declarations: { owner: "support" },
 *   execute: async (args) => ({ id: (args as { id: string }).id, status: "shipped" })
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface PlainTool {
  readonly name: string
  readonly description: string
  readonly inputSchema: Json.JsonObject
  readonly execute: (args: any, ctx: ExecuteContext) => unknown // `any`: the schema, not the type, says what arrives
  readonly title?: string | undefined
  readonly mutates?: boolean | undefined
  readonly checkIn?: unknown
  readonly needs?: unknown
  readonly declarations?: Json.JsonObject | undefined
}

/**
 * What a credential provider is asked: which tool is about to run, and what it declared it needs.
 *
 * @example
 * ```ts
 * import type { ServeTools } from "effect-surface/serve"
 * const credentials = (request: ServeTools.CredentialRequest) => request.tool === "refund" ? "token-for-refunds" : undefined
 * ```
 *
 * @since 0.1.0
 */
export interface CredentialRequest {
  readonly tool: string
  readonly needs: unknown
}

/**
 * How tools are served, beside the MCP face's settings: the provider of credentials for the tools
 * that declare `needs`, asked at each call (a rejection fails that call, framed).
 *
 * @example
 * ```ts
 * import type { ServeTools } from "effect-surface/serve"
 * const options: ServeTools.Options = {
 *   serverInfo: { name: "support-desk", version: "1.0.0" },
 *   credentials: async ({ tool }) => `token-for-${tool}`
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Options extends McpServerSettings {
  readonly credentials?: ((request: CredentialRequest) => unknown) | undefined
}

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

// Tools arrive from code outside Effect, typed or not: each is checked before anything is served.
const malformation = (tool: unknown): string | undefined => {
  if (!isRecord(tool)) return "it is not an object"
  if (typeof tool["name"] !== "string") return "its name is not a string"
  if (typeof tool["description"] !== "string") return "its description is not a string"
  if (typeof tool["execute"] !== "function") return "its execute is not a function"
  if (!isRecord(tool["inputSchema"])) return "its inputSchema is not a JSON Schema object"
  const declarations = tool["declarations"]
  if (declarations !== undefined && !(isRecord(declarations) && Result.isSuccess(Json.normalize(declarations)))) {
    return "its declarations are not a JSON object"
  }
  return undefined
}

const nameOf = (tool: unknown): string =>
  isRecord(tool) && typeof tool["name"] === "string" ? tool["name"] : "(unnamed)"

const refusalOf = (
  tool: PlainTool,
  seen: ReadonlySet<string>,
  credentials: Options["credentials"]
): ServeToolsError | undefined => {
  const malformed = malformation(tool)
  if (malformed !== undefined) return new MalformedTool({ name: nameOf(tool), reason: malformed })
  if (seen.has(tool.name)) return new DuplicateTool({ name: tool.name })
  if (tool.checkIn !== undefined) return new CheckInUnsupported({ name: tool.name })
  if (tool.needs !== undefined && credentials === undefined) return new CredentialsMissing({ name: tool.name })
  return undefined
}

// A plain tool refuses by throwing a `ToolFailure` (`refuse(message, detail)`): its sentence and detail
// reach the agent. Anything else thrown is a bug, a defect: the engine logs it with an id and tells
// the agent that id, never the thrown text (which may name a host, a query, a path).
const thrown = (cause: unknown): Effect.Effect<never, ToolFailure.ToolFailure> =>
  ToolFailure.is(cause) ? Effect.fail(cause) : Effect.die(cause)

const credentialFor = (
  tool: PlainTool,
  credentials: Options["credentials"]
): Effect.Effect<unknown, ToolFailure.ToolFailure> =>
  tool.needs === undefined || credentials === undefined
    ? Effect.void
    : Effect.tryPromise({
      try: async () => credentials({ tool: tool.name, needs: tool.needs }),
      catch: (cause) => cause
    }).pipe(Effect.catch(thrown))

// `tool.execute` is read here, at each call: the object handed in is the one that runs.
const execute =
  (tool: PlainTool, credentials: Options["credentials"]) =>
  (args: unknown): Effect.Effect<unknown, ToolFailure.ToolFailure> =>
    Effect.flatMap(credentialFor(tool, credentials), (credential) =>
      Effect.tryPromise({
        try: async (signal) => tool.execute(args, { signal, credential, tool: tool.name }),
        catch: (cause) => cause
      }).pipe(Effect.catch(thrown)))

const metaOf = (declarations: Json.JsonObject | undefined): { readonly meta?: Json.JsonObject } =>
  declarations === undefined || Object.keys(declarations).length === 0 ? {}
    : { meta: { [DECLARATIONS_KEY]: declarations } }

// A string `execute` answers is prose: one text block as written, and no structured arm, whose JSON
// text would have the model read the answer twice. Anything else is data: its JSON, as `ok` frames it.
const answerOf = (out: unknown): ToolResult.ToolResult =>
  typeof out === "string" ? ToolResult.content([ToolResult.text(out)]) : ToolResult.ok(out)

const rootTool = (tool: PlainTool, credentials: Options["credentials"]): Bundle.BespokeTool<Bundle.Clients> =>
  Tool.make({
    description: tool.description,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...metaOf(tool.declarations),
    // The app's own schema: its patterns are trusted, as its code is.
    input: Tool.jsonSchema(tool.inputSchema, { trustPatterns: true }),
    mutates: tool.mutates ?? true,
    handler: execute(tool, credentials),
    render: answerOf
  })

/**
 * Check plain tools and make each a root tool of a bundle, by name, holding the tool itself. Refused
 * with a `ServeToolsError` naming the tool: an empty list, two tools with one name, a tool declaring
 * `checkIn`, a tool declaring `needs` with no `credentials`, or a tool that is no plain tool.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ServeTools } from "effect-surface/serve"
 *
 * declare const lookup: ServeTools.PlainTool
 * const program = Effect.map(ServeTools.rootTools([lookup]), (tools) => Object.keys(tools)) // ["lookup"]
 * ```
 *
 * @since 0.1.0
 */
export const rootTools = Effect.fn("ServeTools.rootTools")(function*(
  tools: ReadonlyArray<PlainTool>,
  options: Pick<Options, "credentials"> = {}
) {
  if (tools.length === 0) return yield* new NoTools()
  const seen = new Set<string>()
  // Keyed by a name the app chose: a prototype-less table keeps `__proto__` an ordinary key.
  const table: Record<string, Bundle.BespokeTool<Bundle.Clients>> = Object.create(null)
  for (const tool of tools) {
    const refused = refusalOf(tool, seen, options.credentials)
    if (refused !== undefined) return yield* refused
    seen.add(tool.name)
    table[tool.name] = rootTool(tool, options.credentials)
  }
  return table as Bundle.RootTools
})

// The face serves a bundle; plain tools are its root tools beside an empty core, with no clients.
const Nothing = Surface.make({})

/**
 * The bundle plain tools are served as: an empty core, and the tools at the root (`rootTools`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ServeTools } from "effect-surface/serve"
 *
 * declare const lookup: ServeTools.PlainTool
 * const program = Effect.map(ServeTools.bundle([lookup]), (bundle) => Object.keys(bundle.tools)) // ["lookup"]
 * ```
 *
 * @since 0.1.0
 */
export const bundle = (
  tools: ReadonlyArray<PlainTool>,
  options: Pick<Options, "credentials"> = {}
): Effect.Effect<Rooted, ServeToolsError> => Effect.map(rootTools(tools, options), rooted)

/**
 * A bundle of root tools alone.
 *
 * @example
 * ```ts
 * import type { ServeTools } from "effect-surface/serve"
 * declare const bundle: ServeTools.Rooted
 * const names = Object.keys(bundle.tools)
 * ```
 *
 * @since 0.1.0
 */
export interface Rooted {
  readonly core: Bundle.Member
  readonly tools: Bundle.RootTools
}

/**
 * Root tools as a bundle of their own: what a face serves when there is no surface, only tools.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Tools from "effect-surface/tools"
 * import { ServeTools } from "effect-surface/serve"
 *
 * const bundle = ServeTools.rooted({ ping: Tools.make({ description: "Answer pong.", mutates: false, handler: () => Effect.succeed("pong") }) })
 * ```
 *
 * @since 0.1.0
 */
export const rooted = (tools: Bundle.RootTools): Rooted => ({ core: { surface: Nothing, expose: {} }, tools })

/**
 * The MCP face's options for plain tools: the face's settings, the `bundle`, and no clients to
 * dial. What every Effect form here serves.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpServer } from "effect-surface/mcp"
 * import { ServeTools } from "effect-surface/serve"
 *
 * declare const lookup: ServeTools.PlainTool
 * const layer = Effect.map(ServeTools.faceOptions([lookup], { serverInfo: { name: "desk", version: "1.0.0" } }), McpServer.layerStdio)
 * ```
 *
 * @since 0.1.0
 */
export const faceOptions = (
  tools: ReadonlyArray<PlainTool>,
  options: Options = {}
): Effect.Effect<McpServerOptions, ServeToolsError> => {
  const { credentials, ...settings } = options
  return Effect.map(bundle(tools, { credentials }), (served): McpServerOptions => ({
    ...settings,
    ...served,
    client: Effect.succeed({ clients: {} })
  }))
}

/**
 * The plain tools as an `McpServer` with no transport yet: connect one (`server.connect`) or serve it
 * over HTTP with `McpHttp.layerServer`.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { McpHttp } from "effect-surface/mcp"
 * import { ServeTools } from "effect-surface/serve"
 *
 * declare const lookup: ServeTools.PlainTool
 * const app = McpHttp.layerServer({ port: 3000 }).pipe(Layer.provide(ServeTools.layer([lookup])))
 * ```
 *
 * @since 0.1.0
 */
export const layer = (
  tools: ReadonlyArray<PlainTool>,
  options?: Options
): Layer.Layer<McpServer, ServeToolsError | ResolveError.ResolveError> =>
  Layer.unwrap(Effect.map(faceOptions(tools, options), (face) => McpServer.layer(face)))

/**
 * The plain tools served over this process's stdio for the layer's life (`McpServer.layerStdio`:
 * only protocol on stdout); `McpServedConnection`'s `closed` says when the host has gone.
 *
 * @example
 * ```ts
 * import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
 * import { Effect } from "effect"
 * import { McpServedConnection } from "effect-surface/mcp"
 * import { ServeTools } from "effect-surface/serve"
 *
 * declare const lookup: ServeTools.PlainTool
 * Effect.flatMap(Effect.service(McpServedConnection), (connection) => connection.closed).pipe(
 *   Effect.provide(ServeTools.layerStdio([lookup])),
 *   NodeRuntime.runMain
 * )
 * ```
 *
 * @since 0.1.0
 */
export const layerStdio = (
  tools: ReadonlyArray<PlainTool>,
  options?: Options
): Layer.Layer<McpServer | McpServedConnection, ServeToolsError | ResolveError.ResolveError> =>
  Layer.unwrap(Effect.map(faceOptions(tools, options), (face) => McpServer.layerStdio(face)))

/**
 * The plain tools served over Streamable HTTP (`McpHttp.layer`), listening once the layer is built;
 * `McpHttp.Endpoint` says where.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpHttp } from "effect-surface/mcp"
 * import { ServeTools } from "effect-surface/serve"
 *
 * declare const lookup: ServeTools.PlainTool
 * const program = Effect.flatMap(Effect.service(McpHttp.Endpoint), (endpoint) => Effect.log(endpoint.url)).pipe(
 *   Effect.provide(ServeTools.layerHttp([lookup], { port: 0, host: "127.0.0.1" }))
 * )
 * ```
 *
 * @since 0.1.0
 */
export const layerHttp = (
  tools: ReadonlyArray<PlainTool>,
  http: McpHttp.HttpOptions,
  options?: Options
): Layer.Layer<McpHttp.Endpoint, ServeToolsError | ResolveError.ResolveError | ServeError | HttpChecks.UnguardedBind> =>
  Layer.unwrap(Effect.map(faceOptions(tools, options), (face) => McpHttp.layer({ ...face, http })))
