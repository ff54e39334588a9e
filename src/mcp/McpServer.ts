/**
 * Serving a rooted bundle of surfaces as an MCP server: the Effect API and the Promise API over it.
 *
 * The Effect API is a service — the shared face plus `connect` for a transport — built by a scoped
 * `Layer`, so an Effect app composes it like any other resource and a roster move is one call on the
 * service. The Promise API, for callers outside Effect, is that same layer run by a `ManagedRuntime`:
 * one implementation, two doors. Over stdio both doors go through one path, `layerStdio`: nothing but
 * protocol reaches stdout, and the end of stdin ends the session.
 *
 * @since 0.1.0
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { Context, Effect, Layer, Logger, ManagedRuntime } from "effect"
import type { Scope } from "effect"
import type * as Bundle from "../core/Bundle.ts"
import type * as ConnectionPool from "../core/ConnectionPool.ts"
import type * as Resolver from "../core/Resolver.ts"
import type * as AppResources from "./AppResources.ts"
import * as Face from "./Face.ts"
import type * as Http from "./Http.ts"
import { boot, moves } from "./internal/promiseRuntime.ts"
import type * as Prompts from "./Prompts.ts"
import { boundLines } from "./internal/stdioLines.ts"
import * as Session from "./Session.ts"

/**
 * The served bundle: its shared face, and `connect` to serve it on one more transport.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
 * import { McpServer } from "effect-surface/mcp"
 *
 * declare const transport: Transport
 * const serveOne = Effect.gen(function*() {
 *   const server = yield* McpServer
 *   const session = yield* server.connect(transport)
 *   yield* session.closed
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
export class McpServer extends Context.Service<McpServer, Face.Face & {
  readonly connect: (transport: Transport) => Effect.Effect<Session.Session, never, Scope.Scope>
}>()("effect-surface/McpServer") {
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
  static readonly layer = <E, R>(options: Face.Options<E, R>): Layer.Layer<McpServer, Resolver.ResolveError, Exclude<R, Scope.Scope>> =>
    Layer.effect(
      McpServer,
      Effect.map(Face.make(options), (face) => McpServer.of({ ...face, connect: (transport) => Session.connect(face, transport) }))
    )

  /**
   * The face, connected to one transport for the layer's life (or until the host disconnects:
   * `McpSession`'s `closed` says when).
   *
   * @example
   * ```ts
   * import { Effect } from "effect"
   * import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
   * import { McpFace, McpServer, McpSession } from "effect-surface/mcp"
   *
   * declare const options: McpFace.Options
   * const [, serverSide] = InMemoryTransport.createLinkedPair()
   * const untilTheHostLeaves = Effect.flatMap(Effect.service(McpSession), (session) => session.closed).pipe(
   *   Effect.provide(McpServer.layerTransport(options, serverSide))
   * )
   * ```
   *
   * @since 0.1.0
   */
  static readonly layerTransport = <E, R>(
    options: Face.Options<E, R>,
    transport: Transport
  ): Layer.Layer<McpServer | McpSession, Resolver.ResolveError, Exclude<R, Scope.Scope>> =>
    Layer.effectContext(Effect.flatMap(Face.make(options), (face) => served(face, Session.connect(face, transport))))

  /**
   * The face served over this process's stdin and stdout: the one stdio path both doors take.
   * While the layer lives, nothing but protocol reaches stdout — Effect's logs go to stderr, and so
   * does `console.log` (a stray print from a handler would otherwise corrupt the stream) — and the
   * end of stdin (the host closed it) ends the session, so `McpSession`'s `closed` completes and the
   * process can exit instead of outliving its host.
   *
   * @example
   * ```ts
   * import { Effect } from "effect"
   * import { McpFace, McpServer, McpSession } from "effect-surface/mcp"
   *
   * declare const options: McpFace.Options
   * const serve = Effect.flatMap(Effect.service(McpSession), (session) => session.closed).pipe(
   *   Effect.provide(McpServer.layerStdio(options))
   * )
   * ```
   *
   * @since 0.1.0
   */
  static readonly layerStdio = <E, R>(
    options: Face.Options<E, R>
  ): Layer.Layer<McpServer | McpSession, Resolver.ResolveError, Exclude<R, Scope.Scope>> =>
    Layer.effectContext(Effect.gen(function*() {
      // Before anything else, so nothing the boot prints reaches stdout either.
      yield* stdoutToStderr
      const face = yield* Face.make(options)
      return yield* served(face, connectStdio(face))
    })).pipe(Layer.provideMerge(Layer.succeed(Logger.LogToStderr, true)))
}

const served = (face: Face.Face, connecting: Effect.Effect<Session.Session, never, Scope.Scope>) =>
  Effect.map(connecting, (session) =>
    Context.make(McpServer, McpServer.of({ ...face, connect: (t) => Session.connect(face, t) })).pipe(
      Context.add(McpSession, session)
    ))

const maxStdioLine = 8 * 1024 * 1024

// The SDK's stdio transport does not notice its input ending, so a host that closes our stdin would
// leave the session (and the process) running: the end of stdin closes the server, which ends it.
const connectStdio = (face: Face.Face): Effect.Effect<Session.Session, never, Scope.Scope> =>
  Effect.gen(function*() {
    // The drop is reported from a stream callback: run the log line in this session's context.
    const logDropped = Effect.runForkWith(yield* Effect.context<never>())
    // Below the SDK's own 10 MiB line buffer, so a line it would close the transport on is dropped first.
    const input = process.stdin.pipe(boundLines(maxStdioLine, (bytes) => {
      logDropped(Effect.logWarning(`dropped a ${bytes}-byte line on stdin: longer than the ${maxStdioLine}-byte bound`))
    }))
    const session = yield* Session.connect(face, new StdioServerTransport(input, process.stdout))
    yield* stdinEnded.pipe(
      Effect.andThen(Effect.promise(() => session.server.close())),
      Effect.raceFirst(session.closed),
      Effect.forkScoped
    )
    return session
  })

/**
 * The session a `layerTransport` or `layerStdio` connected.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpSession } from "effect-surface/mcp"
 * const untilTheHostLeaves = Effect.flatMap(Effect.service(McpSession), (session) => session.closed)
 * ```
 *
 * @since 0.1.0
 */
export class McpSession extends Context.Service<McpSession, Session.Session>()("effect-surface/McpSession") {}

/**
 * Serve a bundle over this process's stdin and stdout until the host disconnects (or closes stdin).
 * Nothing but protocol reaches stdout: Effect logs go to stderr, and so does `console.log` while
 * serving (a stray print from a handler would otherwise corrupt the stream). `McpServer.layerStdio`
 * run to the session's end.
 *
 * @example
 * ```ts
 * import { NodeRuntime } from "@effect/platform-node"
 * import { McpFace, serveStdio } from "effect-surface/mcp"
 *
 * declare const options: McpFace.Options
 * NodeRuntime.runMain(serveStdio(options))
 * ```
 *
 * @since 0.1.0
 */
export const serveStdio = <E, R>(options: Face.Options<E, R>): Effect.Effect<void, Resolver.ResolveError, Exclude<R, Scope.Scope>> =>
  Effect.flatMap(Effect.service(McpSession), (session) => session.closed).pipe(Effect.provide(McpServer.layerStdio(options)))

const stdinEnded: Effect.Effect<void> = Effect.callback<void>((resume) => {
  const done = () => resume(Effect.void)
  // Ended before anyone listened (a host that wrote its requests and closed at once): ended now.
  if (process.stdin.readableEnded || process.stdin.destroyed) return done()
  process.stdin.once("end", done).once("close", done)
  return Effect.sync(() => {
    process.stdin.off("end", done).off("close", done)
  })
})

// The console methods that write to stdout, sent to stderr for the scope's life.
const stdoutToStderr = Effect.acquireRelease(
  Effect.sync(() => {
    const saved = { log: console.log, info: console.info, debug: console.debug }
    console.log = console.info = console.debug = console.error
    return saved
  }),
  (saved) => Effect.sync(() => Object.assign(console, saved))
)

/**
 * A connection the Promise API's client factory may return when it owns a transport: `dispose`
 * runs once, when the connection is retired, dropped or the server closes.
 *
 * @example
 * ```ts
 * import type { Bundle } from "effect-surface"
 * import type { OwnedConnection } from "effect-surface/mcp"
 * import * as Net from "node:net"
 *
 * declare const clientsOver: (socket: Net.Socket) => Bundle.Clients
 * const dial = (): OwnedConnection => {
 *   const socket = Net.connect("/tmp/board.sock")
 *   return { client: clientsOver(socket), dispose: () => { socket.destroy() }, onClose: (f) => { socket.once("close", f) } }
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface OwnedConnection {
  readonly client: Bundle.Clients
  readonly dispose: () => void | Promise<void>
  readonly onClose?: (listener: () => void) => void
}

/**
 * Options of the Promise API: a face's options, with a client factory and instructions as plain
 * functions, and the transport to serve on (this process's stdio when omitted, Streamable HTTP
 * with `{ transport: "http" }`).
 *
 * @example
 * ```ts
 * import type { Bundle, Surface } from "effect-surface"
 * import type { ServeOptions } from "effect-surface/mcp"
 *
 * declare const Todos: Surface.Spec
 * declare const todosClients: Bundle.Clients
 * const options: ServeOptions = {
 *   core: { surface: Todos, expose: {} },
 *   client: () => todosClients,
 *   instructions: () => "A todo list."
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface ServeOptions extends Omit<Face.Options, "client" | "instructions"> {
  /** Re-invoked after a drop and after every `reroster`: read the current roster, don't close over one. */
  readonly client: () => Bundle.Clients | OwnedConnection | Promise<Bundle.Clients | OwnedConnection>
  readonly instructions?: string | (() => string)
  /** Defaults to this process's stdio. */
  readonly transport?: Transport | Http.HttpTransport
}

/**
 * What the Promise API answers: the SDK server, the run-time moves, and the end.
 *
 * @example
 * ```ts
 * import type { Served } from "effect-surface/mcp"
 *
 * declare const served: Served
 * await served.setPrompts({})
 * await served.closed // the host disconnected (or closed stdin), and everything was disposed
 * ```
 *
 * @since 0.1.0
 */
export interface Served {
  readonly server: Session.Session["server"]
  /** Replace the sibling map whole; rejects (leaving the old roster serving) when refused. */
  readonly reroster: (surfaces: { readonly [sibling: string]: Bundle.Sibling }) => Promise<void>
  /** Replace the root tools whole; rejects (leaving the old tools serving) on a clash. */
  readonly setTools: (tools: { readonly [name: string]: Bundle.BespokeTool<Bundle.Clients> }) => Promise<void>
  /** Replace the prompts whole. */
  readonly setPrompts: (prompts: Prompts.Table) => Promise<void>
  /** Replace the app's resources whole; rejects when one claims `surface:`. */
  readonly setResources: (resources: AppResources.Table) => Promise<void>
  /** Stop serving and dispose everything, every connection the client factory opened included. */
  readonly close: () => Promise<void>
  /** Settles once the session has ended — the host disconnected, stdin ended, or `close` — and all is disposed. */
  readonly closed: Promise<void>
}

const isOwnedConnection = (u: Bundle.Clients | OwnedConnection): u is OwnedConnection =>
  "dispose" in u && typeof u.dispose === "function"

/**
 * Serve a bundle as an MCP server from outside Effect, on one transport (this process's stdio by
 * default, through `McpServer.layerStdio`, the same path as `serveStdio`). When the host disconnects
 * (or closes stdin) everything is disposed as by `close`, and `closed` settles. A bundle that is
 * refused rejects, with nothing left running. With `transport: { transport: "http", ... }` it is
 * served over Streamable HTTP by `McpHttp.serve`, and resolves once listening, with the bound
 * `port` and `url`.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Client, Implementation, Surface } from "effect-surface"
 * import { serveSurfaceAsMcp } from "effect-surface/mcp"
 *
 * const Todos = Surface.make({ procedures: { todo: { add: { input: Schema.String, output: Schema.String, mutates: true } } } })
 * const todosClient = Client.erase(Client.directDispatch(Implementation.make(Todos, {
 *   procedures: { todo: { add: (title) => Effect.succeed(title) } }
 * })))
 *
 * const { reroster, close } = await serveSurfaceAsMcp({
 *   core: { surface: Todos, expose: { procedures: { "todo.add": true } } },
 *   client: () => ({ core: todosClient, clients: {} })
 * })
 *
 * // The same bundle over Streamable HTTP, on a port the system picks.
 * const { url } = await serveSurfaceAsMcp({
 *   core: { surface: Todos, expose: { procedures: { "todo.add": true } } },
 *   client: () => ({ core: todosClient, clients: {} }),
 *   transport: { transport: "http", port: 0, host: "127.0.0.1" }
 * })
 * ```
 *
 * @since 0.1.0
 */
export const serveSurfaceAsMcp = (async (options: ServeOptions): Promise<Served | Http.HttpServed> => {
  const { client, instructions, transport, ...rest } = options
  // The factory's transport is released by the pool through the dial's scope on every exit path.
  const dial = Effect.acquireRelease(
    Effect.tryPromise(async () => client()),
    (opened) => isOwnedConnection(opened) ? Effect.promise(async () => opened.dispose()).pipe(Effect.ignore) : Effect.void
  ).pipe(Effect.map((opened): Bundle.Clients | ConnectionPool.Owned<Bundle.Clients> =>
    isOwnedConnection(opened)
      ? { client: opened.client, dispose: Effect.void, ...(opened.onClose === undefined ? {} : { onClose: opened.onClose }) }
      : opened
  ))
  const faceOptions: Face.Options<unknown, Scope.Scope> = {
    ...rest,
    client: dial,
    ...(instructions === undefined ? {} : { instructions: typeof instructions === "string" ? instructions : Effect.sync(instructions) })
  }
  // Loaded only for this door, so serving over stdio never loads the HTTP stack.
  if (transport !== undefined && isHttp(transport)) return (await import("./internal/httpPromise.ts")).serve(faceOptions, transport)
  const runtime = ManagedRuntime.make(
    transport === undefined ? McpServer.layerStdio(faceOptions) : McpServer.layerTransport(faceOptions, transport)
  )
  const [session, server] = await boot(runtime, Effect.all([Effect.service(McpSession), Effect.service(McpServer)]))
  // Disposed from outside the runtime: a fiber of the runtime cannot dispose it.
  const closed = runtime.runPromise(session.closed).then(() => runtime.dispose(), () => runtime.dispose())
  return { server: session.server, ...moves(runtime, server), close: () => runtime.dispose(), closed }
}) as {
  (options: ServeOptions & { readonly transport: Http.HttpTransport }): Promise<Http.HttpServed>
  (options: ServeOptions): Promise<Served>
}

const isHttp = (transport: Transport | Http.HttpTransport): transport is Http.HttpTransport =>
  "transport" in transport && transport.transport === "http"
