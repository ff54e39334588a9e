/**
 * The pool's state machine: which connection is current, when a dial starts, what its waiters
 * learn, how a call is leased and guarded. Module-level functions over one explicit `Machine`, so
 * each rule reads on its own; `ConnectionPool.make` only builds the machine and hands these out.
 *
 * @since 0.1.0
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import type * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as SynchronizedRef from "effect/SynchronizedRef"
import type { LinkError } from "../../surface/LinkError.ts"
import * as internal from "./pool.ts"
import { ConnectionLost, DialFailed, type PoolClosed } from "./poolErrors.ts"

type Conn<C> = internal.Conn<C>
type Landing<C> = internal.Landing<C>
type Miss = internal.Miss
type Waiting = DialFailed | PoolClosed

/** Everything one pool is: its dialler, its wording and its retry policy. */
export interface Machine<C> extends internal.Dialler<C> {
  readonly target: string
  readonly server: string
  readonly maxDials: number
  readonly backoff: Schedule.Schedule<unknown>
  readonly closedError: PoolClosed
  /** Answers the current connection, dialling if there is none; built once, by `machine`. */
  readonly live: Effect.Effect<Conn<C>, Waiting>
}

const isLinkError = (e: unknown): e is LinkError => Predicate.isTagged(e, "LinkError")

/** Builds the machine, tying its `live` knot once so the hot path allocates none of it. */
export const machine = <C>(parts: Omit<Machine<C>, "live">): Machine<C> => {
  const m: { -readonly [K in keyof Machine<C>]: Machine<C>[K] } = { ...parts, live: Effect.void as never }
  m.live = liveOf(m)
  return m
}

const unslot = <C>(m: Machine<C>, conn: Conn<C>) =>
  SynchronizedRef.update(m.state, (s) => s._tag === "Ready" && s.conn === conn ? internal.idle : s)

/** Drop a dead connection: out of the slot, disposed now. */
export const kill = <C>(m: Machine<C>, conn: Conn<C>): Effect.Effect<void> =>
  Effect.andThen(unslot(m, conn), internal.condemn(conn))

const lost = <C>(m: Machine<C>, conn: Conn<C>, phase: LinkError["phase"], reason: string) =>
  Effect.andThen(
    kill(m, conn),
    Effect.fail(new ConnectionLost({ target: m.target, server: m.server, connection: conn.id, phase, reason }))
  )

// However the dial ended — landed, missed, died, interrupted — the slot stops pointing at it and
// every waiter gets an answer, so no later request can wait on a dial that is over.
const finish = <C>(m: Machine<C>, landed: Landing<C>, tally: internal.Tally, exit: Exit.Exit<Conn<C>, Miss>) =>
  Effect.gen(function*() {
    const closed = yield* SynchronizedRef.modify(m.state, (s) =>
      [
        s._tag === "Closed",
        Exit.isFailure(exit) && s._tag === "Dialling" && s.landed === landed ? internal.idle : s
      ] as const)
    if (Exit.isSuccess(exit)) return yield* Deferred.succeed(landed, Option.some(exit.value))
    if (closed) return yield* Deferred.fail(landed, m.closedError)
    const miss = internal.missOf(exit.cause, true)
    // retired meanwhile: what landed is disposed; each waiter asks the pool again
    if (miss._tag === "Stale") return yield* Deferred.succeed(landed, Option.none())
    const t = yield* Ref.get(tally)
    const reason = miss._tag === "Failed" ? miss.reason : "born dead"
    return yield* Deferred.fail(
      landed,
      new DialFailed({ target: m.target, server: m.server, dials: t.dials, bornDead: t.bornDead, reason })
    )
  })

const runDial = <C>(m: Machine<C>, landed: Landing<C>) =>
  Effect.flatMap(Ref.make({ dials: 0, bornDead: 0 }), (tally) =>
    Effect.withSpan(
      internal.attempt(m, landed, tally).pipe(
        Effect.retry({ schedule: m.backoff, times: m.maxDials - 1, while: (miss: Miss) => miss._tag !== "Stale" }),
        Effect.onExit((exit) => finish(m, landed, tally, exit)),
        Effect.exit
      ),
      "ConnectionPool.dial",
      { attributes: { target: m.target } }
    ))

type Slot<C> = readonly [Effect.Effect<Conn<C>, Waiting>, internal.State<C>]

// The only place a dial starts: a request found no connection and no dial under way.
const slotOf = <C>(m: Machine<C>): Effect.Effect<Conn<C>, Waiting> => {
  const awaitLanding = (landed: Landing<C>): Effect.Effect<Conn<C>, Waiting> =>
    Effect.flatMap(Deferred.await(landed), Option.match({ onNone: () => slot, onSome: Effect.succeed }))
  const slot: Effect.Effect<Conn<C>, Waiting> = SynchronizedRef.modifyEffect(
    m.state,
    (s): Effect.Effect<Slot<C>> =>
      s._tag === "Idle"
        ? Effect.gen(function*() {
          const landed = yield* Deferred.make<Option.Option<Conn<C>>, Waiting>()
          yield* Effect.forkIn(runDial(m, landed), m.inner)
          return [awaitLanding(landed), { _tag: "Dialling", landed }] as const
        })
        : Effect.succeed<Slot<C>>([
          s._tag === "Ready"
            ? Effect.succeed(s.conn)
            : s._tag === "Dialling" ? awaitLanding(s.landed) : Effect.fail(m.closedError),
          s
        ])
  ).pipe(Effect.flatten)
  return slot
}

// The slot may still hold a connection whose close was announced a moment ago (the drainer has
// not run yet), and a dial's waiters may wake after a drop: never hand out either corpse.
const liveOf = <C>(m: Machine<C>): Effect.Effect<Conn<C>, Waiting> => {
  const slot = slotOf(m)
  const live: Effect.Effect<Conn<C>, Waiting> = Effect.flatMap(
    slot,
    (conn) =>
      Effect.suspend(() =>
        Deferred.isDoneUnsafe(conn.closed) ? Effect.andThen(kill(m, conn), live)
          : internal.isRetired(conn) ? live : Effect.succeed(conn)
      )
  )
  return live
}

// Never replays: the call failed once and that failure is the answer, re-framed. A transport
// that announces its close answers a pending call too, even when its client never rejects it;
// one whose client settles its pending calls itself is left to do so, unwatched.
const guard = <C, A, E, R>(
  m: Machine<C>,
  conn: Conn<C>,
  call: Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, LinkError> | ConnectionLost, R> => {
  const reframed = Effect.catch(
    call,
    (e): Effect.Effect<never, Exclude<E, LinkError> | ConnectionLost> =>
      isLinkError(e)
        ? lost(m, conn, e.phase, e.reason)
        // a tag test cannot narrow a type parameter; this arm is exactly the non-LinkError errors
        : Effect.fail(e as Exclude<E, LinkError>)
  )
  return conn.watchCalls
    ? Effect.raceFirst(
      reframed,
      // built only if the close comes: a ConnectionLost is an Error, and its stack costs every call
      Effect.andThen(Deferred.await(conn.closed), () => lost(m, conn, "call", "the transport announced its close"))
    )
    : reframed
}

type Restore = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

// One call on a connection whose lease it holds, the lease returned however the call ends.
const leasedCall = <C, A, E, R>(
  m: Machine<C>,
  conn: Conn<C>,
  f: (client: C) => Effect.Effect<A, E, R>,
  restore: Restore
) => Effect.onExitPrimitive(restore(guard(m, conn, f(conn.client))), () => internal.leaveNow(conn))

// The long way: wait (interruptibly) for a live connection, and lease it; one retired or dropped
// before the lease is taken sends the request back to the slot.
const acquire = <C, A, E, R>(m: Machine<C>, f: (client: C) => Effect.Effect<A, E, R>, restore: Restore) => {
  const leased: Effect.Effect<Conn<C>, Waiting> = Effect.flatMap(
    restore(m.live),
    (conn) => Effect.flatMap(internal.enter(conn), (ok) => ok ? Effect.succeed(conn) : leased)
  )
  return Effect.flatMap(leased, (conn) => leasedCall(m, conn, f, restore))
}

/** The request path: lease the connection for one call, re-framing a link failure. */
export const use = <C, A, E, R>(
  m: Machine<C>,
  f: (client: C) => Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, LinkError> | ConnectionLost | Waiting, R> =>
  Effect.suspend(() => {
    // The usual case, decided in one step, off the slot without its lock: a connection is in place,
    // neither retired nor announced closed, and takes the lease — under a finalizer already in
    // place, so the lease is returned however the call ends, an interruption before it starts
    // included, and only if it was taken. Anything else goes the long way, through the slot, where
    // waiting for a connection stays interruptible and taking and returning the lease does not.
    let held: Conn<C> | undefined
    return Effect.onExitPrimitive(
      Effect.suspend(() => {
        const now = SynchronizedRef.getUnsafe(m.state)
        if (now._tag !== "Ready" || !internal.enterNow(now.conn))
          return Effect.uninterruptibleMask((restore) => acquire(m, f, restore))
        held = now.conn
        return guard(m, held, f(held.client))
      }),
      () => held === undefined ? undefined : internal.leaveNow(held)
    )
  })

/** Drop the current connection (disposed once its leased calls end) and any dial in flight. */
export const retire = <C>(m: Machine<C>): Effect.Effect<void> =>
  SynchronizedRef.modify(m.state, (s) =>
    s._tag === "Ready"
      ? [s.conn, internal.idle] as const
      : [undefined, s._tag === "Dialling" ? internal.idle : s] as const).pipe(
      Effect.flatMap((conn) => conn === undefined ? Effect.void : internal.retire(conn))
    )

/** Dispose every connection, interrupt any dial, and refuse every later request. */
export const close = <C>(m: Machine<C>, inner: Scope.Closeable): Effect.Effect<void> =>
  Effect.gen(function*() {
    const previous = yield* SynchronizedRef.getAndSet(m.state, { _tag: "Closed" })
    if (previous._tag === "Dialling") yield* Deferred.fail(previous.landed, m.closedError)
    yield* Queue.shutdown(m.closes)
    yield* Scope.close(inner, Exit.void)
  }).pipe(Effect.uninterruptible)
