/**
 * Serving a bundle from outside Effect: the Promise API, a `ManagedRuntime` over the Effect API.
 *
 * One door per transport, each the Effect API's own layer run by a runtime: this process's stdio
 * (`McpServer.layerStdio`, the same path as `serveStdio`), an injected SDK transport, or Streamable
 * HTTP (`McpHttp.layer`). The HTTP door is loaded only when asked for, so serving over stdio never
 * loads the HTTP stack.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import type * as Scope from "effect/Scope"
import type * as Bundle from "../core/Bundle.ts"
import type { Transport } from "../protocol/Transport.ts"
import type * as Owned from "../surface/Owned.ts"
import type * as AppResources from "./face/AppResources.ts"
import type * as Face from "./face/Face.ts"
import type * as Stateless from "./v2026/Stateless.ts"
import type * as Auth from "./auth/Auth.ts"
import type * as Http from "./Http.ts"
import { boot, door as doorOf, moves } from "./internal/promiseRuntime.ts"
import { McpServer, McpServedConnection } from "./McpServer.ts"
import type { Options, StdioOptions } from "./McpServer.ts"
import type * as Prompts from "./face/Prompts.ts"

/**
 * What a move of a Promise API server rejects with once it has closed (its `close`, or the host
 * leaving a stdio server), naming the move that was not run.
 *
 * @example
 * ```ts
 * import { ServerClosed } from "effect-surface/mcp"
 * new ServerClosed({ operation: "reroster" }).message // "the MCP server is closed, so reroster was not run."
 * ```
 *
 * @since 0.1.0
 */
export { ServerClosed } from "./internal/promiseRuntime.ts"

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
export interface ServeOptions extends Omit<Face.Options, "client" | "instructions">, Stateless.Options {
  /** Re-invoked after a drop and after every `reroster`: read the current roster, don't close over one. */
  readonly client: () => Bundle.Clients | OwnedConnection | Promise<Bundle.Clients | OwnedConnection>
  readonly instructions?: string | (() => string)
  /** Defaults to this process's stdio. */
  readonly transport?: Transport | HttpTransport
  /** When served on this process's stdio: how long the end of stdin waits for requests in flight (`McpServer.layerStdio`). */
  readonly stdio?: StdioOptions
}

/**
 * What the Promise API answers: the SDK server, the run-time moves, and the end. A move after the
 * server closed (`close`, or the host leaving) rejects with `ServerClosed`.
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
  /** Replace the sibling map whole; rejects (leaving the old roster serving) when refused. */
  readonly reroster: (surfaces: Bundle.Siblings) => Promise<void>
  /** Replace the root tools whole; rejects (leaving the old tools serving) on a clash. */
  readonly setTools: (tools: Bundle.RootTools) => Promise<void>
  /** Replace the prompts whole. */
  readonly setPrompts: (prompts: Prompts.Table) => Promise<void>
  /** Replace the app's resources whole; rejects when one claims `surface:`. */
  readonly setResources: (resources: AppResources.Table) => Promise<void>
  /** Stop serving and dispose everything, every connection the client factory opened included. */
  readonly close: () => Promise<void>
  /** Settles once the session has ended — the host disconnected, stdin ended, or `close` — and all is disposed. */
  readonly closed: Promise<void>
}

/**
 * The Promise API's HTTP door: `serveSurfaceAsMcp` over Streamable HTTP (`McpHttp.serve`) with these options.
 *
 * @example
 * ```ts
 * import type { HttpTransport } from "effect-surface/mcp"
 *
 * const http: HttpTransport = { transport: "http", port: 0, host: "127.0.0.1" }
 * ```
 *
 * @since 0.1.0
 */
export interface HttpTransport extends Http.HttpOptions {
  readonly transport: "http"
  /**
   * Serve behind an OAuth 2.1 resource server: bearer JWTs from `issuer`, checked against its
   * published keys (see `McpAuth`, `McpTokenVerifier.layerJwt`).
   */
  readonly auth?: Auth.Options & { readonly issuer: string }
}

/**
 * What the Promise API's HTTP door answers: where it listens, the run-time moves, and the end.
 *
 * @example
 * ```ts
 * import type { HttpServed } from "effect-surface/mcp"
 *
 * declare const served: HttpServed
 * console.log(`claude mcp add --transport http board ${served.url}`)
 * await served.close() // in-flight calls answer, every session ends, the port is released
 * ```
 *
 * @since 0.1.0
 */
export interface HttpServed extends Omit<Served, "closed"> {
  /** The endpoint's URL, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string
  readonly host: string
  /** The bound port (the one the system chose when `port` was 0). */
  readonly port: number
  /** Settles once `close` has stopped the server and disposed everything. */
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
export const serveSurfaceAsMcp = (async (options: ServeOptions): Promise<Served | HttpServed> => {
  const { client, instructions, transport, ...rest } = options
  // The factory's transport is released by the pool through the dial's scope on every exit path.
  const dial = Effect.acquireRelease(
    Effect.tryPromise(async () => client()),
    (opened) =>
      isOwnedConnection(opened) ? Effect.promise(async () => opened.dispose()).pipe(Effect.ignore) : Effect.void
  ).pipe(Effect.map((opened): Bundle.Clients | Owned.Owned<Bundle.Clients> =>
    isOwnedConnection(opened)
      ? {
        client: opened.client,
        dispose: Effect.void,
        ...(opened.onClose === undefined ? {} : { onClose: opened.onClose })
      }
      : opened
  ))
  const faceOptions: Options<unknown, Scope.Scope> & { readonly stdio?: StdioOptions | undefined } = {
    ...rest,
    client: dial,
    ...(instructions === undefined ? {}
      : { instructions: typeof instructions === "string" ? instructions : Effect.sync(instructions) })
  }
  // Loaded only for this door, so serving over stdio never loads the HTTP stack.
  if (transport !== undefined && isHttp(transport))
    return (await import("./HttpPromise.ts")).serve(faceOptions, transport)
  const door = doorOf(ManagedRuntime.make(
    transport === undefined ? McpServer.layerStdio(faceOptions) : McpServer.layerTransport(faceOptions, transport)
  ))
  const [session, server] = await boot(
    door,
    Effect.all([Effect.service(McpServedConnection), Effect.service(McpServer)])
  )
  // Closed from outside the runtime: a fiber of the runtime cannot dispose it.
  const closed = door.run("closed", session.closed).then(() => door.close(), () => door.close())
  return { ...moves(door, server), close: () => door.close(), closed }
}) as {
  (options: ServeOptions & { readonly transport: HttpTransport }): Promise<HttpServed>
  (options: ServeOptions): Promise<Served>
}

const isHttp = (transport: Transport | HttpTransport): transport is HttpTransport =>
  "transport" in transport && transport.transport === "http"
