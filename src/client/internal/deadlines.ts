/**
 * The deadlines of one connection's requests, kept by one fiber on the Effect Clock.
 *
 * Racing each request against a sleep forks two fibers and sets a timer per call, the largest part
 * of what the toolset added to a call. Here a request arms an entry — when it expires, and what to
 * do then — and disarms it once answered; one fiber per connection sleeps until the earliest
 * armed expiry and fires whatever has expired. Entries of one duration expire in the order they
 * were armed, so each duration keeps its own insertion-ordered set: arming and disarming cost a set
 * operation, and the next expiry is the first entry of some set. Time is the connection's `Clock`
 * (monotonic), so `TestClock` drives every deadline.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"

/**
 * Arms deadlines: `expire` runs (once, on the deadline fiber) when `ms` have passed, unless the
 * returned disarm runs first. `expire` must not throw.
 */
export interface Deadlines {
  readonly arm: (ms: number, expire: () => void) => () => void
}

interface Entry {
  readonly at: number
  readonly expire: () => void
}

interface Wheel {
  readonly now: () => number
  readonly byDuration: Map<number, Set<Entry>>
  /** The expiry the fiber sleeps until; `Infinity` while it waits to be woken. */
  target: number
}

// Fire every expired entry; answer the earliest expiry still armed (`Infinity`: none).
const fireDue = (wheel: Wheel, now: number): number => {
  let next = Infinity
  for (const [ms, entries] of wheel.byDuration) {
    for (const entry of entries) {
      if (entry.at > now) {
        if (entry.at < next) next = entry.at
        break
      }
      entries.delete(entry)
      entry.expire()
    }
    if (entries.size === 0) wheel.byDuration.delete(ms)
  }
  return next
}

const run = (wheel: Wheel, wake: Queue.Queue<void>): Effect.Effect<never> =>
  Effect.suspend(() => {
    const now = wheel.now()
    const next = fireDue(wheel, now)
    wheel.target = next
    return next === Infinity
      ? Queue.take(wake)
      : Effect.raceFirst(Effect.sleep(Duration.millis(next - now)), Queue.take(wake))
  }).pipe(Effect.forever)

/**
 * The deadlines of one connection, their fiber living as long as the scope.
 */
export const make: Effect.Effect<Deadlines, never, Scope.Scope> = Effect.gen(function*() {
  const clock = yield* Clock.Clock
  const wheel: Wheel = {
    now: () => Number(clock.monotonicTimeNanosUnsafe()) / 1_000_000,
    byDuration: new Map(),
    target: Infinity
  }
  // Wakes coalesce: one pending wake re-reads every set.
  const wake = yield* Queue.sliding<void>(1)
  yield* Effect.forkScoped(run(wheel, wake))
  return {
    arm: (ms, expire) => {
      const entry: Entry = { at: wheel.now() + ms, expire }
      let entries = wheel.byDuration.get(ms)
      if (entries === undefined) wheel.byDuration.set(ms, entries = new Set())
      entries.add(entry)
      // Only an expiry sooner than the one slept towards needs the fiber's attention now.
      if (entry.at < wheel.target) {
        wheel.target = entry.at
        Queue.offerUnsafe(wake, undefined)
      }
      const armed = entries
      return () => {
        // A set left empty goes at once, so durations used once (a caller's own budgets) never pile up.
        if (armed.delete(entry) && armed.size === 0 && wheel.byDuration.get(ms) === armed) wheel.byDuration.delete(ms)
      }
    }
  }
})
