/**
 * The connection-level half of the ConnectionPool: one owned connection, the lease that says when it
 * may be disposed, how its transport's close is heard, one dial attempt, and how a dial that missed
 * is worded. The pool's state machine (which connection is current, when a dial starts, what its
 * waiters learn) is `poolSlot.ts`.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as MutableRef from "effect/MutableRef"
import type * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import * as SynchronizedRef from "effect/SynchronizedRef"
import { isOwned, type Owned } from "../../surface/Owned.ts"
import { messageOf } from "../ToolFailure.ts"
import type { DialFailed, PoolClosed } from "./poolErrors.ts"

/** A connection the pool owns. */
export interface Conn<C> {
  readonly id: number
  readonly client: C
  /** Completed by the transport's close announcement; read to tell a born-dead connection. */
  readonly closed: Deferred.Deferred<void>
  /**
   * Whether each call is raced against the close: the transport can announce one (without `onClose`,
   * `closed` never completes) and its client does not settle its pending calls itself.
   */
  readonly watchCalls: boolean
  /** Closing it disposes the transport, exactly once; it is a child of the pool's scope. */
  readonly scope: Scope.Closeable
  /**
   * The lease: calls in flight on it, and whether it may take new ones. Read and replaced only
   * synchronously, each time within one step of one fiber (JS runs one at a time), so every change
   * is atomic without a lock — and a call can take its lease in the same step that found the
   * connection live. Two cells of plain values, so a call's lease allocates nothing.
   */
  readonly users: MutableRef.MutableRef<number>
  readonly retired: MutableRef.MutableRef<boolean>
}

/**
 * What the waiters of one dial learn: the live connection, `None` when the pool stopped wanting the
 * dial (retired meanwhile: each waiter asks the pool again, so a dial starts only for a request), or
 * why no connection could be opened.
 */
export type Landing<C> = Deferred.Deferred<Option.Option<Conn<C>>, DialFailed | PoolClosed>

/** The pool's slot. */
export type State<C> =
  | { readonly _tag: "Idle" }
  | { readonly _tag: "Dialling"; readonly landed: Landing<C> }
  | { readonly _tag: "Ready"; readonly conn: Conn<C> }
  | { readonly _tag: "Closed" }

/** Why one dial did not yield a live connection; "Stale" means the pool stopped wanting it. */
export type Miss = { readonly _tag: "Failed"; readonly reason: string } | { readonly _tag: "BornDead" | "Stale" }

/** No connection and no dial under way: the next request dials. */
export const idle = { _tag: "Idle" } as const
/** The pool stopped wanting this dial (retired or closed meanwhile). */
export const stale: Miss = { _tag: "Stale" }
/** The transport announced its close while the connection was being registered. */
export const bornDead: Miss = { _tag: "BornDead" }
/** A dial that answered with a failure, worded for `DialFailed`. */
export const failed = (reason: string): Miss => ({ _tag: "Failed", reason })

/**
 * Any way a dial attempt did not answer, as a Miss. A dial the pool no longer wants (retired or
 * closed meanwhile, which is how the pool's own interruption is told apart) is Stale, whatever it
 * ended with. Otherwise typed failures already are a Miss, and a defect or a dial that interrupted
 * itself is a failed dial like any other — counted, retried, and worded in `DialFailed` — so it can
 * never leave the pool waiting on a dial that is over.
 */
export const missOf = (cause: Cause.Cause<Miss>, wanted: boolean): Miss => {
  if (!wanted) return stale
  const failure = cause.reasons.find(Cause.isFailReason)
  if (failure !== undefined) return failure.error
  const defect = cause.reasons.find(Cause.isDieReason)
  if (defect !== undefined) return failed(`the dial died: ${messageOf(defect.defect)}`)
  return failed("the dial was interrupted")
}

/** Disposes the transport (at most once: closing a closed scope does nothing). */
export const dispose = <C>(conn: Conn<C>): Effect.Effect<void> => Scope.close(conn.scope, Exit.void)

/** Takes ownership of what a dial returned: its `dispose` now runs when `scope` closes. */
export const open = <C>(id: number, scope: Scope.Closeable, dialled: Owned<C> | C): Effect.Effect<Conn<C>> =>
  Effect.gen(function*() {
    const owned = isOwned(dialled)
    const conn: Conn<C> = {
      id,
      client: owned ? dialled.client : dialled,
      closed: yield* Deferred.make<void>(),
      watchCalls: owned && dialled.onClose !== undefined && dialled.settlesPending !== true,
      scope,
      users: MutableRef.make(0),
      retired: MutableRef.make(false)
    }
    if (owned) yield* Scope.addFinalizer(scope, Effect.ignoreCause(dialled.dispose))
    return conn
  })

/**
 * Subscribes to the transport's close. The listener only completes `closed` and enqueues the
 * connection: no Effect is ever run from inside a transport's callback.
 */
export const subscribe = <C>(
  conn: Conn<C>,
  dialled: Owned<C> | C,
  closes: Queue.Queue<Conn<C>>
): Effect.Effect<void, Miss> => {
  const onClose = isOwned(dialled) ? dialled.onClose : undefined
  return onClose === undefined ? Effect.void : Effect.try({
    try: () =>
      onClose(() => {
        Deferred.doneUnsafe(conn.closed, Exit.void)
        Queue.offerUnsafe(closes, conn)
      }),
    catch: (e) => failed(`onClose threw: ${messageOf(e)}`)
  })
}

/**
 * Takes a lease for one call, now; `false` when the connection is retired or its close was already
 * announced (the caller then asks the pool again, which drops the corpse).
 */
export const enterNow = <C>(conn: Conn<C>): boolean => {
  if (MutableRef.get(conn.retired) || Deferred.isDoneUnsafe(conn.closed)) return false
  MutableRef.set(conn.users, MutableRef.get(conn.users) + 1)
  return true
}

/** `enterNow`, as an Effect. */
export const enter = <C>(conn: Conn<C>): Effect.Effect<boolean> => Effect.sync(() => enterNow(conn))

/**
 * Returns a lease, now; the last call off a retired connection disposes it (the Effect answered;
 * `undefined` when there is nothing to do, as `Effect.onExitPrimitive` takes it).
 */
export const leaveNow = <C>(conn: Conn<C>): Effect.Effect<void> | undefined => {
  const users = MutableRef.get(conn.users) - 1
  MutableRef.set(conn.users, users)
  return users === 0 && MutableRef.get(conn.retired) ? dispose(conn) : undefined
}

/** The link is healthy but unwanted: no new lease; dispose once the calls on it end. */
export const retire = <C>(conn: Conn<C>): Effect.Effect<void> =>
  Effect.suspend(() => {
    const wasRetired = MutableRef.get(conn.retired)
    MutableRef.set(conn.retired, true)
    return !wasRetired && MutableRef.get(conn.users) === 0 ? dispose(conn) : Effect.void
  })

/** The link is dead: no new lease, and dispose now (calls still on it are failing anyway). */
export const condemn = <C>(conn: Conn<C>): Effect.Effect<void> =>
  Effect.suspend(() => {
    MutableRef.set(conn.retired, true)
    return dispose(conn)
  })

/** Whether the connection has been retired (or condemned). */
export const isRetired = <C>(conn: Conn<C>): boolean => MutableRef.get(conn.retired)

/** What one dial attempt needs from its pool. */
export interface Dialler<C> {
  readonly state: SynchronizedRef.SynchronizedRef<State<C>>
  /** The pool's scope: each connection's scope is forked from it. */
  readonly inner: Scope.Scope
  readonly closes: Queue.Queue<Conn<C>>
  /** Dials started across the pool's life. */
  readonly dialCount: Ref.Ref<number>
  /** The user's dial, run in the connection's scope, its failure already a Miss. */
  readonly dial: (scope: Scope.Scope) => Effect.Effect<Owned<C> | C, Miss>
  readonly settle: Duration.Input | undefined
}

/** Dials and born-dead dials of one acquisition, for `DialFailed`. */
export type Tally = Ref.Ref<{ readonly dials: number; readonly bornDead: number }>

/** Whether the pool still waits on this dial (not retired meanwhile, not closed). */
export const wanted = <C>(
  state: SynchronizedRef.SynchronizedRef<State<C>>,
  landed: Landing<C>
): Effect.Effect<boolean> => Effect.map(SynchronizedRef.get(state), (s) => s._tag === "Dialling" && s.landed === landed)

// Decided under the state lock, so a close announced after this check is seen by the drainer as a
// drop of the installed connection, and one announced before it makes this one born dead.
const install = <C>(state: SynchronizedRef.SynchronizedRef<State<C>>, landed: Landing<C>, conn: Conn<C>) =>
  SynchronizedRef.modifyEffect(state, (s) =>
    s._tag !== "Dialling" || s.landed !== landed
      ? Effect.fail(stale)
      : Effect.flatMap(Deferred.isDone(conn.closed), (dead) =>
        dead ? Effect.fail(bornDead) : Effect.succeed([conn, { _tag: "Ready", conn }] as const)))

/**
 * One dial: open a scope, dial in it, take ownership of what it returns, hear its close, and install
 * it as the pool's connection. Any way out but installing closes the scope, disposing what was opened.
 */
export const attempt = <C>(env: Dialler<C>, landed: Landing<C>, tally: Tally): Effect.Effect<Conn<C>, Miss> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      if (!(yield* wanted(env.state, landed))) return yield* Effect.fail(stale)
      const id = yield* Ref.updateAndGet(env.dialCount, (n) => n + 1)
      yield* Ref.update(tally, (t) => ({ ...t, dials: t.dials + 1 }))
      // Opened before the dial, so whatever the dial acquires in it (Effect.acquireRelease) is
      // released on every way out, even when interruption lands in the instant the dial returns.
      const scope = yield* Scope.fork(env.inner)
      return yield* restore(env.dial(scope)).pipe(
        // outside restore: once the dial has answered, taking ownership cannot be interrupted
        Effect.flatMap((dialled) =>
          Effect.flatMap(open(id, scope, dialled), (conn) =>
            restore(
              subscribe(conn, dialled, env.closes).pipe(
                Effect.andThen(Effect.yieldNow), // lets a close queued on a microtask fire first
                Effect.andThen(env.settle === undefined ? Effect.void : Effect.sleep(env.settle)),
                Effect.andThen(install(env.state, landed, conn))
              )
            ))
        ),
        // A defect or a self-interruption is a failed dial, not a dial that never ends. Handled
        // uninterruptibly, so the pool interrupting the dial (close) is seen here too, as Stale; that
        // interruption still takes effect when the mask ends.
        Effect.catchCause((cause) => Effect.flatMap(wanted(env.state, landed), (w) => Effect.fail(missOf(cause, w)))),
        Effect.onError(() => Scope.close(scope, Exit.void)),
        Effect.tapError((miss) =>
          miss._tag === "BornDead" ? Ref.update(tally, (t) => ({ ...t, bornDead: t.bornDead + 1 })) : Effect.void
        )
      )
    })
  )

/** The user's dial, run in the connection's scope and the pool's own context, its failure a Miss. */
export const dialIn = <C, E, R>(
  dial: Effect.Effect<Owned<C> | C, E, R>,
  dialTimeout: Duration.Input | undefined,
  context: Context.Context<Exclude<R, Scope.Scope>>
): (scope: Scope.Scope) => Effect.Effect<Owned<C> | C, Miss> => {
  const deadline = dialTimeout === undefined ? undefined : Duration.fromInputUnsafe(dialTimeout)
  return (scope) => {
    const dialled = dial.pipe(
      Effect.provideService(Scope.Scope, scope),
      Effect.updateContext((_: Context.Context<never>) => context),
      Effect.mapError((e) => failed(messageOf(e)))
    )
    return deadline === undefined ? dialled : Effect.timeoutOrElse(dialled, {
      duration: deadline,
      orElse: () => Effect.fail(failed(`no answer within ${Duration.format(deadline)}`))
    })
  }
}
