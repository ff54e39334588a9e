/**
 * Serving a rooted bundle of surfaces as an MCP server: the Effect API.
 *
 * The Effect API is a service — the shared face plus `connect` for a transport — built by a scoped
 * `Layer`, so an Effect app composes it like any other resource and a roster move is one call on the
 * service. The Promise API (`Promise.ts`) is these same layers run by a `ManagedRuntime`. Over stdio
 * both go through one path, `layerStdio`: nothing but protocol reaches stdout, and the end of stdin
 * ends the session once the requests already received have been answered.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as Bundle from "../core/Bundle.ts"
import * as ProtocolStdout from "../core/internal/protocolStdout.ts"
import type * as ResolveError from "../core/ResolveError.ts"
import type { Transport } from "../protocol/Transport.ts"
import * as Connection from "./Connection.ts"
import * as Face from "./face/Face.ts"
import * as StdioConnection from "./StdioConnection.ts"
import * as Stateless from "./v2026/Stateless.ts"

/**
 * A server's settings: the face's (how it introduces itself, what it serves beside the bundle,
 * scopes) and its 2026-07-28 path's (`McpStateless.Options`: request states, caching, tasks).
 *
 * @example
 * ```ts
 * import type { McpServerSettings } from "effect-surface/mcp"
 * const settings: McpServerSettings = { serverInfo: { name: "board", version: "1.0.0" }, tasks: { after: "2 seconds" } }
 * ```
 *
 * @since 0.1.0
 */
export interface Settings extends Face.Settings, Stateless.Options {}

/**
 * A bundle served by a server: the face's options (the bundle and its clients) and the 2026-07-28
 * path's settings.
 *
 * @example
 * ```ts
 * import type { McpServerOptions } from "effect-surface/mcp"
 * declare const options: McpServerOptions
 * const withTasks: McpServerOptions = { ...options, tasks: { after: "2 seconds" } }
 * ```
 *
 * @since 0.1.0
 */
export type Options<E = never, R = never, C extends Bundle.Clients = Bundle.Clients> =
  & Face.Options<E, R, C>
  & Stateless.Options

/**
 * The served bundle: its shared face, and `connect` to serve it on one more transport.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpServer } from "effect-surface/mcp"
 * import type { McpTransport } from "effect-surface/mcp"
 *
 * declare const transport: McpTransport.Transport
 * const serveOne = Effect.gen(function*() {
 *   const server = yield* McpServer
 *   const session = yield* server.connect(transport)
 *   yield* session.closed
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
export class McpServer extends Context.Service<
  McpServer,
  Face.Face & {
    /** The server's 2026-07-28 settings, resolved once for every 2026 path it opens. */
    readonly stateless: Stateless.Stateless
    /** Serve one more connection, in the revision its client opens with (see `McpConnection`). */
    readonly connect: (transport: Transport) => Effect.Effect<Connection.Connection, never, Scope.Scope>
  }
>()("effect-surface/McpServer") {
  /**
   * Build the face in the layer's scope. No transport is connected yet.
   *
   * @example
   * ```ts
   * import { Effect } from "effect"
   * import type { Surface } from "effect-surface"
   * import { McpFace, McpServer } from "effect-surface/mcp"
   *
   * declare const options: McpFace.Options
   * declare const Tasks: Surface.Spec
   * const program = Effect.gen(function*() {
   *   const server = yield* McpServer
   *   yield* server.reroster({ tasks: { surface: Tasks, expose: { cells: { count: true } } } })
   * }).pipe(Effect.provide(McpServer.layer(options)))
   * ```
   *
   * @since 0.1.0
   */
  static readonly layer: {
    <E, R, C extends Bundle.Clients>(
      options: Options<E, R, C>
    ): Layer.Layer<McpServer, ResolveError.ResolveError, Exclude<R, Scope.Scope>>
    (settings: Settings): Layer.Layer<McpServer, ResolveError.ResolveError, Face.Requires>
  } = <E, R, C extends Bundle.Clients>(options: Settings | Options<E, R, C>) =>
    Layer.effect(McpServer, Effect.map(serverOf(options), ([face, stateless]) => serviceOf(face, stateless)))

  /**
   * The face, connected to one transport for the layer's life (or until the host disconnects:
   * `McpServedConnection`'s `closed` says when).
   *
   * @example
   * ```ts
   * import { Effect } from "effect"
   * import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
   * import { McpFace, McpServer, McpServedConnection } from "effect-surface/mcp"
   *
   * declare const options: McpFace.Options
   * const [, serverSide] = InMemoryTransport.createLinkedPair()
   * const untilTheHostLeaves = Effect.flatMap(Effect.service(McpServedConnection), (connection) => connection.closed).pipe(
   *   Effect.provide(McpServer.layerTransport(options, serverSide))
   * )
   * ```
   *
   * @since 0.1.0
   */
  static readonly layerTransport: {
    <E, R, C extends Bundle.Clients>(
      options: Options<E, R, C>,
      transport: Transport
    ): Layer.Layer<McpServer | McpServedConnection, ResolveError.ResolveError, Exclude<R, Scope.Scope>>
    (
      settings: Settings,
      transport: Transport
    ): Layer.Layer<McpServer | McpServedConnection, ResolveError.ResolveError, Face.Requires>
  } = <E, R, C extends Bundle.Clients>(options: Settings | Options<E, R, C>, transport: Transport) =>
    Layer.effectContext(
      Effect.flatMap(
        serverOf(options),
        ([face, stateless]) => served(face, stateless, Connection.connect(face, transport, { stateless }))
      )
    )

  /**
   * The face served over this process's stdin and stdout: the one stdio path both doors take.
   * While the layer lives, nothing but protocol reaches stdout — Effect's logs go to stderr, and so
   * does `console.log` (a stray print from a handler would otherwise corrupt the stream). The end of
   * stdin (the host closed it) takes no more requests but lets those received finish and their
   * answers be written, for at most `stdio.drainTimeout`; then the session ends (interrupting any
   * still running), so `McpServedConnection`'s `closed` completes and the process can exit instead of
   * outliving its host.
   *
   * @example
   * ```ts
   * import { Effect } from "effect"
   * import { McpFace, McpServer, McpServedConnection } from "effect-surface/mcp/stdio"
   *
   * declare const options: McpFace.Options
   * const serve = Effect.flatMap(Effect.service(McpServedConnection), (connection) => connection.closed).pipe(
   *   Effect.provide(McpServer.layerStdio({ ...options, stdio: { drainTimeout: "5 seconds" } }))
   * )
   * ```
   *
   * @since 0.1.0
   */
  static readonly layerStdio: {
    <E, R, C extends Bundle.Clients>(
      options: Options<E, R, C> & Stdio
    ): Layer.Layer<McpServer | McpServedConnection, ResolveError.ResolveError, Exclude<R, Scope.Scope>>
    (settings: Settings & Stdio): Layer.Layer<McpServer | McpServedConnection, ResolveError.ResolveError, Face.Requires>
  } = <E, R, C extends Bundle.Clients>(options: (Settings | Options<E, R, C>) & Stdio) =>
    // The stdout guard is built first, so nothing the boot prints reaches stdout either.
    Layer.effectContext(
      Effect.flatMap(
        serverOf(options),
        ([face, stateless]) => served(face, stateless, connectStdio(face, stateless, options))
      )
    ).pipe(Layer.provideMerge(ProtocolStdout.layer))
}

/**
 * How a face is served over stdio, beside its own options (`{ ...options, stdio: { ... } }`).
 *
 * @example
 * ```ts
 * import type { StdioOptions } from "effect-surface/mcp/stdio"
 * const stdio: StdioOptions = { drainTimeout: "30 seconds" }
 * ```
 *
 * @since 0.1.0
 */
export interface StdioOptions {
  /**
   * How long, once stdin has ended, the requests already received may run for their answers to be
   * written before they are interrupted and the session ends. Default 10 seconds (as a Streamable
   * HTTP shutdown's); a host that closed stdin may stop the process sooner (the SDK's sends SIGTERM
   * after 2 seconds).
   */
  readonly drainTimeout?: Duration.Input
}

interface Stdio {
  readonly stdio?: StdioOptions | undefined
}

// Settings alone require the core from context; a bundle with its client factory brings the defaults.
// The 2026-07-28 settings are resolved beside the face, once, for every connection the server opens.
const serverOf = <E, R, C extends Bundle.Clients>(
  options: Settings | Options<E, R, C>
): Effect.Effect<
  readonly [Face.Face, Stateless.Stateless],
  ResolveError.ResolveError,
  Scope.Scope | Face.Requires | Exclude<R, Scope.Scope>
> => Effect.all([Face.isBundled(options) ? Face.make(options) : Face.make(options), Stateless.make(options)])

const serviceOf = (face: Face.Face, stateless: Stateless.Stateless): McpServer["Service"] =>
  McpServer.of({ ...face, stateless, connect: (transport) => Connection.connect(face, transport, { stateless }) })

const served = (
  face: Face.Face,
  stateless: Stateless.Stateless,
  connecting: Effect.Effect<Connection.Connection, never, Scope.Scope>
) =>
  Effect.map(
    connecting,
    (connection) =>
      Context.make(McpServer, serviceOf(face, stateless)).pipe(Context.add(McpServedConnection, connection))
  )

// Stdio settings sit beside the face's; the face ignores them.
const connectStdio = (
  face: Face.Face,
  stateless: Stateless.Stateless,
  options: Stdio
): Effect.Effect<Connection.Connection, never, Scope.Scope> =>
  StdioConnection.connect(
    face,
    stateless,
    Duration.fromInputUnsafe(options.stdio?.drainTimeout ?? "10 seconds"),
    process.stdin,
    process.stdout
  )

/**
 * The connection a `layerTransport` or `layerStdio` serves: a 2025 session or a 2026 client's
 * stateless requests, whichever its client opened with.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpServedConnection } from "effect-surface/mcp/stdio"
 * const untilTheHostLeaves = Effect.flatMap(Effect.service(McpServedConnection), (connection) => connection.closed)
 * ```
 *
 * @since 0.1.0
 */
export class McpServedConnection
  extends Context.Service<McpServedConnection, Connection.Connection>()("effect-surface/McpServedConnection")
{}

/**
 * Serve a bundle over this process's stdin and stdout until the host disconnects (or closes stdin,
 * and the requests it sent have been answered: see `McpServer.layerStdio`).
 * Nothing but protocol reaches stdout: Effect logs go to stderr, and so does `console.log` while
 * serving (a stray print from a handler would otherwise corrupt the stream). `McpServer.layerStdio`
 * run to the session's end. Import it from `effect-surface/mcp/stdio`, which loads no HTTP stack.
 *
 * @example
 * ```ts
 * import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
 * import { McpFace, serveStdio } from "effect-surface/mcp/stdio"
 *
 * declare const options: McpFace.Options
 * NodeRuntime.runMain(serveStdio(options))
 * ```
 *
 * @since 0.1.0
 */
export const serveStdio: {
  <E, R, C extends Bundle.Clients>(
    options: Options<E, R, C> & Stdio
  ): Effect.Effect<void, ResolveError.ResolveError, Exclude<R, Scope.Scope>>
  (settings: Settings & Stdio): Effect.Effect<void, ResolveError.ResolveError, Face.Requires>
} = <E, R, C extends Bundle.Clients>(options: (Settings | Options<E, R, C>) & Stdio) =>
  Effect.flatMap(Effect.service(McpServedConnection), (connection) => connection.closed).pipe(
    Effect.provide(
      Face.isBundled(options)
        ? McpServer.layerStdio(options)
        : McpServer.layerStdio(options) as Layer.Layer<
          McpServer | McpServedConnection,
          ResolveError.ResolveError,
          Face.Requires | Exclude<R, Scope.Scope>
        >
    )
  )
