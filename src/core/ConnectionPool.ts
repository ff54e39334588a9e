/**
 * The one live connection a face dispatches over, and every rule about when it stops being live.
 *
 * A face that bridges a running daemon dials it once and shares that connection between every
 * request. The daemon can restart under it: the transport may announce its close (drop the
 * connection at once), may be born dead (announce its close while it is being registered), or may
 * die with a request in flight (the request's outcome is then unknown). Each face would otherwise
 * re-learn these rules on its own; here they are decided once. The invariant it keeps is that only
 * dials are ever repeated — a dial carries no caller intent — and a request is never replayed.
 *
 * @since 0.1.0
 */
import { Deferred, Duration, Effect, Exit, Predicate, Queue, Ref, Schedule, Schema, Scope, SynchronizedRef } from "effect"
import type { LinkError } from "./LinkError.ts"

/**
 * A connection the dial opened and the pool now owns: `dispose` closes its transport (run at most
 * once, on every exit path; its failure is ignored) and `onClose` subscribes to the transport
 * announcing its own close. Omit `onClose` only when there is nothing that could announce it.
 *
 * @example
 * ```ts
 * const owned = { client, dispose: Effect.sync(() => socket.end()), onClose: (f: () => void) => socket.once("close", f) }
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
 * ConnectionPool.isOwned({ client, dispose: Effect.void }) // true
 * ```
 *
 * @since 0.1.0
 */
export const isOwned = <C>(u: Owned<C> | C): u is Owned<C> =>
  typeof u === "object" && u !== null && "client" in u && "dispose" in u && Effect.isEffect(u.dispose)

/**
 * No live connection could be opened: every dial failed or was born dead. Nothing was sent.
 *
 * @example
 * ```ts
 * Effect.catchTag("DialFailed", (e) => Effect.logWarning(e.message))
 * ```
 *
 * @since 0.1.0
 */
export class DialFailed extends Schema.TaggedError<DialFailed>()("DialFailed", {
  target: Schema.String,
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
    return `${head}. Nothing was sent; the next request dials again.`
  }
}

/**
 * The connection a call went out on died. `phase` is the `LinkError` phase that reported it:
 * `"call"` means the call was sent and its outcome is unknown; `"dial"`/`"closed"` mean it never
 * reached the served side. Either way the pool has dropped the connection and did not replay.
 *
 * @example
 * ```ts
 * Effect.catchTag("ConnectionLost", (e) => e.phase === "call" ? Effect.fail(e) : retryOnce)
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
 * Effect.catchTag("PoolClosed", () => Effect.void)
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
 * `Effect.acquireRelease` in it is covered even when interrupted the instant it lands, which
 * returning `dispose` alone cannot promise.
 *
 * @example
 * ```ts
 * const options: ConnectionPool.Options<Client, LinkError, never> = { dial, name: "odu.sock", dialTimeout: "5 seconds" }
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
 * waits for the call before disposing, and it re-frames a `LinkError` into {@link ConnectionLost}.
 *
 * @example
 * ```ts
 * const answer = yield* pool.use((client) => client.call("nodes.list", {}))
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

interface Conn<C> {
  readonly id: number
  readonly client: C
  /** Completed by the transport's close announcement; read to tell a born-dead connection. */
  readonly closed: Deferred.Deferred<void>
  /** Closing it disposes the transport, exactly once; it is a child of the pool's scope. */
  readonly scope: Scope.Closeable
  /** Calls in flight on it, and whether it may take new ones. */
  readonly lease: Ref.Ref<{ readonly users: number; readonly retired: boolean }>
}

type Landing<C> = Deferred.Deferred<Conn<C>, DialFailed | PoolClosed>

type State<C> =
  | { readonly _tag: "Idle" }
  | { readonly _tag: "Dialling"; readonly landed: Landing<C> }
  | { readonly _tag: "Ready"; readonly conn: Conn<C> }
  | { readonly _tag: "Closed" }

/** Why one dial did not yield a live connection; "Stale" means the pool stopped wanting it. */
type Miss = { readonly _tag: "Failed"; readonly reason: string } | { readonly _tag: "BornDead" | "Stale" }

const idle = { _tag: "Idle" } as const
const stale: Miss = { _tag: "Stale" }
const bornDead: Miss = { _tag: "BornDead" }

const isLinkError = (e: unknown): e is LinkError => Predicate.isTagged(e, "LinkError")

const reasonOf = (e: unknown): string =>
  Predicate.hasProperty(e, "message") && typeof e.message === "string" ? e.message : String(e)

/**
 * Open a pool in the current scope; closing the scope is `close`. Nothing is dialled until the
 * first request, and N concurrent first requests share one dial.
 *
 * @example
 * ```ts
 * const pool = yield* ConnectionPool.make({ dial: dialDaemon, name: "odu.sock" })
 * const nodes = yield* pool.use((client) => client.nodes.list())
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
    const context = yield* Effect.context<Exclude<R, Scope.Scope>>()
    // Dial fibers, the close drainer and every connection live in this scope, so close() (or the
    // caller's scope closing) interrupts the first two and disposes the last, whoever started them.
    const inner = yield* Scope.fork(yield* Effect.scope)
    const state = yield* SynchronizedRef.make<State<C>>(idle)
    const dialCount = yield* Ref.make(0)
    // Transports announce their close through a callback; the callback only enqueues, and one
    // fiber turns each announcement into a drop, so no Effect is run from inside a transport.
    const closes = yield* Queue.unbounded<Conn<C>>()

    const deadline = options.dialTimeout === undefined ? undefined : Duration.fromInputUnsafe(options.dialTimeout)
    const dialIn = (scope: Scope.Scope): Effect.Effect<Owned<C> | C, Miss> => {
      const dial = options.dial.pipe(
        Effect.provideService(Scope.Scope, scope),
        Effect.provideContext(context),
        Effect.mapError((e): Miss => ({ _tag: "Failed", reason: reasonOf(e) }))
      )
      return deadline === undefined ? dial : Effect.timeoutOrElse(dial, {
        duration: deadline,
        orElse: () => Effect.fail<Miss>({ _tag: "Failed", reason: `no answer within ${Duration.format(deadline)}` })
      })
    }

    const dispose = (conn: Conn<C>) => Scope.close(conn.scope, Exit.void)
    const unslot = (conn: Conn<C>) =>
      SynchronizedRef.update(state, (s) => s._tag === "Ready" && s.conn === conn ? idle : s)
    // The link is dead: no new lease, and calls still on it are failing anyway.
    const kill = (conn: Conn<C>) =>
      unslot(conn).pipe(
        Effect.andThen(Ref.update(conn.lease, (l) => ({ ...l, retired: true }))),
        Effect.andThen(dispose(conn))
      )
    // The link is healthy but unwanted: let the calls on it finish, then dispose.
    const retireConn = (conn: Conn<C>) =>
      Ref.modify(conn.lease, (l) => [!l.retired && l.users === 0, { ...l, retired: true }] as const).pipe(
        Effect.flatMap((now) => now ? dispose(conn) : Effect.void)
      )
    const enter = (conn: Conn<C>) =>
      Ref.modify(conn.lease, (l) => l.retired ? [false, l] as const : [true, { ...l, users: l.users + 1 }] as const)
    const leave = (conn: Conn<C>) =>
      Ref.modify(conn.lease, (l) => [l.retired && l.users === 1, { ...l, users: l.users - 1 }] as const).pipe(
        Effect.flatMap((last) => last ? dispose(conn) : Effect.void)
      )

    const open = (id: number, scope: Scope.Closeable, dialled: Owned<C> | C) =>
      Effect.gen(function*() {
        const conn: Conn<C> = {
          id,
          client: isOwned(dialled) ? dialled.client : dialled,
          closed: yield* Deferred.make<void>(),
          scope,
          lease: yield* Ref.make({ users: 0, retired: false })
        }
        if (isOwned(dialled)) yield* Scope.addFinalizer(scope, Effect.ignoreCause(dialled.dispose))
        return conn
      })

    const subscribe = (conn: Conn<C>, dialled: Owned<C> | C) => {
      const onClose = isOwned(dialled) ? dialled.onClose : undefined
      return onClose !== undefined
        ? Effect.try({
          try: () =>
            onClose(() => {
              Deferred.doneUnsafe(conn.closed, Exit.void)
              Queue.offerUnsafe(closes, conn)
            }),
          catch: (e): Miss => ({ _tag: "Failed", reason: `onClose threw: ${reasonOf(e)}` })
        })
        : Effect.void
    }

    // Decided under the state lock, so a close announced after this check is seen by the drainer
    // as a drop of the installed connection, and one announced before it makes this one born dead.
    const install = (landed: Landing<C>, conn: Conn<C>) =>
      SynchronizedRef.modifyEffect(state, (s) =>
        s._tag !== "Dialling" || s.landed !== landed
          ? Effect.fail(stale)
          : Effect.flatMap(Deferred.isDone(conn.closed), (dead) =>
            dead ? Effect.fail(bornDead) : Effect.succeed([conn, { _tag: "Ready", conn }] as const)))

    const attempt = (landed: Landing<C>, tally: Ref.Ref<{ dials: number; bornDead: number }>) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          const now = yield* SynchronizedRef.get(state)
          if (now._tag !== "Dialling" || now.landed !== landed) return yield* Effect.fail(stale)
          const id = yield* Ref.updateAndGet(dialCount, (n) => n + 1)
          yield* Ref.update(tally, (t) => ({ ...t, dials: t.dials + 1 }))
          // Opened before the dial, so whatever the dial acquires in it (Effect.acquireRelease) is
          // released on every way out, even when interruption lands in the instant the dial returns.
          const scope = yield* Scope.fork(inner)
          return yield* restore(dialIn(scope)).pipe(
            // outside restore: once the dial has answered, taking ownership cannot be interrupted
            Effect.flatMap((dialled) =>
              Effect.flatMap(open(id, scope, dialled), (conn) =>
                restore(
                  subscribe(conn, dialled).pipe(
                    Effect.andThen(Effect.yieldNow), // lets a close queued on a microtask fire first
                    Effect.andThen(options.settle === undefined ? Effect.void : Effect.sleep(options.settle)),
                    Effect.andThen(install(landed, conn))
                  )
                ))
            ),
            Effect.onError(() => Scope.close(scope, Exit.void)),
            Effect.tapError((miss) =>
              miss._tag === "BornDead" ? Ref.update(tally, (t) => ({ ...t, bornDead: t.bornDead + 1 })) : Effect.void
            )
          )
        })
      )

    const runDial = (landed: Landing<C>) =>
      Effect.gen(function*() {
        const tally = yield* Ref.make({ dials: 0, bornDead: 0 })
        const outcome = attempt(landed, tally).pipe(
          Effect.retry({ schedule: backoff, times: maxDials - 1, while: (miss: Miss) => miss._tag !== "Stale" }),
          Effect.catch((miss): Effect.Effect<Conn<C>, DialFailed | PoolClosed> =>
            miss._tag === "Stale"
              // retired or closed meanwhile: what landed is disposed; follow the pool to its next dial
              ? slot
              : Effect.gen(function*() {
                yield* SynchronizedRef.update(state, (s) => s._tag === "Dialling" && s.landed === landed ? idle : s)
                const t = yield* Ref.get(tally)
                const reason = miss._tag === "Failed" ? miss.reason : "born dead"
                return yield* new DialFailed({ target, dials: t.dials, bornDead: t.bornDead, reason })
              })
          )
        )
        yield* Deferred.done(landed, yield* Effect.exit(outcome))
      }).pipe(Effect.onInterrupt(() => Deferred.fail(landed, closedError)))

    type Slot = readonly [Effect.Effect<Conn<C>, DialFailed | PoolClosed>, State<C>]
    const slot: Effect.Effect<Conn<C>, DialFailed | PoolClosed> = SynchronizedRef.modifyEffect(
      state,
      (s): Effect.Effect<Slot> =>
        s._tag === "Idle"
          ? Effect.gen(function*() {
            const landed = yield* Deferred.make<Conn<C>, DialFailed | PoolClosed>()
            yield* Effect.forkIn(runDial(landed), inner)
            return [Deferred.await(landed), { _tag: "Dialling", landed }] as const
          })
          : Effect.succeed<Slot>([
            s._tag === "Ready"
              ? Effect.succeed(s.conn)
              : s._tag === "Dialling" ? Deferred.await(s.landed) : Effect.fail(closedError),
            s
          ])
    ).pipe(Effect.flatten)

    // The slot may still hold a connection whose close was announced a moment ago (the drainer has
    // not run yet), and a dial's waiters may wake after a drop: never hand out either corpse.
    const live: Effect.Effect<Conn<C>, DialFailed | PoolClosed> = Effect.flatMap(slot, (conn) =>
      Effect.flatMap(
        Effect.zip(Deferred.isDone(conn.closed), Ref.get(conn.lease)),
        ([dead, lease]) => dead ? Effect.andThen(kill(conn), live) : lease.retired ? live : Effect.succeed(conn)
      ))

    // Never replays: the call failed once and that failure is the answer, re-framed.
    const reframe = <A, E2, R2>(
      conn: Conn<C>,
      call: Effect.Effect<A, E2, R2>
    ): Effect.Effect<A, Exclude<E2, LinkError> | ConnectionLost, R2> =>
      Effect.catch(call, (e): Effect.Effect<never, Exclude<E2, LinkError> | ConnectionLost> =>
        isLinkError(e)
          ? Effect.andThen(
            kill(conn),
            Effect.fail(new ConnectionLost({ target, server, connection: conn.id, phase: e.phase, reason: e.reason }))
          )
          // a tag test cannot narrow a type parameter; this arm is exactly the non-LinkError errors
          : Effect.fail(e as Exclude<E2, LinkError>))

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
          const leased: Effect.Effect<Conn<C>, DialFailed | PoolClosed> = Effect.flatMap(
            restore(live),
            (conn) => Effect.flatMap(enter(conn), (ok) => ok ? Effect.succeed(conn) : leased)
          )
          return Effect.flatMap(leased, (conn) =>
            restore(reframe(conn, f(conn.client))).pipe(Effect.ensuring(leave(conn))))
        }),
      retire: SynchronizedRef.modify(state, (s) =>
        s._tag === "Ready" ? [s.conn, idle] as const : [undefined, s._tag === "Dialling" ? idle : s] as const
      ).pipe(Effect.flatMap((conn) => conn === undefined ? Effect.void : retireConn(conn))),
      close,
      dials: Ref.get(dialCount)
    } satisfies Pool<C>
  })
