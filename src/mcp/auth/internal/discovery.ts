/**
 * Asking an authorization server what it publishes: its RFC 8414 metadata (or, failing that, its
 * OpenID configuration), read once and kept, and any JSON answer, under a time bound. A failed read
 * is remembered for a short while, so an issuer that is down is not asked again by every request.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Semaphore from "effect/Semaphore"

/** The issuer did not answer, or answered something that is not its metadata. */
export class Unreachable extends Data.TaggedError("Unreachable")<{ readonly reason: string }> {}

/** Fetch a JSON object, failing with a sentence on anything else. */
export const fetchJson = (
  url: string,
  timeout: number,
  init?: RequestInit
): Effect.Effect<{ readonly [key: string]: unknown }, Unreachable> =>
  Effect.tryPromise({
    try: async (signal) => {
      const response = await fetch(url, { ...init, signal: AbortSignal.any([signal, AbortSignal.timeout(timeout)]) })
      if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`)
      const body: unknown = await response.json()
      if (typeof body !== "object" || body === null || Array.isArray(body)) {
        throw new Error(`${url} answered something other than a JSON object`)
      }
      return body as { readonly [key: string]: unknown }
    },
    catch: (cause) => new Unreachable({ reason: cause instanceof Error ? cause.message : String(cause) })
  })

// RFC 8414 puts the well-known segment before the issuer's path; OpenID after it.
const candidates = (issuer: string): ReadonlyArray<string> => {
  const url = new URL(issuer)
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "")
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`
  ]
}

const read = (issuer: string, timeout: number) =>
  Effect.gen(function*() {
    const reasons: Array<string> = []
    for (const url of candidates(issuer)) {
      const answer = yield* Effect.result(fetchJson(url, timeout))
      if (answer._tag === "Failure") {
        reasons.push(answer.failure.reason)
        continue
      }
      if (answer.success["issuer"] !== issuer) {
        reasons.push(`${url} names issuer ${JSON.stringify(answer.success["issuer"])}, not ${issuer}`)
        continue
      }
      return answer.success
    }
    return yield* new Unreachable({ reason: reasons.join("; ") })
  })

/** How long a failed read is answered from memory before the issuer is asked again. */
const retryAfter = Duration.seconds(5)

/** The issuer's metadata, read at first use and kept; a failure kept for `retryAfter`. */
export const make = (issuer: string, timeout: number) =>
  Effect.gen(function*() {
    const known = yield* Ref.make(Option.none<{ readonly [key: string]: unknown }>())
    const failed = yield* Ref.make(Option.none<{ readonly at: number; readonly error: Unreachable }>())
    const lock = yield* Semaphore.make(1)
    const attempt = Effect.gen(function*() {
      const kept = yield* Ref.get(known)
      if (Option.isSome(kept)) return kept.value
      const now = yield* Clock.currentTimeMillis
      const last = yield* Ref.get(failed)
      if (Option.isSome(last) && now - last.value.at < Duration.toMillis(retryAfter)) {
        return yield* last.value.error
      }
      return yield* read(issuer, timeout).pipe(
        Effect.tap((metadata) => Ref.set(known, Option.some(metadata))),
        Effect.tapError((error) => Ref.set(failed, Option.some({ at: now, error })))
      )
    })
    const metadata = Effect.flatMap(
      Ref.get(known),
      (kept) => Option.isSome(kept) ? Effect.succeed(kept.value) : lock.withPermits(1)(attempt)
    )
    return { metadata }
  })
