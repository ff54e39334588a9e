/**
 * Token introspection (RFC 7662): asking the issuer about each token, and judging its answer. The
 * issuer is asked through `SharedChecks`, so answers are kept a short while (refusals too), the same
 * token asked about at once is one call, and the calls under way are bounded.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type * as Identity from "../../../core/Identity.ts"
import * as Discovery from "./discovery.ts"
import * as SharedChecks from "./sharedChecks.ts"
import { accepted, InvalidToken, maxSkew, millis, VerifierUnavailable } from "./tokenClaims.ts"
import * as Verified from "./verifiedTokens.ts"

/** How tokens are introspected (documented as `McpTokenVerifier.IntrospectionOptions`). */
export interface Options {
  readonly issuer: string
  /** The introspection endpoint, when the issuer's metadata names none. */
  readonly endpoint?: string
  /** The resource server's own credentials at the issuer (HTTP Basic). */
  readonly clientId: string
  readonly clientSecret: string
  /**
   * How far `exp` and `iat` may be off: a token issued (`iat`) later than now by more is refused.
   * Default 30 seconds, at most 5 minutes.
   */
  readonly clockSkew?: Duration.Input
  /** How long the issuer may take to answer. Default 5 seconds. */
  readonly timeout?: Duration.Input
  /**
   * How long the issuer's word that a token is active is kept (by the token's SHA-256, never the
   * token), never past its `exp`: revoking a token takes effect at the issuer at once and here within
   * this. Default 30 seconds; 0: not kept (requests asking at once still share one call).
   * @example "10 seconds"
   */
  readonly verifiedFor?: Duration.Input
  /**
   * How long a refusal is kept, so a token sent again and again is asked about once. Default 10
   * seconds; 0: never kept.
   * @example "1 minute"
   */
  readonly refusedFor?: Duration.Input
  /** How many tokens' answers are kept at most (the oldest go first). Default 1024. */
  readonly maxCached?: number
  /**
   * How many introspection calls may be under way at once; more wait their turn. The same token
   * asked about by many requests at once is one call. Default 8.
   * @example 16
   */
  readonly maxInFlight?: number
  /**
   * How many more calls may wait for a turn; beyond them a token is refused as if the issuer could
   * not be reached (503, with a sentence), never queued without end. Default 64.
   * @example 256
   */
  readonly maxWaiting?: number
}

// The issuer's metadata, its failures as the verifier's.
const discover = (issuer: string, timeout: number) =>
  Effect.map(Discovery.make(issuer, timeout), ({ metadata }) => ({
    metadata: Effect.mapError(metadata, ({ reason }) => new VerifierUnavailable({ issuer, reason }))
  }))

const audiences = (aud: unknown): ReadonlyArray<string> =>
  typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud.filter((a): a is string => typeof a === "string") : []

// RFC 7662 `token_type`: absent, or an access token; a refresh token or another kind is no bearer.
const bearerTypes: ReadonlyArray<string> = ["access_token", "bearer"]

// What an introspection answer says of a token for `audience`, now.
const judged = (
  answer: { readonly [key: string]: unknown },
  issuer: string,
  audience: string,
  now: number,
  skew: number
): Result.Result<Identity.Principal, InvalidToken> => {
  const refused = (reason: string) => Result.fail(new InvalidToken({ reason }))
  if (answer["active"] !== true) return refused("the issuer says it is not active")
  const type = answer["token_type"]
  if (type !== undefined && (typeof type !== "string" || !bearerTypes.includes(type.toLowerCase()))) {
    return refused(`the issuer says it is a ${JSON.stringify(type)}, not an access token`)
  }
  if (!audiences(answer["aud"]).includes(audience)) return refused(`it was not issued for ${audience}`)
  if (answer["iss"] !== undefined && answer["iss"] !== issuer) {
    return refused("it was issued by another authorization server")
  }
  const exp = answer["exp"]
  if (typeof exp === "number" && exp * 1000 + skew < now) return refused("the token has expired")
  return accepted(answer, now, skew)
}

// Until when an introspection's outcome is kept: an acceptance until its `exp` or `verifiedFor`,
// a refusal of the token for `refusedFor`, an issuer that could not be asked not at all.
const keptUntil =
  (verifiedFor: number, refusedFor: number) =>
  (exit: Exit.Exit<Identity.Principal, InvalidToken | VerifierUnavailable>, now: number): number => {
    if (Exit.isSuccess(exit)) {
      const exp = exit.value.claims["exp"]
      return Math.min(typeof exp === "number" ? exp * 1000 : Infinity, now + verifiedFor)
    }
    const error = Exit.findErrorOption(exit)
    return Option.isSome(error) && error.value._tag === "InvalidToken" ? now + refusedFor : 0
  }

/** The verifier of `options`: its issuer and how it verifies a token. */
export const make = Effect.fnUntraced(function*(options: Options) {
  const issuer = options.issuer
  const timeout = millis(options.timeout, "5 seconds")
  const skew = Duration.toMillis(Duration.min(Duration.fromInputUnsafe(options.clockSkew ?? "30 seconds"), maxSkew))
  const lookup = yield* discover(issuer, timeout)
  const endpoint = options.endpoint !== undefined ? Effect.succeed(options.endpoint) : Effect.flatMap(
    lookup.metadata,
    (metadata) =>
      typeof metadata["introspection_endpoint"] === "string"
        ? Effect.succeed(metadata["introspection_endpoint"])
        : Effect.fail(new VerifierUnavailable({ issuer, reason: "its metadata names no introspection_endpoint" }))
  )
  const basic = `Basic ${
    Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString(
      "base64"
    )
  }`
  const maxInFlight = Math.max(1, options.maxInFlight ?? 8)
  const maxWaiting = Math.max(0, options.maxWaiting ?? 64)
  const shared = yield* SharedChecks.make<Identity.Principal, InvalidToken | VerifierUnavailable>({
    max: options.maxCached ?? 1024,
    inFlight: maxInFlight,
    waiting: maxWaiting,
    busy: () =>
      new VerifierUnavailable({
        issuer,
        reason: `${maxInFlight} introspections are under way and ${maxWaiting} more wait (maxInFlight, maxWaiting)`
      }),
    keep: keptUntil(millis(options.verifiedFor, "30 seconds"), millis(options.refusedFor, "10 seconds"))
  })
  const introspect = (token: string, audience: string) =>
    Effect.gen(function*() {
      const url = yield* endpoint
      const answer = yield* Effect.mapError(
        Discovery.fetchJson(url, timeout, {
          method: "POST",
          headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ token, token_type_hint: "access_token" }).toString()
        }),
        ({ reason }) => new VerifierUnavailable({ issuer, reason })
      )
      return yield* Effect.fromResult(judged(answer, issuer, audience, yield* Clock.currentTimeMillis, skew))
    })
  const verify = (token: string, audience: string) =>
    shared(Verified.keyOf(token, audience), introspect(token, audience))
  return { issuer, verify }
})
