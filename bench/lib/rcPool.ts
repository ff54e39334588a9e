// The peer of bench/pool.ts: the ConnectionPool's slot built on Effect's `RcRef`, which passes
// every pool test and was measured against the hand-built slot to decide between them. The ref
// shares one dial between concurrent callers, counts the calls holding the connection, and disposes
// an invalidated one once they end. What `RcRef` does not express is kept beside it: a dial whose
// callers all left still lands (a keeper holds the acquisition, which the ref would abandon), a
// retire drops a dial in flight (`invalidate` leaves an acquisition alone; a generation the landing
// checks does it), a close fails waiters with `PoolClosed` (the ref answers an interruption), a
// transport's close drops the connection at once, and the dial's span is the requester's (the ref
// runs its acquisition in the context it was made in). Per call it costs a `Scope` (`RcRef.get`
// holds the connection for one), where the hand-built slot takes a lease counter.
import {
  Cause,
  Deferred,
  Duration,
  Effect,
  Exit,
  Option,
  Predicate,
  Queue,
  RcRef,
  type Schedule,
  Scope,
  Tracer
} from "effect"
import type { Owned } from "../../src/surface/Owned.ts"
import type { LinkError } from "../../src/surface/LinkError.ts"
import * as internal from "../../src/core/internal/pool.ts"
import { ConnectionLost, DialFailed, type PoolClosed } from "../../src/core/internal/poolErrors.ts"

type Conn<C> = internal.Conn<C>
type Miss = internal.Miss
type Waiting = DialFailed | PoolClosed
type Stale = { readonly _tag: "Stale" }

/** What the pool was made with, resolved. */
export interface Parts<C> {
  readonly target: string
  readonly server: string
  readonly maxDials: number
  readonly backoff: Schedule.Schedule<unknown>
  readonly closedError: PoolClosed
  readonly inner: Scope.Closeable
  readonly dial: (scope: Scope.Scope) => Effect.Effect<Owned<C> | C, Miss>
  readonly settle: Duration.Input | undefined
}

interface Rc<C> extends Parts<C> {
  readonly closes: Queue.Queue<Conn<C>>
  readonly ref: RcRef.RcRef<Conn<C>, Waiting | Stale>
  /** Bumped by retire and close: a dial of an older generation is no longer wanted. */
  generation: number
  closed: boolean
  /** The connection the ref holds, to tell a drop of it from a late close of an older one. */
  holder: Conn<C> | undefined
  dials: number
  /** The span of the request that started the dial in flight (the ref runs it in its own context). */
  requester: Option.Option<Tracer.AnySpan>
}

/** A running pool, as `ConnectionPool.Pool` has it. */
export interface Pool<C> {
  readonly get: Effect.Effect<C, Waiting>
  readonly use: <A, E, R>(
    f: (client: C) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, Exclude<E, LinkError> | ConnectionLost | Waiting, R>
  readonly retire: Effect.Effect<void>
  readonly close: Effect.Effect<void>
  readonly dials: Effect.Effect<number>
}

const staleError: Stale = { _tag: "Stale" }
const isLinkError = (e: unknown): e is LinkError => Predicate.isTagged(e, "LinkError")
const wanted = <C>(m: Rc<C>, generation: number) => !m.closed && m.generation === generation

/** Builds the pool in `parts.inner`, which closing disposes every connection of. */
export const make = <C>(parts: Parts<C>): Effect.Effect<Pool<C>> =>
  Effect.gen(function*() {
    const m: Rc<C> = {
      ...parts,
      closes: yield* Queue.unbounded<Conn<C>>(),
      ref: undefined as never,
      generation: 0,
      closed: false,
      holder: undefined,
      dials: 0,
      requester: Option.none()
    }
    ;(m as { ref: Rc<C>["ref"] }).ref = yield* RcRef.make({ acquire: acquire(m), idleTimeToLive: Duration.infinity })
      .pipe(Scope.provide(parts.inner))
    yield* Queue.take(m.closes).pipe(Effect.flatMap((conn) => kill(m, conn)), Effect.forever, Effect.forkIn(m.inner))
    const close = closeOf(m)
    return {
      get: Effect.scoped(Effect.map(live(m), (conn) => conn.client)),
      use: (f) => Effect.scoped(Effect.flatMap(live(m), (conn) => guard(m, conn, f(conn.client)))),
      retire: retire(m),
      close,
      dials: Effect.sync(() => m.dials)
    } satisfies Pool<C>
  })

// Run by the ref on a fiber of its own, once for all the callers waiting on it.
const acquire = <C>(m: Rc<C>): Effect.Effect<Conn<C>, Waiting | Stale, Scope.Scope> =>
  Effect.gen(function*() {
    const generation = m.generation
    const requester = m.requester
    m.requester = Option.none()
    let over = false
    // The ref abandons an acquisition its callers all left; the pool's rule is that a dial, once
    // started for a request, lands. The keeper waits on it for the pool, and lets go at once.
    yield* Effect.forkIn(
      Effect.suspend(() => over ? Effect.void : Effect.ignore(Effect.scoped(RcRef.get(m.ref)))),
      m.inner
    )
    const tally = { dials: 0, bornDead: 0 }
    const dialled = attempt(m, generation, tally).pipe(
      Effect.retry({ schedule: m.backoff, times: m.maxDials - 1, while: (miss: Miss) => miss._tag !== "Stale" }),
      Effect.mapError((miss): Waiting | Stale =>
        m.closed
          ? m.closedError
          : miss._tag === "Stale"
          ? staleError
          : new DialFailed({
            target: m.target,
            server: m.server,
            dials: tally.dials,
            bornDead: tally.bornDead,
            reason: miss._tag === "Failed" ? miss.reason : "born dead"
          })
      ),
      Effect.ensuring(Effect.sync(() => {
        over = true
      })),
      Effect.withSpan("ConnectionPool.dial", { attributes: { target: m.target } })
    )
    const conn = yield* Option.isSome(requester) ? Effect.withParentSpan(dialled, requester.value) : dialled
    yield* Effect.addFinalizer(() => internal.dispose(conn))
    return conn
  })

// Decided in one step: a close announced before it makes the connection born dead, one after it
// is heard by the drainer as a drop of the held connection.
const install = <C>(m: Rc<C>, generation: number, conn: Conn<C>): Effect.Effect<Conn<C>, Miss> =>
  Effect.suspend(() => {
    if (!wanted(m, generation)) return Effect.fail(internal.stale)
    if (isDone(conn)) return Effect.fail(internal.bornDead)
    m.holder = conn
    return Effect.succeed(conn)
  })

const isDone = <C>(conn: Conn<C>): boolean => Deferred.isDoneUnsafe(conn.closed)

// One dial: its scope is a child of the pool's, so closing the pool releases what the dial opened
// at once, even while the dial itself cannot be interrupted.
const attempt = <C>(
  m: Rc<C>,
  generation: number,
  tally: { dials: number; bornDead: number }
): Effect.Effect<Conn<C>, Miss> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      if (!wanted(m, generation)) return yield* Effect.fail(internal.stale)
      const id = ++m.dials
      tally.dials++
      const scope = yield* Scope.fork(m.inner)
      return yield* restore(m.dial(scope)).pipe(
        Effect.flatMap((dialled) =>
          Effect.flatMap(internal.open(id, scope, dialled), (conn) =>
            restore(
              internal.subscribe(conn, dialled, m.closes).pipe(
                Effect.andThen(Effect.yieldNow),
                Effect.andThen(m.settle === undefined ? Effect.void : Effect.sleep(m.settle)),
                Effect.andThen(install(m, generation, conn))
              )
            ))
        ),
        Effect.catchCause((cause) => Effect.fail(internal.missOf(cause, wanted(m, generation)))),
        Effect.onError(() => Scope.close(scope, Exit.void)),
        Effect.tapError((miss) =>
          Effect.sync(() => {
            if (miss._tag === "BornDead") tally.bornDead++
          })
        )
      )
    })
  )

// A stale dial sends its callers back to the ref; a ref the close interrupted answers PoolClosed.
const answered = <C>(m: Rc<C>, cause: Cause.Cause<Waiting | Stale>): Effect.Effect<Conn<C>, Waiting, Scope.Scope> => {
  const failure = cause.reasons.find(Cause.isFailReason)
  if (failure !== undefined) return failure.error._tag === "Stale" ? live(m) : Effect.fail(failure.error)
  return m.closed ? Effect.fail(m.closedError) : Effect.failCause(cause as Cause.Cause<never>)
}

// The connection the ref holds, held for the current scope; one whose close was announced a moment
// ago (the drainer has not run yet) is dropped and the ref asked again.
const live = <C>(m: Rc<C>): Effect.Effect<Conn<C>, Waiting, Scope.Scope> =>
  Effect.suspend(() => {
    if (m.closed) return Effect.fail(m.closedError)
    const get = m.holder === undefined
      ? Effect.flatMap(Effect.serviceOption(Tracer.ParentSpan), (span) => {
        m.requester = span
        return RcRef.get(m.ref)
      })
      : RcRef.get(m.ref)
    return get.pipe(
      Effect.catchCause((cause) => answered(m, cause)),
      Effect.flatMap((conn) => isDone(conn) ? Effect.andThen(kill(m, conn), live(m)) : Effect.succeed(conn))
    )
  })

/** Drop a dead connection: out of the ref, disposed now (calls still on it are failing anyway). */
const kill = <C>(m: Rc<C>, conn: Conn<C>): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (m.holder !== conn) return internal.dispose(conn)
    m.holder = undefined
    return Effect.andThen(RcRef.invalidate(m.ref), internal.dispose(conn))
  })

const lost = <C>(m: Rc<C>, conn: Conn<C>, phase: LinkError["phase"], reason: string) =>
  Effect.andThen(
    kill(m, conn),
    Effect.fail(new ConnectionLost({ target: m.target, server: m.server, connection: conn.id, phase, reason }))
  )

const guard = <C, A, E, R>(
  m: Rc<C>,
  conn: Conn<C>,
  call: Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, LinkError> | ConnectionLost, R> => {
  const reframed = Effect.catch(
    call,
    (e): Effect.Effect<never, Exclude<E, LinkError> | ConnectionLost> =>
      isLinkError(e) ? lost(m, conn, e.phase, e.reason) : Effect.fail(e as Exclude<E, LinkError>)
  )
  return conn.watchCalls
    ? Effect.raceFirst(
      reframed,
      Effect.andThen(Deferred.await(conn.closed), () => lost(m, conn, "call", "the transport announced its close"))
    )
    : reframed
}

// The ref disposes a held connection once its calls end; a dial in flight lands to nobody.
const retire = <C>(m: Rc<C>): Effect.Effect<void> =>
  Effect.suspend(() => {
    m.generation++
    if (m.holder === undefined) return Effect.void
    m.holder = undefined
    return RcRef.invalidate(m.ref)
  })

const closeOf = <C>(m: Rc<C>): Effect.Effect<void> =>
  Effect.suspend(() => {
    m.closed = true
    m.generation++
    m.holder = undefined
    return Effect.andThen(Queue.shutdown(m.closes), Scope.close(m.inner, Exit.void))
  }).pipe(Effect.uninterruptible)
