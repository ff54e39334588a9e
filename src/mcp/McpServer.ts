/**
 * Serving a rooted bundle of surfaces as an MCP server: the Effect API and the Promise API over it.
 *
 * The Effect API is a service — the shared face plus `connect` for a transport — built by a scoped
 * `Layer`, so an Effect app composes it like any other resource and a roster move is one call on the
 * service. The Promise API, for callers outside Effect, is that same layer run by a `ManagedRuntime`:
 * one implementation, two doors.
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
import type * as Prompts from "./Prompts.ts"
import * as Session from "./Session.ts"

/**
 * The served bundle: its shared face, and `connect` to serve it on one more transport.
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
   * import { McpServer } from "effect-surface/mcp"
   *
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
   * The face, connected to one transport for the layer's life.
   *
   * @since 0.1.0
   */
  static readonly layerTransport = <E, R>(
    options: Face.Options<E, R>,
    transport: Transport
  ): Layer.Layer<McpServer | McpSession, Resolver.ResolveError, Exclude<R, Scope.Scope>> =>
    Layer.effectContext(Effect.gen(function*() {
      const face = yield* Face.make(options)
      const session = yield* Session.connect(face, transport)
      return Context.make(McpServer, McpServer.of({ ...face, connect: (t) => Session.connect(face, t) })).pipe(
        Context.add(McpSession, session)
      )
    }))
}

/**
 * The session a `layerTransport` connected.
 *
 * @since 0.1.0
 */
export class McpSession extends Context.Service<McpSession, Session.Session>()("effect-surface/McpSession") {}

/**
 * Serve a bundle over this process's stdin and stdout until the host disconnects. Nothing but
 * protocol reaches stdout: Effect logs go to stderr, and so does `console.log` while serving (a
 * stray print from a handler would otherwise corrupt the stream).
 *
 * @example
 * ```ts
 * import { NodeRuntime } from "@effect/platform-node"
 * import { McpServer } from "effect-surface/mcp"
 *
 * NodeRuntime.runMain(McpServer.serveStdio(options))
 * ```
 *
 * @since 0.1.0
 */
export const serveStdio = <E, R>(options: Face.Options<E, R>): Effect.Effect<void, Resolver.ResolveError, Exclude<R, Scope.Scope>> =>
  Effect.gen(function*() {
    yield* stdoutToStderr
    const face = yield* Face.make(options)
    const session = yield* Session.connect(face, new StdioServerTransport())
    // The SDK's stdio transport does not notice its input ending, so a host that closes our stdin
    // would leave this process running; the end of stdin is the end of the session.
    yield* Effect.raceFirst(session.closed, stdinEnded)
  }).pipe(Effect.scoped, Effect.provideService(Logger.LogToStderr, true))

const stdinEnded: Effect.Effect<void> = Effect.callback<void>((resume) => {
  const done = () => resume(Effect.void)
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
 * A connection the Promise API's client factory may return when it owns a transport.
 *
 * @since 0.1.0
 */
export interface OwnedConnection {
  readonly client: Bundle.Clients
  readonly dispose: () => void | Promise<void>
  readonly onClose?: (listener: () => void) => void
}

/**
 * Options of the Promise API.
 *
 * @since 0.1.0
 */
export interface ServeOptions extends Omit<Face.Options, "client" | "instructions"> {
  /** Re-invoked after a drop and after every `reroster`: read the current roster, don't close over one. */
  readonly client: () => Bundle.Clients | OwnedConnection | Promise<Bundle.Clients | OwnedConnection>
  readonly instructions?: string | (() => string)
  /** Defaults to this process's stdio. */
  readonly transport?: Transport
}

/**
 * What the Promise API answers.
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
  readonly close: () => Promise<void>
}

const isOwnedConnection = (u: Bundle.Clients | OwnedConnection): u is OwnedConnection =>
  "dispose" in u && typeof u.dispose === "function"

/**
 * Serve a bundle as an MCP server from outside Effect.
 *
 * @example
 * ```ts
 * import { serveSurfaceAsMcp } from "effect-surface/mcp"
 *
 * const { reroster, close } = await serveSurfaceAsMcp({
 *   core: { surface: Todos, expose: { procedures: { "todo.add": true } } },
 *   client: () => ({ core: todosClient, clients: {} })
 * })
 * ```
 *
 * @since 0.1.0
 */
export const serveSurfaceAsMcp = async (options: ServeOptions): Promise<Served> => {
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
  const runtime = ManagedRuntime.make(
    McpServer.layerTransport(faceOptions, transport ?? new StdioServerTransport()).pipe(
      Layer.provide(transport === undefined ? Layer.succeed(Logger.LogToStderr, true) : Layer.empty)
    )
  )
  const session = await runtime.runPromise(Effect.service(McpSession))
  const server = await runtime.runPromise(Effect.service(McpServer))
  return {
    server: session.server,
    reroster: (surfaces) => runtime.runPromise(server.reroster(surfaces)),
    setTools: (tools) => runtime.runPromise(server.setTools(tools)),
    setPrompts: (prompts) => runtime.runPromise(server.setPrompts(prompts)),
    setResources: (resources) => runtime.runPromise(server.setResources(resources)),
    close: () => runtime.dispose()
  }
}
