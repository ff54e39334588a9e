/**
 * One connection over a message channel (stdio, an SDK transport), served in whichever revision its
 * client opens with.
 *
 * A stdio command is written once into a host's configuration and started by hosts of every age,
 * so it must answer both eras: a client that opens with `initialize` gets a 2025-11-25 session (the
 * SDK's `Server`, `McpSession2025`), and one that opens with `server/discover` or any request carrying
 * the 2026-07-28 envelope gets the stateless request path. The first message decides, for the life
 * of the connection, as the revision's stdio binding says; nothing in the face, its surfaces or its
 * tools differs between the two.
 *
 * A client need not wait for one answer before it writes the next request: what arrives while the
 * chosen path is being set up waits for it (`internal/channel.ts`), and `idle` says when every
 * request received has been answered, which a door whose input has ended waits for.
 *
 * @since 0.1.0
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import type * as Face from "./face/Face.ts"
import * as Channel from "./transport/channel.ts"
import * as Eras from "../protocol/Eras.ts"
import type { Transport } from "../protocol/Transport.ts"
import type * as Stateless from "./v2026/Stateless.ts"
import type * as Session from "./v2025/Session.ts"
import * as SessionOpen from "./v2025/internal/sessionOpen.ts"

/**
 * The era a connection speaks, named by its revision's date (see `McpEras`).
 *
 * @example
 * ```ts
 * import type { McpConnection } from "effect-surface/mcp"
 * const era: McpConnection.Era = "2026-07-28"
 * ```
 *
 * @since 0.1.0
 */
export type Era = Eras.Era

/**
 * A served connection.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { McpConnection } from "effect-surface/mcp"
 *
 * declare const connection: McpConnection.Connection
 * const report = Effect.gen(function*() {
 *   const era = yield* connection.era // waits for the client's first message
 *   yield* connection.closed
 *   return era
 * })
 * ```
 *
 * @since 0.1.0
 */
export interface Connection {
  /** Completes once the connection has ended (either side closed it, or its scope closed) and all it owned with it. */
  readonly closed: Effect.Effect<void>
  /** The era the client opened with; waits for its first message that chooses one (a discovery does not). */
  readonly era: Effect.Effect<Era>
  /** The 2025 session, when the client opened with `initialize`; none for a 2026 client (waits as `era` does). */
  readonly session: Effect.Effect<Option.Option<Session.Session>>
  /**
   * Completes once no request of the client's awaits its answer (at once when none does): each is
   * counted from its arrival until its answer is handed to the transport, or until its client
   * cancels it. A 2026 listen stream, answered only when the connection ends, is not counted.
   */
  readonly idle: Effect.Effect<void>
  /** How many of the client's requests await their answers now (none once the connection has ended). */
  readonly running: Effect.Effect<number>
}

// The 2026 request path (nine modules), loaded when a client first opens in that revision: a host
// starts a stdio server for every session and most still open with `initialize`, so a start does not
// wait for modules its client may never use.
const modernPath = Effect.promise(() =>
  Promise.all([
    import("./v2026/internal/requests.ts"),
    import("./v2026/internal/transport.ts"),
    import("./v2026/Stateless.ts")
  ])
)

/**
 * How a connection is served: a 2025 session's options (as `McpSession2025.connect` takes them), and
 * the server's resolved 2026-07-28 settings for a client that opens in that revision (else the
 * defaults, resolved when it opens).
 *
 * @example
 * ```ts
 * import type { McpConnection } from "effect-surface/mcp"
 * const options: McpConnection.ConnectOptions = { maxSubscriptions: 64 }
 * ```
 *
 * @since 0.1.0
 */
export interface ConnectOptions extends Session.ConnectOptions {
  readonly stateless?: Stateless.Stateless | undefined
}

/**
 * Serve `face` on `transport` until either side closes it or the scope closes, in the era the
 * client's first message opens (a `server/discover` before it is answered and chooses nothing). A 2025 session takes `options` as `McpSession2025.connect` does.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
 * import { McpConnection, McpFace } from "effect-surface/mcp"
 *
 * declare const options: McpFace.Options
 * const program = Effect.gen(function*() {
 *   const face = yield* McpFace.make(options)
 *   const connection = yield* McpConnection.connect(face, new StdioServerTransport())
 *   yield* connection.closed
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
export const connect = (
  face: Face.Face,
  transport: Transport,
  options: ConnectOptions = {}
): Effect.Effect<Connection, never, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Scope.fork(yield* Effect.scope)
    const closed = yield* Deferred.make<void>()
    const opened = yield* Deferred.make<Option.Option<Session.Session>>()
    yield* Scope.addFinalizer(scope, Deferred.succeed(closed, undefined))
    const runFork = Effect.runForkWith(yield* Effect.context<never>())
    const end = () => {
      runFork(Scope.close(scope, Exit.void))
    }
    // The 2026 path's state, made once: for a discovery answered before the era is chosen, then
    // for the path if the client goes on in 2026.
    const modernState = yield* Effect.cached(
      Effect.gen(function*() {
        const [Requests, , Stateless] = yield* modernPath
        return yield* Requests.make(face, options.stateless ?? (yield* Stateless.make({})))
      }).pipe(Scope.provide(scope))
    )
    // Every message waits in the channel until the path its first one chose starts it.
    const serve = (modern: boolean) =>
      modern
        ? Effect.gen(function*() {
          const [, ModernTransport] = yield* modernPath
          const ended = yield* ModernTransport.serve(yield* modernState, channel.transport)
          yield* Deferred.succeed(opened, Option.none())
          yield* Deferred.await(ended).pipe(Effect.andThen(Effect.sync(end)), Effect.forkScoped)
        })
        : Effect.gen(function*() {
          const session = yield* SessionOpen.connect(face, channel.transport, options)
          yield* Deferred.succeed(opened, Option.some(session))
          yield* session.closed.pipe(Effect.andThen(Effect.sync(end)), Effect.forkScoped)
        })
    const channel = Channel.make(transport, {
      first: (message) => {
        // A discovery chooses nothing: a client that asks it, then opens with `initialize` (as one
        // does whose discovery deadline passed), gets a 2025 session (see `McpEras.decides`).
        if (!Eras.decides(message)) {
          runFork(Effect.flatMap(
            Effect.zip(modernPath, modernState),
            ([[, ModernTransport], modern]) => ModernTransport.answerOne(modern, channel.transport, message)
          ))
          return false
        }
        runFork(serve(Eras.ofMessage(message) === "2026-07-28").pipe(Scope.provide(scope)))
        return true
      },
      closed: end
    })
    yield* Scope.addFinalizer(scope, Effect.promise(() => transport.close().catch(() => undefined)))
    yield* Effect.promise(() => transport.start())
    const session = Deferred.await(opened)
    return {
      closed: Deferred.await(closed),
      session,
      era: Effect.map(session, (legacy): Era => Option.isSome(legacy) ? "2025-11-25" : "2026-07-28"),
      idle: channel.idle,
      running: Effect.map(Deferred.isDone(closed), (done) => done ? 0 : channel.awaited())
    }
  })
