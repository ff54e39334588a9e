/**
 * The one live connection a face dispatches over, and every rule about when it stops being live.
 *
 * A face that bridges a running daemon dials it once and shares that connection between every
 * request. The daemon can restart under it: the transport may announce its close (drop the
 * connection at once, and answer a call still pending on it), may be born dead (announce its close
 * while it is being registered), or may die with a request in flight (the request's outcome is then
 * unknown). Each face would otherwise re-learn these rules on its own; here they are decided once.
 * The invariant it keeps is that only dials are ever repeated — a dial carries no caller intent, and
 * one starts only when a request needs a connection — and a request is never replayed.
 * The slot is hand-built rather than on `RcRef` because, with every pool test green on both, the
 * RcRef build cost 1.6–2.8× as much per `pool.use` (its `Scope` per call against a lease counter;
 * `pool.use.*.vs_rcref` in `npm run bench`, `BENCH_ONLY=pool`, peer in `bench/lib/rcPool.ts`).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as SynchronizedRef from "effect/SynchronizedRef"
import type * as Owned from "../surface/Owned.ts"
import type { LinkError } from "../surface/LinkError.ts"
import type * as Bundle from "./Bundle.ts"
import * as internal from "./internal/pool.ts"
import { ConnectionLost, DialFailed, PoolClosed } from "./internal/poolErrors.ts"
import * as Slot from "./internal/poolSlot.ts"

/**
 * No live connection could be opened: every dial failed (a typed failure, a defect, or a dial that
 * interrupted itself) or was born dead. Nothing was sent.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ConnectionPool } from "effect-surface"
 *
 * const program = (pool: ConnectionPool.Pool<{ readonly ping: Effect.Effect<string> }>) =>
 *   pool.use((client) => client.ping).pipe(Effect.catchTag("DialFailed", (e) => Effect.succeed(e.message)))
 * ```
 *
 * @since 0.1.0
 */
export { DialFailed } from "./internal/poolErrors.ts"

/**
 * The connection a call went out on died. `phase` is the `LinkError` phase that reported it, or
 * `"call"` when the transport announced its close while the call was pending (the call is then
 * interrupted). `"call"` means the call was sent and its outcome is unknown; `"dial"`/`"closed"` mean
 * it never reached the served side. Either way the pool has dropped the connection and did not replay.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ConnectionPool } from "effect-surface"
 *
 * const once = (pool: ConnectionPool.Pool<{ readonly ping: Effect.Effect<string> }>) =>
 *   pool.use((client) => client.ping)
 * // only a call that never reached the served side is safe to send again
 * const atMostTwice = (pool: ConnectionPool.Pool<{ readonly ping: Effect.Effect<string> }>) =>
 *   once(pool).pipe(Effect.catchTag("ConnectionLost", (e) => e.phase === "call" ? Effect.fail(e) : once(pool)))
 * ```
 *
 * @since 0.1.0
 */
export { ConnectionLost } from "./internal/poolErrors.ts"

/**
 * The pool was closed: no dial starts any more.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ConnectionPool } from "effect-surface"
 *
 * const quietly = (pool: ConnectionPool.Pool<{ readonly ping: Effect.Effect<string> }>) =>
 *   pool.use((client) => client.ping).pipe(Effect.catchTag("PoolClosed", () => Effect.succeed("shut down")))
 * ```
 *
 * @since 0.1.0
 */
export { PoolClosed } from "./internal/poolErrors.ts"

/**
 * How to reach the served side and how hard to try. `dial` yields an {@link Owned.Owned} connection or a
 * bare client; it is re-run after every drop and retire, so it must read the current target. It is
 * handed a `Scope` that lives as long as the connection: a dial that releases what it opened with
 * `Effect.acquireRelease` in it is covered on every way out — a typed failure, a defect, or an
 * interruption the instant it lands — which returning `dispose` alone cannot promise.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ConnectionPool, LinkError, type Owned } from "effect-surface"
 *
 * interface Todos { readonly list: Effect.Effect<ReadonlyArray<string>, LinkError> }
 * declare const dialTodos: Effect.Effect<Owned.Owned<Todos>, LinkError>
 *
 * const options: ConnectionPool.Options<Todos, LinkError, never> = {
 *   dial: dialTodos,
 *   name: "todos.sock",
 *   dialTimeout: "5 seconds"
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Options<C, E, R> {
  readonly dial: Effect.Effect<Owned.Owned<C> | C, E, R>
  /** What the link reaches, named in every message (default "the served surface"). */
  readonly name?: string | undefined
  /** What keeps running when the link drops, named in ConnectionLost (default "The server"). */
  readonly server?: string | undefined
  /** Dials per acquisition before failing loudly, born-dead and failed ones alike (default 3). */
  readonly maxDials?: number | undefined
  /** Spacing between those dials (default exponential from 50 millis). */
  readonly backoff?: Schedule.Schedule<unknown> | undefined
  /** Deadline for one dial; past it the dial is interrupted and counts as failed. */
  readonly dialTimeout?: Duration.Input | undefined
  /** Extra wait after registering `onClose` within which a close still means born dead. */
  readonly settle?: Duration.Input | undefined
}

/**
 * A running pool. `use` is the request path: it leases the connection for the call, so `retire`
 * waits for the call before disposing; it re-frames a `LinkError` into {@link ConnectionLost}, and
 * answers a call still pending when the transport announces its close the same way.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ConnectionPool, LinkError } from "effect-surface"
 *
 * interface Todos { readonly list: Effect.Effect<ReadonlyArray<string>, LinkError> }
 *
 * const listTwice = (pool: ConnectionPool.Pool<Todos>) =>
 *   Effect.gen(function*() {
 *     const before = yield* pool.use((todos) => todos.list)
 *     yield* pool.retire // the daemon moved: the next request dials afresh
 *     return [before, yield* pool.use((todos) => todos.list)] as const
 *   })
 * ```
 *
 * @since 0.1.0
 */
export interface Pool<C> {
  /** The current client, dialling if there is none. Unleased: prefer `use` for calls. */
  readonly get: Effect.Effect<C, DialFailed | PoolClosed>
  readonly use: <A, E, R>(
    f: (client: C) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, Exclude<E, LinkError> | ConnectionLost | DialFailed | PoolClosed, R>
  /** Drop the current connection (disposed once its leased calls end) and any dial in flight. */
  readonly retire: Effect.Effect<void>
  /** Dispose every connection, interrupt any dial, and refuse every later request. */
  readonly close: Effect.Effect<void>
  /** How many dials have started, across the pool's life. */
  readonly dials: Effect.Effect<number>
}

/**
 * Open a pool in the current scope; closing the scope is `close`. Nothing is dialled until the
 * first request, and N concurrent first requests share one dial.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ConnectionPool, LinkError, type Owned } from "effect-surface"
 *
 * interface Todos { readonly list: Effect.Effect<ReadonlyArray<string>, LinkError> }
 * declare const dialTodos: Effect.Effect<Owned.Owned<Todos>, LinkError>
 *
 * const program = Effect.scoped(Effect.gen(function*() {
 *   const pool = yield* ConnectionPool.make({ dial: dialTodos, name: "todos.sock" })
 *   return yield* pool.use((todos) => todos.list)
 * }))
 * ```
 *
 * @since 0.1.0
 */
export const make = <C, E = never, R = never>(
  options: Options<C, E, R>
): Effect.Effect<Pool<C>, never, Scope.Scope | Exclude<R, Scope.Scope>> =>
  Effect.gen(function*() {
    const target = options.name ?? "the served surface"
    // The whole context the pool was made in. A dial runs in it alone — replaced, not merged — so a
    // connection shared by every caller carries nothing of the request that happened to dial it
    // (its loggers, log level or annotations would otherwise follow the connection's fibers).
    const context = yield* Effect.context<Exclude<R, Scope.Scope>>()
    // Dial fibers, the close drainer and every connection live in this scope, so close() (or the
    // caller's scope closing) interrupts the first two and disposes the last, whoever started them.
    const inner = yield* Scope.fork(yield* Effect.scope)
    const m = Slot.machine<C>({
      target,
      server: options.server ?? "The server",
      maxDials: Math.max(1, Math.floor(options.maxDials ?? 3)),
      backoff: options.backoff ?? Schedule.exponential("50 millis"),
      closedError: new PoolClosed({ target }),
      state: yield* SynchronizedRef.make<internal.State<C>>(internal.idle),
      inner,
      // Transports announce their close through a callback; the callback only enqueues, and one
      // fiber turns each announcement into a drop, so no Effect is run from inside a transport.
      closes: yield* Queue.unbounded<internal.Conn<C>>(),
      dialCount: yield* Ref.make(0),
      dial: internal.dialIn(options.dial, options.dialTimeout, context),
      settle: options.settle
    })
    const close = Slot.close(m, inner)
    yield* Effect.addFinalizer(() => close)
    yield* Queue.take(m.closes).pipe(Effect.flatMap((conn) => Slot.kill(m, conn)), Effect.forever, Effect.forkIn(inner))
    return {
      get: Effect.map(m.live, (conn) => conn.client),
      use: <A, E2, R2>(f: (client: C) => Effect.Effect<A, E2, R2>) => Slot.use(m, f),
      retire: Slot.retire(m),
      close,
      dials: Ref.get(m.dialCount)
    } satisfies Pool<C>
  })

/**
 * The pool a face dispatches a bundle's calls and reads over, as a service: every face serving
 * one bundle in one process shares it, and a test provides its own.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Bundle } from "effect-surface"
 * import { ConnectionPool } from "effect-surface"
 *
 * declare const clients: Bundle.Clients
 * const program = Effect.gen(function*() {
 *   const pool = yield* ConnectionPool.ConnectionPool
 *   return yield* pool.use((c) => Effect.succeed(Object.keys(c.clients)))
 * }).pipe(Effect.provide(ConnectionPool.layer({ dial: Effect.succeed(clients) })))
 * ```
 *
 * @since 0.1.0
 */
export class ConnectionPool
  extends Context.Service<ConnectionPool, Pool<Bundle.Clients>>()("effect-surface/ConnectionPool")
{}

/**
 * Provide `ConnectionPool` over one dial of a bundle's clients; closing the layer disposes every
 * connection it opened.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Bundle } from "effect-surface"
 * import { ConnectionPool } from "effect-surface"
 *
 * declare const dialClients: Effect.Effect<Bundle.Clients>
 * const pool = ConnectionPool.layer({ dial: dialClients, name: "the board", server: "The MCP server" })
 * ```
 *
 * @since 0.1.0
 */
export const layer = <E = never, R = never>(
  options: Options<Bundle.Clients, E, R>
): Layer.Layer<ConnectionPool, never, Exclude<R, Scope.Scope>> => Layer.effect(ConnectionPool, make(options))
