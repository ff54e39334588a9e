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
 *
 * @since 0.1.0
 */
import { Deferred, Duration, Effect, Exit, Option, Predicate, Queue, Ref, Schedule, Schema, Scope, SynchronizedRef } from "effect"
import type { Context } from "effect"
import * as internal from "./internal/pool.ts"
import type { LinkError } from "./LinkError.ts"
import { messageOf } from "./ToolFailure.ts"

/**
 * A connection the dial opened and the pool now owns: `dispose` closes its transport (run at most
 * once, on every exit path; its failure is ignored) and `onClose` subscribes to the transport
 * announcing its own close. Omit `onClose` only when there is nothing that could announce it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ConnectionPool } from "effect-surface"
 * import * as Net from "node:net"
 *
 * const dial = Effect.sync((): ConnectionPool.Owned<Net.Socket> => {
 *   const socket = Net.connect("/tmp/app.sock")
 *   return { client: socket, dispose: Effect.sync(() => socket.destroy()), onClose: (f) => socket.once("close", f) }
 * })
 * ```
 *
 * @since 0.1.0
 */
export interface Owned<C> {
  readonly client: C
  readonly dispose: Effect.Effect<void, unknown>
  readonly onClose?: ((listener: () => void) => void) | undefined
}

/**
 * Tells an owned connection from a bare client. A bare client is one that has nothing to dispose
 * (an in-process dispatch), so a client must not itself carry both `client` and an Effect `dispose`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ConnectionPool } from "effect-surface"
 *
 * ConnectionPool.isOwned({ client: { ping: 1 }, dispose: Effect.void }) // true
 * ConnectionPool.isOwned({ ping: 1 }) // false: a bare client
 * ```
 *
 * @since 0.1.0
 */
export const isOwned: <C>(u: Owned<C> | C) => u is Owned<C> = internal.isOwned

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
export class DialFailed extends Schema.TaggedError<DialFailed>()("DialFailed", {
  target: Schema.String,
  /** Who is still running though the link is not ("The MCP server"), as the message says. */
  server: Schema.String,
  dials: Schema.Number,
  bornDead: Schema.Number,
  reason: Schema.String
}) {
  override get message(): string {
    const head = this.bornDead === this.dials
      ? `could not open a live connection to ${this.target}: all ${this.dials} dials were born dead ` +
        `(the transport announced its close while the connection was being registered)`
      : `could not open a connection to ${this.target} after ${this.dials} dial(s), ${this.bornDead} born dead: ` +
        this.reason
    return `${head}. Nothing was sent, so a retry is safe. ${this.server} is still running; the next request re-dials.`
  }
}

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
export class ConnectionLost extends Schema.TaggedError<ConnectionLost>()("ConnectionLost", {
  target: Schema.String,
  server: Schema.String,
  connection: Schema.Number,
  phase: Schema.Literals(["dial", "call", "closed"]),
  reason: Schema.String
}) {
  override get message(): string {
    const link = `connection #${this.connection} to ${this.target}`
    return this.phase === "call"
      ? `${link} dropped while a call was in flight (${this.reason}). ${this.server} is still running. ` +
        `The call's outcome is unknown: the served side may have acted and only the reply been lost, ` +
        `so it was not retried. The next request re-dials.`
      : `${link} was gone before the call reached it (${this.reason}): not reached — safe to retry. ` +
        `${this.server} is still running; the next request re-dials.`
  }
}

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
export class PoolClosed extends Schema.TaggedError<PoolClosed>()("PoolClosed", { target: Schema.String }) {
  override get message(): string {
    return `the connection to ${this.target} is shut down: no new connection is dialled after close.`
  }
}

/**
 * How to reach the served side and how hard to try. `dial` yields an {@link Owned} connection or a
 * bare client; it is re-run after every drop and retire, so it must read the current target. It is
 * handed a `Scope` that lives as long as the connection: a dial that releases what it opened with
 * `Effect.acquireRelease` in it is covered on every way out — a typed failure, a defect, or an
 * interruption the instant it lands — which returning `dispose` alone cannot promise.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ConnectionPool, LinkError } from "effect-surface"
 *
 * interface Todos { readonly list: Effect.Effect<ReadonlyArray<string>, LinkError> }
 * declare const dialTodos: Effect.Effect<ConnectionPool.Owned<Todos>, LinkError>
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
  readonly dial: Effect.Effect<Owned<C> | C, E, R>
  /** What the link reaches, named in every message (default "the served surface"). */
  readonly name?: string | undefined
  /** What keeps running when the link drops, named in ConnectionLost (default "The MCP server"). */
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

type Conn<C> = internal.Conn<C>
type Landing<C> = internal.Landing<C>
type Miss = internal.Miss

const isLinkError = (e: unknown): e is LinkError => Predicate.isTagged(e, "LinkError")

/**
 * Open a pool in the current scope; closing the scope is `close`. Nothing is dialled until the
 * first request, and N concurrent first requests share one dial.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ConnectionPool, LinkError } from "effect-surface"
 *
 * interface Todos { readonly list: Effect.Effect<ReadonlyArray<string>, LinkError> }
 * declare const dialTodos: Effect.Effect<ConnectionPool.Owned<Todos>, LinkError>
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
    const server = options.server ?? "The MCP server"
    const maxDials = Math.max(1, Math.floor(options.maxDials ?? 3))
    const backoff = options.backoff ?? Schedule.exponential("50 millis")
    const closedError = new PoolClosed({ target })
    // The whole context the pool was made in. A dial runs in it alone — replaced, not merged — so a
    // connection shared by every caller carries nothing of the request that happened to dial it
    // (its loggers, log level or annotations would otherwise follow the connection's fibers).
    const context = yield* Effect.context<Exclude<R, Scope.Scope>>()
    // Dial fibers, the close drainer and every connection live in this scope, so close() (or the
    // caller's scope closing) interrupts the first two and disposes the last, whoever started them.
    const inner = yield* Scope.fork(yield* Effect.scope)
    const state = yield* SynchronizedRef.make<internal.State<C>>(internal.idle)
    const dialCount = yield* Ref.make(0)
    // Transports announce their close through a callback; the callback only enqueues, and one
    // fiber turns each announcement into a drop, so no Effect is run from inside a transport.
    const closes = yield* Queue.unbounded<Conn<C>>()

    const deadline = options.dialTimeout === undefined ? undefined : Duration.fromInputUnsafe(options.dialTimeout)
    const dialIn = (scope: Scope.Scope): Effect.Effect<Owned<C> | C, Miss> => {
      const dial = options.dial.pipe(
        Effect.provideService(Scope.Scope, scope),
        Effect.updateContext((_: Context.Context<never>) => context),
        Effect.mapError((e) => internal.failed(messageOf(e)))
      )
      return deadline === undefined ? dial : Effect.timeoutOrElse(dial, {
        duration: deadline,
        orElse: () => Effect.fail(internal.failed(`no answer within ${Duration.format(deadline)}`))
      })
    }

    const dialler: internal.Dialler<C> = { state, inner, closes, dialCount, dial: dialIn, settle: options.settle }
    const unslot = (conn: Conn<C>) =>
      SynchronizedRef.update(state, (s) => s._tag === "Ready" && s.conn === conn ? internal.idle : s)
    const kill = (conn: Conn<C>) => Effect.andThen(unslot(conn), internal.condemn(conn))
    const lost = (conn: Conn<C>, phase: LinkError["phase"], reason: string) =>
      Effect.andThen(kill(conn), Effect.fail(new ConnectionLost({ target, server, connection: conn.id, phase, reason })))

    // However the dial ended — landed, missed, died, interrupted — the slot stops pointing at it and
    // every waiter gets an answer, so no later request can wait on a dial that is over.
    const finish = (landed: Landing<C>, tally: internal.Tally, exit: Exit.Exit<Conn<C>, Miss>) =>
      Effect.gen(function*() {
        const closed = yield* SynchronizedRef.modify(state, (s) =>
          [
            s._tag === "Closed",
            Exit.isFailure(exit) && s._tag === "Dialling" && s.landed === landed ? internal.idle : s
          ] as const)
        if (Exit.isSuccess(exit)) return yield* Deferred.succeed(landed, Option.some(exit.value))
        if (closed) return yield* Deferred.fail(landed, closedError)
        const miss = internal.missOf(exit.cause, true)
        // retired meanwhile: what landed is disposed; each waiter asks the pool again
        if (miss._tag === "Stale") return yield* Deferred.succeed(landed, Option.none())
        const t = yield* Ref.get(tally)
        const reason = miss._tag === "Failed" ? miss.reason : "born dead"
        return yield* Deferred.fail(landed, new DialFailed({ target, server, dials: t.dials, bornDead: t.bornDead, reason }))
      })

    const runDial = (landed: Landing<C>) =>
      Effect.flatMap(Ref.make({ dials: 0, bornDead: 0 }), (tally) =>
        internal.attempt(dialler, landed, tally).pipe(
          Effect.retry({ schedule: backoff, times: maxDials - 1, while: (miss: Miss) => miss._tag !== "Stale" }),
          Effect.onExit((exit) => finish(landed, tally, exit)),
          Effect.exit
        ))

    const await_ = (landed: Landing<C>): Effect.Effect<Conn<C>, DialFailed | PoolClosed> =>
      Effect.flatMap(Deferred.await(landed), Option.match({ onNone: () => slot, onSome: Effect.succeed }))

    type Slot = readonly [Effect.Effect<Conn<C>, DialFailed | PoolClosed>, internal.State<C>]
    // The only place a dial starts: a request found no connection and no dial under way.
    const slot: Effect.Effect<Conn<C>, DialFailed | PoolClosed> = SynchronizedRef.modifyEffect(
      state,
      (s): Effect.Effect<Slot> =>
        s._tag === "Idle"
          ? Effect.gen(function*() {
            const landed = yield* Deferred.make<Option.Option<Conn<C>>, DialFailed | PoolClosed>()
            yield* Effect.forkIn(runDial(landed), inner)
            return [await_(landed), { _tag: "Dialling", landed }] as const
          })
          : Effect.succeed<Slot>([
            s._tag === "Ready"
              ? Effect.succeed(s.conn)
              : s._tag === "Dialling" ? await_(s.landed) : Effect.fail(closedError),
            s
          ])
    ).pipe(Effect.flatten)

    // The slot may still hold a connection whose close was announced a moment ago (the drainer has
    // not run yet), and a dial's waiters may wake after a drop: never hand out either corpse.
    const live: Effect.Effect<Conn<C>, DialFailed | PoolClosed> = Effect.flatMap(slot, (conn) =>
      Effect.suspend(() =>
        Deferred.isDoneUnsafe(conn.closed) ? Effect.andThen(kill(conn), live) : internal.isRetired(conn) ? live : Effect.succeed(conn)
      ))

    // Never replays: the call failed once and that failure is the answer, re-framed. A transport
    // that announces its close answers a pending call too, even when its client never rejects it.
    const guard = <A, E2, R2>(
      conn: Conn<C>,
      call: Effect.Effect<A, E2, R2>
    ): Effect.Effect<A, Exclude<E2, LinkError> | ConnectionLost, R2> => {
      const reframed = Effect.catch(call, (e): Effect.Effect<never, Exclude<E2, LinkError> | ConnectionLost> =>
        isLinkError(e)
          ? lost(conn, e.phase, e.reason)
          // a tag test cannot narrow a type parameter; this arm is exactly the non-LinkError errors
          : Effect.fail(e as Exclude<E2, LinkError>))
      return conn.announces
        ? Effect.raceFirst(
          reframed,
          // built only if the close comes: a ConnectionLost is an Error, and its stack costs every call
          Effect.andThen(Deferred.await(conn.closed), () => lost(conn, "call", "the transport announced its close"))
        )
        : reframed
    }

    type Restore = <A, E2, R2>(effect: Effect.Effect<A, E2, R2>) => Effect.Effect<A, E2, R2>
    // One call on a connection whose lease it holds, the lease returned however the call ends.
    const leasedCall = <A, E2, R2>(conn: Conn<C>, f: (client: C) => Effect.Effect<A, E2, R2>, restore: Restore) =>
      Effect.onExit(restore(guard(conn, f(conn.client))), () => internal.leaveNow(conn))
    // The long way: wait (interruptibly) for a live connection, and lease it; one retired or dropped
    // before the lease is taken sends the request back to the slot.
    const acquire = <A, E2, R2>(f: (client: C) => Effect.Effect<A, E2, R2>, restore: Restore) => {
      const leased: Effect.Effect<Conn<C>, DialFailed | PoolClosed> = Effect.flatMap(
        restore(live),
        (conn) => Effect.flatMap(internal.enter(conn), (ok) => ok ? Effect.succeed(conn) : leased)
      )
      return Effect.flatMap(leased, (conn) => leasedCall(conn, f, restore))
    }

    const close = Effect.gen(function*() {
      const previous = yield* SynchronizedRef.getAndSet(state, { _tag: "Closed" })
      if (previous._tag === "Dialling") yield* Deferred.fail(previous.landed, closedError)
      yield* Queue.shutdown(closes)
      yield* Scope.close(inner, Exit.void)
    }).pipe(Effect.uninterruptible)
    yield* Effect.addFinalizer(() => close)

    yield* Queue.take(closes).pipe(Effect.flatMap(kill), Effect.forever, Effect.forkIn(inner))

    return {
      get: Effect.map(live, (conn) => conn.client),
      use: <A, E2, R2>(f: (client: C) => Effect.Effect<A, E2, R2>) =>
        // Waiting for a connection stays interruptible; taking and returning the lease does not, so
        // a retired connection's count of calls in flight is never left one too high.
        Effect.uninterruptibleMask((restore) => {
          // The usual case, decided in this one step, off the slot without its lock: a connection is
          // in place, neither retired nor announced closed, and takes the lease. Anything else goes
          // the long way, through the slot.
          const now = SynchronizedRef.getUnsafe(state)
          return now._tag === "Ready" && internal.enterNow(now.conn) ? leasedCall(now.conn, f, restore) : acquire(f, restore)
        }),
      retire: SynchronizedRef.modify(state, (s) =>
        s._tag === "Ready"
          ? [s.conn, internal.idle] as const
          : [undefined, s._tag === "Dialling" ? internal.idle : s] as const
      ).pipe(Effect.flatMap((conn) => conn === undefined ? Effect.void : internal.retire(conn))),
      close,
      dials: Ref.get(dialCount)
    } satisfies Pool<C>
  })
