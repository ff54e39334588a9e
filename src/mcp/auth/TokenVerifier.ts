/**
 * Checking a bearer token, as a service the user provides or swaps.
 *
 * A resource server must know, for each request, whether its token was issued by the authorization
 * server it trusts, for this resource, and still holds — and it must not decide that itself in
 * three places. So verification is one service with three implementations: JWTs checked against
 * the issuer's keys found through its metadata (`layerJwt`, the default, using `jose`), asking the
 * issuer through token introspection (`layerIntrospection`, RFC 7662), and a fixed table for tests
 * (`layerTest`). Every one answers a token it cannot accept with `InvalidToken` (a 401) and an
 * issuer it cannot reach with `VerifierUnavailable` (a refusal, never an open door). The token
 * itself is never logged, kept or put in a message.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Jose from "jose"
import type * as Identity from "../../core/Identity.ts"
import * as Discovery from "./internal/discovery.ts"
import * as Introspection from "./internal/introspection.ts"
import * as KeySet from "./internal/keySet.ts"
import { accepted, InvalidToken, maxSkew, millis, VerifierUnavailable } from "./internal/tokenClaims.ts"
import * as Verified from "./internal/verifiedTokens.ts"

/**
 * A token this resource server does not accept: malformed, expired, not yet valid, issued in the
 * future, for another audience, from another issuer, naming no subject, signed with an algorithm or
 * key it does not trust.
 *
 * @example
 * ```ts
 * import { McpTokenVerifier } from "effect-surface/mcp"
 * const refused = new McpTokenVerifier.InvalidToken({ reason: "the token has expired" })
 * ```
 *
 * @since 0.1.0
 */
export { InvalidToken } from "./internal/tokenClaims.ts"

/**
 * The authorization server could not be asked (down, slow, answering nonsense, or too many tokens
 * already waiting to be asked about): no token can be checked, so none is accepted.
 *
 * @example
 * ```ts
 * import { McpTokenVerifier } from "effect-surface/mcp"
 * const down = new McpTokenVerifier.VerifierUnavailable({ issuer: "https://auth.example.com", reason: "connection refused" })
 * ```
 *
 * @since 0.1.0
 */
export { VerifierUnavailable } from "./internal/tokenClaims.ts"

/**
 * The caller a set of verified claims names: the subject from `sub`, the client from `client_id` or
 * `azp`, the scopes from `scope` (space-separated) or `scp`. Claims with no `sub` are refused.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { McpTokenVerifier } from "effect-surface/mcp"
 * Result.isFailure(McpTokenVerifier.principalOf({ client_id: "ada" })) // true
 * ```
 *
 * @since 0.1.0
 */
export { principalOf } from "./internal/tokenClaims.ts"

/**
 * Verifies a bearer token for one resource (its audience) and says who it names.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpTokenVerifier } from "effect-surface/mcp"
 *
 * const who = (token: string) =>
 *   Effect.flatMap(Effect.service(McpTokenVerifier.TokenVerifier), (verifier) => verifier.verify(token, "https://mcp.example.com/mcp"))
 * ```
 *
 * @since 0.1.0
 */
export class TokenVerifier extends Context.Service<TokenVerifier, {
  /** The authorization server whose tokens are accepted (named in the protected-resource metadata). */
  readonly issuer: string
  readonly verify: (
    token: string,
    audience: string
  ) => Effect.Effect<Identity.Principal, InvalidToken | VerifierUnavailable>
}>()("effect-surface/McpTokenVerifier") {}

/**
 * The algorithms accepted by default: asymmetric only, so a public key can never be used as an
 * HMAC secret, and never `none`.
 *
 * @example
 * ```ts
 * import { McpTokenVerifier } from "effect-surface/mcp"
 * McpTokenVerifier.defaultAlgorithms.includes("HS256") // false
 * ```
 *
 * @since 0.1.0
 */
export const defaultAlgorithms: ReadonlyArray<string> = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519"
]

/**
 * How JWTs are checked.
 *
 * @example
 * ```ts
 * import type { McpTokenVerifier } from "effect-surface/mcp"
 * const options: McpTokenVerifier.JwtOptions = { issuer: "https://auth.example.com", clockSkew: "30 seconds" }
 * ```
 *
 * @since 0.1.0
 */
export interface JwtOptions {
  /** The issuer: tokens must carry it as `iss`; its keys are found through its metadata. */
  readonly issuer: string
  /** The key set's URL, when the issuer publishes no metadata. */
  readonly jwksUri?: string
  /** Default `defaultAlgorithms`; symmetric algorithms and `none` are refused whatever is given. */
  readonly algorithms?: ReadonlyArray<string>
  /**
   * How far `exp`, `nbf` and `iat` may be off: a token issued (`iat`) later than now by more is
   * refused. Default 30 seconds, at most 5 minutes.
   */
  readonly clockSkew?: Duration.Input
  /**
   * The least time between two attempts to fetch the key set (for a `kid` it lacks, or once it has
   * aged), answered or failed: a failure is answered from memory until it passes, so forged `kid`s
   * cannot send a burst to an issuer that is failing. Default 30 seconds.
   */
  readonly refetchCooldown?: Duration.Input
  /** How long a fetched key set is trusted before it is fetched again. Default 10 minutes. */
  readonly keysMaxAge?: Duration.Input
  /** How long the issuer may take to answer. Default 5 seconds. */
  readonly timeout?: Duration.Input
  /**
   * How long a token once verified is taken on its word (kept by its SHA-256, never as the token),
   * sparing the signature check on every request; never past its `exp`. Default 60 seconds; 0: every
   * request is checked in full.
   */
  readonly verifiedFor?: Duration.Input
}

const asymmetric = (algorithms: ReadonlyArray<string>) =>
  algorithms.filter((alg) => alg !== "none" && !alg.startsWith("HS"))

// jose's error codes that mean the token (not the issuer) is at fault.
const tokenFault = (code: string) =>
  code.startsWith("ERR_JWT") || code.startsWith("ERR_JWS") || code === "ERR_JWKS_NO_MATCHING_KEY" ||
  code === "ERR_JWKS_MULTIPLE_MATCHING_KEYS" || code === "ERR_JOSE_ALG_NOT_ALLOWED" ||
  code === "ERR_JOSE_NOT_SUPPORTED"

const codeOf = (cause: unknown): string =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : ""

const reasonOf = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

// A token naming a `kid` the keys held lack: maybe a key published since, maybe a forgery.
class UnknownKey extends Data.TaggedError("UnknownKey")<{ readonly reason: string }> {}

/**
 * Verify JWT access tokens against the issuer's key set: found through its RFC 8414 (or OpenID)
 * metadata once, cached, fetched again when it ages or when a token names a `kid` it lacks (at most
 * once per `refetchCooldown`, whether the last attempt was answered or failed; concurrent checks share
 * one fetch), with `iss`, `aud`, `exp`, `nbf`, `iat` and the algorithm checked, and `sub` required.
 *
 * @example
 * ```ts
 * import { McpTokenVerifier } from "effect-surface/mcp"
 * const verifier = McpTokenVerifier.layerJwt({ issuer: "https://auth.example.com" })
 * ```
 *
 * @since 0.1.0
 */
export const makeJwt = Effect.fnUntraced(function*(options: JwtOptions) {
  const issuer = options.issuer
  const timeout = millis(options.timeout, "5 seconds")
  const algorithms = asymmetric(options.algorithms ?? defaultAlgorithms)
  const skew = Duration.min(Duration.fromInputUnsafe(options.clockSkew ?? "30 seconds"), maxSkew)
  const skewMillis = Duration.toMillis(skew)
  const checks = { algorithms: [...algorithms], clockTolerance: Duration.toSeconds(skew), requiredClaims: ["exp"] }
  const found = yield* Discovery.make(issuer, timeout)
  const keys = yield* KeySet.make({
    uri: options.jwksUri !== undefined ? Effect.succeed(options.jwksUri) : Effect.flatMap(
      found.metadata,
      (metadata) =>
        typeof metadata["jwks_uri"] === "string"
          ? Effect.succeed(metadata["jwks_uri"])
          : Effect.fail(new Discovery.Unreachable({ reason: "its metadata names no jwks_uri" }))
    ),
    timeout,
    cooldown: millis(options.refetchCooldown, "30 seconds"),
    maxAge: millis(options.keysMaxAge, "10 minutes")
  })
  const verifiedFor = millis(options.verifiedFor, "60 seconds")
  const verified = Verified.make<Identity.Principal>()
  const unavailable = ({ reason }: Discovery.Unreachable) => new VerifierUnavailable({ issuer, reason })
  const checkWith = (token: string, audience: string, now: number, jwks: KeySet.Keys) =>
    Effect.tryPromise({
      try: () => Jose.jwtVerify(token, jwks, { ...checks, issuer, audience, currentDate: new Date(now) }),
      catch: (cause) => {
        const code = codeOf(cause)
        return code === "ERR_JWKS_NO_MATCHING_KEY"
          ? new UnknownKey({ reason: reasonOf(cause) })
          : tokenFault(code)
          ? new InvalidToken({ reason: reasonOf(cause) })
          : new VerifierUnavailable({ issuer, reason: `its key set could not be read: ${reasonOf(cause)}` })
      }
    })
  // A `kid` the keys lack sends for the key set again (at most once per cooldown), then a second try.
  const checkAnyKey = (token: string, audience: string, now: number) =>
    Effect.flatMap(
      Effect.mapError(keys.current, unavailable),
      (jwks) =>
        Effect.catchTag(checkWith(token, audience, now, jwks), "UnknownKey", (unknown) =>
          Effect.flatMap(Effect.mapError(keys.refresh(jwks), unavailable), (next) =>
            next === undefined
              ? Effect.fail(new InvalidToken({ reason: unknown.reason }))
              : Effect.catchTag(
                checkWith(token, audience, now, next),
                "UnknownKey",
                ({ reason }) =>
                  Effect.fail(new InvalidToken({ reason }))
              )))
    )
  const check = (token: string, audience: string, now: number, key: string | undefined) =>
    Effect.gen(function*() {
      const checked = yield* checkAnyKey(token, audience, now)
      const principal = yield* Effect.fromResult(accepted(checked.payload, now, skewMillis))
      if (key !== undefined) {
        const exp = typeof checked.payload.exp === "number" ? checked.payload.exp * 1000 : now
        Verified.set(verified, key, principal, Math.min(exp, now + verifiedFor))
      }
      return principal
    })
  // A token verified before is answered at once (no generator, no signature): the common case.
  const verify = (token: string, audience: string) =>
    Effect.clockWith((clock) => {
      const now = clock.currentTimeMillisUnsafe()
      const key = verifiedFor > 0 ? Verified.keyOf(token, audience) : undefined
      const kept = key === undefined ? undefined : Verified.get(verified, key, now)
      return kept !== undefined ? Effect.succeed(kept) : check(token, audience, now, key)
    })
  return TokenVerifier.of({ issuer, verify })
})

/**
 * `makeJwt` as a layer.
 *
 * @example
 * ```ts
 * import { McpAuth, McpTokenVerifier } from "effect-surface/mcp"
 * import { Layer } from "effect"
 *
 * const auth = McpAuth.layer({ scopesSupported: ["board:read"] }).pipe(
 *   Layer.provide(McpTokenVerifier.layerJwt({ issuer: "https://auth.example.com" }))
 * )
 * ```
 *
 * @since 0.1.0
 */
export const layerJwt = (options: JwtOptions): Layer.Layer<TokenVerifier> =>
  Layer.effect(TokenVerifier, makeJwt(options))

/**
 * How tokens are introspected.
 *
 * @example
 * ```ts
 * import type { McpTokenVerifier } from "effect-surface/mcp"
 * const options: McpTokenVerifier.IntrospectionOptions = {
 *   issuer: "https://auth.example.com",
 *   clientId: "mcp",
 *   clientSecret: "s3cret",
 *   verifiedFor: "30 seconds",
 *   maxInFlight: 8
 * }
 * ```
 *
 * @since 0.1.0
 */
export type IntrospectionOptions = Introspection.Options

/**
 * Verify tokens by asking the issuer (RFC 7662): an inactive token, one the issuer says is not an
 * access token (`token_type`), one for another audience or another issuer, one past its `exp` or
 * issued in the future, or one naming no subject is refused. Answers are kept a short while (a
 * refusal too), one call answers every request asking about the same token at once, and at most
 * `maxInFlight` calls are under way, so a burst of requests is not a burst at the issuer.
 *
 * @example
 * ```ts
 * import { McpTokenVerifier } from "effect-surface/mcp"
 * const verifier = McpTokenVerifier.layerIntrospection({ issuer: "https://auth.example.com", clientId: "mcp", clientSecret: "s3cret" })
 * ```
 *
 * @since 0.1.0
 */
export const makeIntrospection = (
  options: IntrospectionOptions
): Effect.Effect<TokenVerifier["Service"]> =>
  Effect.map(Introspection.make(options), (verifier) => TokenVerifier.of(verifier))

/**
 * `makeIntrospection` as a layer.
 *
 * @example
 * ```ts
 * import { McpTokenVerifier } from "effect-surface/mcp"
 * const verifier = McpTokenVerifier.layerIntrospection({ issuer: "https://auth.example.com", clientId: "mcp", clientSecret: "s3cret" })
 * ```
 *
 * @since 0.1.0
 */
export const layerIntrospection = (options: IntrospectionOptions): Layer.Layer<TokenVerifier> =>
  Layer.effect(TokenVerifier, makeIntrospection(options))

/**
 * A verifier for tests: each known token names its caller, for the audience given; any other
 * token is refused.
 *
 * @example
 * ```ts
 * import { Identity } from "effect-surface"
 * import { McpTokenVerifier } from "effect-surface/mcp"
 *
 * const verifier = McpTokenVerifier.layerTest({
 *   issuer: "https://auth.test",
 *   audience: "http://127.0.0.1:3000/mcp",
 *   tokens: { "reader-token": Identity.token({ subject: "ada", clientId: "cli", scopes: ["board:read"] }) }
 * })
 * ```
 *
 * @since 0.1.0
 */
export const layerTest = (options: {
  readonly issuer: string
  /** The resource the tokens were issued for; undefined: whatever resource asks. */
  readonly audience?: string
  readonly tokens: { readonly [token: string]: Identity.Principal }
}): Layer.Layer<TokenVerifier> =>
  Layer.succeed(
    TokenVerifier,
    TokenVerifier.of({
      issuer: options.issuer,
      verify: (token, audience) => {
        const principal = Object.hasOwn(options.tokens, token) ? options.tokens[token] : undefined
        if (principal === undefined)
          return Effect.fail(new InvalidToken({ reason: "it is not a token this issuer gave" }))
        return options.audience !== undefined && options.audience !== audience
          ? Effect.fail(new InvalidToken({ reason: `it was not issued for ${audience}` }))
          : Effect.succeed(principal)
      }
    })
  )
