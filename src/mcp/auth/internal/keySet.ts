/**
 * The issuer's key set, fetched and kept by the verifier itself. `jose`'s remote key set starts its
 * cooldown only when a fetch succeeds, so while the issuer's key-set endpoint fails every token
 * naming an unknown `kid` fetched it again: a forger's burst became a burst at the issuer. Here every
 * attempt, answered or not, starts the cooldown; a failed attempt is remembered and answered from
 * memory until the cooldown ends; callers arriving while a fetch is in flight wait for it and share
 * its outcome. Time is read from the `Clock`, so a test can drive it.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Semaphore from "effect/Semaphore"
import * as Jose from "jose"
import * as Discovery from "./discovery.ts"

/** Keys a JWT is checked against. */
export type Keys = Jose.JWTVerifyGetKey

interface Held {
  readonly keys: Keys | undefined
  readonly fetchedAt: number
  /** The last attempt to fetch, answered or not. */
  readonly triedAt: number
  /** Why the last attempt failed, when it did. */
  readonly failure: Discovery.Unreachable | undefined
}

/** The key set of one verifier. */
export interface KeySet {
  /** The keys while they are fresh; otherwise fetched again, at most once per cooldown. */
  readonly current: Effect.Effect<Keys, Discovery.Unreachable>
  /**
   * After a token named a `kid` that `seen` lacks: keys fetched since `seen`, or fetched now unless an
   * attempt was made within the cooldown; undefined when there is nothing newer to try.
   */
  readonly refresh: (seen: Keys) => Effect.Effect<Keys | undefined, Discovery.Unreachable>
}

const accept = { accept: "application/json, application/jwk-set+json" }

// A redirect is not followed: the key set is read from the URL the issuer names, or not at all.
const fetchKeys = (uri: string, timeout: number) =>
  Effect.flatMap(
    Discovery.fetchJson(uri, timeout, { headers: accept, redirect: "manual" }),
    (jwks) =>
      Effect.try({
        try: (): Keys => Jose.createLocalJWKSet(jwks as unknown as Jose.JSONWebKeySet),
        catch: (cause) =>
          new Discovery.Unreachable({
            reason: `${uri} answered something other than a JSON Web Key Set (${
              cause instanceof Error ? cause.message : String(cause)
            })`
          })
      })
  )

export const make = (options: {
  /** Where the key set is, found lazily (through the issuer's metadata). */
  readonly uri: Effect.Effect<string, Discovery.Unreachable>
  readonly timeout: number
  readonly cooldown: number
  readonly maxAge: number
}): Effect.Effect<KeySet> =>
  Effect.gen(function*() {
    const { cooldown, maxAge } = options
    const never = Number.NEGATIVE_INFINITY
    const held = yield* Ref.make<Held>({ keys: undefined, fetchedAt: never, triedAt: never, failure: undefined })
    const lock = yield* Semaphore.make(1)
    const fresh = (state: Held, now: number) => state.keys !== undefined && now - state.fetchedAt < maxAge
    const coolingDown = (state: Held, now: number) => now - state.triedAt < cooldown
    // One attempt, its outcome kept whatever it is.
    const attempt = (state: Held, now: number) =>
      Effect.flatMap(
        Effect.result(Effect.flatMap(options.uri, (uri) => fetchKeys(uri, options.timeout))),
        (result) => {
          const next: Held = result._tag === "Success"
            ? { keys: result.success, fetchedAt: now, triedAt: now, failure: undefined }
            : { ...state, triedAt: now, failure: result.failure }
          return Effect.as(Ref.set(held, next), next)
        }
      )
    // Under the lock: a caller that waited for another's fetch finds its outcome within the cooldown.
    const renewed = Effect.gen(function*() {
      const state = yield* Ref.get(held)
      const now = yield* Clock.currentTimeMillis
      if (fresh(state, now)) return state.keys!
      const after = coolingDown(state, now) ? state : yield* attempt(state, now)
      if (after.failure === undefined && after.keys !== undefined) return after.keys
      return yield* (after.failure ?? new Discovery.Unreachable({ reason: "its key set has not been read" }))
    })
    const current = Effect.flatMap(
      Ref.get(held),
      (state) =>
        Effect.clockWith((clock) =>
          fresh(state, clock.currentTimeMillisUnsafe())
            ? Effect.succeed(state.keys!)
            : lock.withPermits(1)(renewed)
        )
    )
    const refresh = (seen: Keys) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const state = yield* Ref.get(held)
        const now = yield* Clock.currentTimeMillis
        if (state.keys !== seen && fresh(state, now)) return state.keys
        if (coolingDown(state, now)) {
          return state.failure === undefined ? undefined : yield* state.failure
        }
        const after = yield* attempt(state, now)
        return after.failure === undefined ? after.keys : yield* after.failure
      }))
    return { current, refresh }
  })
