/**
 * What a Streamable HTTP shutdown waits for, counted on every request.
 *
 * A shutdown must let in-flight calls answer before it ends their sessions, and must not wait for a
 * call its client cancelled (the SDK answers nothing to one). So every request keeps a ledger: the
 * response it has open, the session it uses and the JSON-RPC requests it awaits answers to, undone in
 * one step when its response has been written. The counts are plain values changed in single
 * synchronous steps (each atomic), not a published ref, since they change on every request; once a
 * shutdown has begun, each change pokes it to look again.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as HttpChecks from "./HttpChecks.ts"

/** The server's counts, and whether it is shutting down. */
export interface Drain {
  closing: boolean
  /** POSTs whose body is being read and whose session is being found. */
  admitting: number
  /** Responses begun and not yet written. */
  responses: number
  /**
   * The requests POSTs carry (a batch counts each of its requests), from their admission until their
   * response is written; see `admitIds`.
   */
  inFlight: number
  /** Requests whose token is being checked; see `checking`. */
  checking: number
  /** The requests admitted and not yet answered, keyed by session and JSON-RPC id. */
  readonly awaiting: Set<string>
  /** Cancellations that arrived before their requests; see `admitIds`. */
  readonly cancelledEarly: Set<string>
  /** Poked at each change once a shutdown has begun (it only re-checks, so one poke is enough). */
  readonly changed: Queue.Queue<void>
}

const maxCancelledEarly = 1024

export const make: Effect.Effect<Drain> = Effect.map(Queue.sliding<void>(1), (changed) => ({
  closing: false,
  admitting: 0,
  responses: 0,
  inFlight: 0,
  checking: 0,
  awaiting: new Set(),
  cancelledEarly: new Set(),
  changed
}))

/** Change the counts in one step, and poke a shutdown under way. */
export const count = (drain: Drain, change: (drain: Drain) => void): Effect.Effect<void> =>
  Effect.sync(() => {
    change(drain)
    if (drain.closing) Queue.offerUnsafe(drain.changed, undefined)
  })

/** Wait (at most `within`) for the counts to reach a state; past it, log `late` and go on. */
export const settled = (
  drain: Drain,
  done: (drain: Drain) => boolean,
  within: Duration.Duration,
  late: string
): Effect.Effect<void> =>
  Effect.suspend(function recheck(): Effect.Effect<void> {
    return done(drain) ? Effect.void : Effect.andThen(Queue.take(drain.changed), recheck)
  }).pipe(
    Effect.timeoutOrElse({
      duration: within,
      orElse: () => Effect.logWarning(`MCP over HTTP after ${Duration.format(within)}: ${late}`)
    })
  )

/**
 * What one request has counted, undone in one step when its scope closes (when its body has been
 * written). Filled in as the request proceeds, each entry in the same uninterruptible step as what
 * it records.
 */
export interface Ledger {
  /** Gives back the session the request used, when it used one. */
  release: Effect.Effect<void> | undefined
  asked: ReadonlyArray<string>
  /** How many of the requests it carries are counted in flight. */
  flying: number
}

/** Count a response as open for the request's scope, with the ledger that undoes it. */
export const openLedger = (drain: Drain): Effect.Effect<Ledger, never, Scope.Scope> =>
  Effect.flatMap(Effect.scope, (scope) =>
    Effect.uninterruptible(Effect.suspend(() => {
      const ledger: Ledger = { release: undefined, asked: [], flying: 0 }
      return Effect.as(
        Effect.andThen(count(drain, (d) => d.responses++), Scope.addFinalizer(scope, settle(drain, ledger))),
        ledger
      )
    })))

const settle = (drain: Drain, ledger: Ledger) =>
  Effect.suspend(() => {
    const { asked, flying, release } = ledger
    return Effect.andThen(
      count(drain, (d) => {
        d.responses--
        d.inFlight -= flying
        for (const key of asked) d.awaiting.delete(key)
      }),
      release ?? Effect.void
    )
  })

/**
 * Whether `carried` requests would be admitted now under `maxInFlight`: asked before anything costly
 * is looked up for them (a batch's scopes), so a batch that cannot be admitted is refused first.
 * `admitIds` still decides.
 */
export const fits = (drain: Drain, carried: number, maxInFlight: number): boolean =>
  carried === 0 || drain.inFlight + carried <= maxInFlight

/**
 * Record on the ledger a session the request uses: `use` counts it in use now (none when the
 * request has just opened it, counted in use already so a full table never evicts it before its
 * `initialize` is answered), and `release` gives it back when the ledger settles.
 */
export const useSession = (
  ledger: Ledger,
  use: Effect.Effect<void>,
  release: Effect.Effect<void>
): Effect.Effect<void> =>
  Effect.uninterruptible(Effect.suspend(() => {
    ledger.release = release
    return use
  }))

/**
 * The requests a POST carries are answered while its response goes on (a 2026 listen stream once
 * acknowledged): no longer in flight nor awaited, so a stream left open keeps no request out. Its
 * response is still counted until written.
 */
export const answered = (drain: Drain, ledger: Ledger): Effect.Effect<void> =>
  Effect.uninterruptible(Effect.suspend(() => {
    const { asked, flying } = ledger
    ledger.flying = 0
    ledger.asked = []
    return count(drain, (d) => {
      d.inFlight -= flying
      for (const key of asked) d.awaiting.delete(key)
    })
  }))

/** Count `admit` as admitting while it runs. */
export const admitting = <A, E, R>(drain: Drain, admit: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.andThen(
      count(drain, (d) => d.admitting++),
      Effect.onExit(restore(admit), () => count(drain, (d) => d.admitting--))
    )
  )

const awaitKey = (session: string, id: unknown) => `${session} ${JSON.stringify(id)}`

/**
 * The answer to a request past the server's capacity: 503 with `Retry-After`, saying why in a
 * sentence — `carried` is the number of requests the refused POST carries (a batch's, or one).
 */
export const busy = (max: number, carried = 1): HttpChecks.Refusal =>
  new HttpChecks.Refusal({
    status: 503,
    code: -32000,
    message: carried <= 1
      ? `Service Unavailable: ${max} requests are in flight; retry shortly`
      : carried > max
      ? `Service Unavailable: this batch carries ${carried} requests, more than the ${max} served at once; send fewer in each POST`
      : `Service Unavailable: this batch carries ${carried} requests, more than are free of the ${max} served at once; retry shortly`,
    retryAfter: 1
  })

/**
 * Check a request's token counted among the checks under way, refused with `busy` — before its
 * token is looked at — when `max` already are. A check may ask an issuer (introspection, keys), so
 * a crowd of requests with tokens nobody has checked yet asks it at most `max` times at once: the
 * same bound as the requests served. Counted apart from `inFlight`, so an answer a handler in
 * flight waits on is never refused for the handlers that wait on it.
 */
export const checking = <A, E, R>(
  drain: Drain,
  max: number,
  check: Effect.Effect<A, E, R>
): Effect.Effect<A, E | HttpChecks.Refusal, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.suspend((): Effect.Effect<A, E | HttpChecks.Refusal, R> => {
      // One step, so no other check is let in between the look at the count and its change.
      if (drain.checking >= max) return Effect.fail(busy(max))
      drain.checking++
      return Effect.onExit(restore(check), () => count(drain, (d) => d.checking--))
    })
  )

/**
 * Record the requests a POST carries as awaiting their answers, and the cancellations it carries.
 * Each request a POST carries is counted in flight — a batch as many as it carries — and the POST is
 * refused whole (`undefined`) when they do not all fit under `maxInFlight`. Notifications and
 * answers are never refused: a handler in flight may be waiting on one. Over HTTP
 * a request and its cancellation are two POSTs that may arrive in either order: a cancellation for
 * a request not seen yet is remembered (bounded), and that request never starts — it is answered
 * among the `dropped`.
 */
export const admitIds = (
  drain: Drain,
  ledger: Ledger,
  session: string,
  ids: ReadonlyArray<unknown>,
  cancelled: ReadonlyArray<unknown>,
  maxInFlight: number
): Effect.Effect<ReadonlyArray<unknown> | undefined> => {
  if (ids.length === 0 && cancelled.length === 0) return Effect.succeed([])
  // One step, so no other request is admitted between the look at the count and its change.
  return Effect.sync(() => {
    if (ids.length > 0 && drain.inFlight + ids.length > maxInFlight) return undefined
    const dropped: Array<unknown> = []
    record(drain, ledger, session, ids, cancelled, dropped)
    if (drain.closing) Queue.offerUnsafe(drain.changed, undefined)
    return dropped
  })
}

const record = (
  drain: Drain,
  ledger: Ledger,
  session: string,
  ids: ReadonlyArray<unknown>,
  cancelled: ReadonlyArray<unknown>,
  dropped: Array<unknown>
) => {
  const { awaiting, cancelledEarly } = drain
  drain.inFlight += ids.length
  ledger.flying = ids.length
  for (const id of cancelled) {
    const key = awaitKey(session, id)
    if (!awaiting.delete(key)) cancelledEarly.add(key)
  }
  const asked: Array<string> = []
  for (const id of ids) {
    const key = awaitKey(session, id)
    if (cancelledEarly.delete(key)) dropped.push(id)
    else asked.push(key)
  }
  for (const key of asked) awaiting.add(key)
  ledger.asked = asked
  // The oldest remembered cancellations go first (a Set iterates in insertion order).
  for (const key of cancelledEarly) {
    if (cancelledEarly.size <= maxCancelledEarly) break
    cancelledEarly.delete(key)
  }
}
