/**
 * Checks that each cost a call to the authorization server, shared, bounded and remembered. Without
 * this, introspection asked the issuer once per request: a repeated bad token was one call each time,
 * and a burst of requests was as many calls at once. Here an outcome (a refusal too) is kept by its
 * key for as long as `keep` says; a check already under way for a key is awaited, not repeated; at
 * most `inFlight` run at once, at most `waiting` more wait for a turn, and any beyond are refused with
 * `busy` rather than queued without end. The first caller runs the check; if it goes away before
 * the answer, those awaiting it start again (one of them runs it), so none is left waiting.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Ref from "effect/Ref"
import * as Semaphore from "effect/Semaphore"
import * as Verified from "./verifiedTokens.ts"

export interface Options<A, E> {
  /** Outcomes kept at most (the oldest go first). */
  readonly max: number
  readonly inFlight: number
  readonly waiting: number
  /** The refusal of a check beyond `inFlight + waiting`. */
  readonly busy: () => E
  /** Until when an outcome is taken on its word; not after `now`: not kept. */
  readonly keep: (exit: Exit.Exit<A, E>, now: number) => number
}

/** Run `check` for `key`, or answer what a check of it answered, or await the one under way. */
export type Shared<A, E> = (key: string, check: Effect.Effect<A, E>) => Effect.Effect<A, E>

export const make = <A, E>(options: Options<A, E>): Effect.Effect<Shared<A, E>> =>
  Effect.gen(function*() {
    const kept = Verified.make<Exit.Exit<A, E>>(options.max)
    // Undefined: the caller running the check went away before its answer.
    const pending = new Map<string, Deferred.Deferred<Exit.Exit<A, E> | undefined>>()
    const turns = yield* Semaphore.make(options.inFlight)
    const admitted = yield* Ref.make(0)
    const limit = options.inFlight + options.waiting
    const enter = Ref.modify(admitted, (n): readonly [boolean, number] => n >= limit ? [false, n] : [true, n + 1])
    const leave = Ref.update(admitted, (n) => n - 1)
    const bounded = (check: Effect.Effect<A, E>) =>
      Effect.flatMap(enter, (entered) =>
        entered
          ? Effect.ensuring(turns.withPermits(1)(check), leave)
          : Effect.fail(options.busy()))
    const settle = (key: string, deferred: Deferred.Deferred<Exit.Exit<A, E> | undefined>) => (exit: Exit.Exit<A, E>) =>
      Effect.clockWith((clock) =>
        Effect.sync(() => {
          pending.delete(key)
          if (Exit.hasInterrupts(exit)) return void Deferred.doneUnsafe(deferred, Exit.succeed(undefined))
          const now = clock.currentTimeMillisUnsafe()
          const until = options.keep(exit, now)
          if (until > now) Verified.set(kept, key, exit, until)
          Deferred.doneUnsafe(deferred, Exit.succeed(exit))
        })
      )
    const shared: Shared<A, E> = (key, check) =>
      Effect.clockWith((clock) => {
        const known = Verified.get(kept, key, clock.currentTimeMillisUnsafe())
        if (known !== undefined) return known
        const under = pending.get(key)
        if (under !== undefined) {
          return Effect.flatMap(Deferred.await(under), (exit) => exit === undefined ? shared(key, check) : exit)
        }
        const deferred = Deferred.makeUnsafe<Exit.Exit<A, E> | undefined>()
        pending.set(key, deferred)
        return Effect.onExit(bounded(check), settle(key, deferred))
      })
    return shared
  })
