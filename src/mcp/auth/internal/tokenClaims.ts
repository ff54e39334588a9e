/**
 * What every verifier decides alike once a token's claims are known: the refusals it answers
 * (`InvalidToken`, `VerifierUnavailable`), whom the claims name (a `sub`, never a fallback), and that
 * a token was not issued in the future. One home, so the JWT and the introspection verifiers cannot
 * drift apart on whom a token speaks for.
 *
 * @internal
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Result from "effect/Result"
import * as Identity from "../../../core/Identity.ts"

/**
 * A token this resource server does not accept: malformed, expired, not yet valid, for another
 * audience, from another issuer, signed with an algorithm or key it does not trust.
 *
 * @example
 * ```ts
 * import { McpTokenVerifier } from "effect-surface/mcp"
 * const refused = new McpTokenVerifier.InvalidToken({ reason: "the token has expired" })
 * ```
 *
 * @since 0.1.0
 */
export class InvalidToken extends Data.TaggedError("InvalidToken")<{ readonly reason: string }> {
  override get message(): string {
    return `the bearer token was refused: ${this.reason}`
  }
}

/**
 * The authorization server could not be asked (down, slow, answering nonsense): no token can be
 * checked, so none is accepted.
 *
 * @example
 * ```ts
 * import { McpTokenVerifier } from "effect-surface/mcp"
 * const down = new McpTokenVerifier.VerifierUnavailable({ issuer: "https://auth.example.com", reason: "connection refused" })
 * ```
 *
 * @since 0.1.0
 */
export class VerifierUnavailable extends Data.TaggedError("VerifierUnavailable")<{
  readonly issuer: string
  readonly reason: string
}> {
  override get message(): string {
    return `the authorization server ${this.issuer} could not be reached to check the token (${this.reason}), so the request is refused`
  }
}

const text = (value: unknown) => typeof value === "string" && value !== "" ? value : undefined

/**
 * The caller a set of verified claims names: the subject from `sub`, the client from `client_id` or
 * `azp`, the scopes from `scope` (space-separated) or `scp`. Claims with no `sub` name no one and are
 * refused: falling back to the client's id would let a client's token pass as the user of that name,
 * and tokens naming neither would share one subject and each other's tasks. A token a client holds
 * for itself still has a `sub` (RFC 9068 names the client there), so nothing legitimate is lost.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { McpTokenVerifier } from "effect-surface/mcp"
 * const named = McpTokenVerifier.principalOf({ sub: "ada", client_id: "cli", scope: "board:read board:write" })
 * Result.isSuccess(named) && named.success.scopes // ["board:read", "board:write"]
 * Result.isFailure(McpTokenVerifier.principalOf({ client_id: "ada" })) // true
 * ```
 *
 * @since 0.1.0
 */
export const principalOf = (
  claims: { readonly [claim: string]: unknown }
): Result.Result<Identity.Principal, InvalidToken> => {
  const subject = text(claims["sub"])
  if (subject === undefined) {
    return Result.fail(new InvalidToken({ reason: "it names no subject (sub), so it cannot say whose it is" }))
  }
  const clientId = text(claims["client_id"]) ?? text(claims["azp"]) ?? ""
  const scope = claims["scope"]
  const scp = claims["scp"]
  const scopes = typeof scope === "string"
    ? scope.split(" ").filter((s) => s !== "")
    : Array.isArray(scp)
    ? scp.filter((s): s is string => typeof s === "string")
    : []
  return Result.succeed(Identity.token({ subject, clientId, scopes, claims }))
}

// The caller of claims checked otherwise; one issued later than now (beyond the skew) is refused.
export const accepted = (
  claims: { readonly [claim: string]: unknown },
  now: number,
  skew: number
): Result.Result<Identity.Principal, InvalidToken> => {
  const iat = claims["iat"]
  return typeof iat === "number" && iat * 1000 > now + skew
    ? Result.fail(new InvalidToken({ reason: "it says it was issued (iat) in the future" }))
    : principalOf(claims)
}

/** How far a verifier's clock may be off at most, whatever it is given. */
export const maxSkew = Duration.minutes(5)

export const millis = (input: Duration.Input | undefined, fallback: Duration.Input): number =>
  Duration.toMillis(Duration.fromInputUnsafe(input ?? fallback))
