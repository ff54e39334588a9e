/**
 * Tokens already verified, taken on their word until a deadline: a signature check costs more than
 * the rest of a small call, and a client sends the same token with every request. Kept by the
 * SHA-256 of token and audience (the token itself is never held), each until its `exp` or a short
 * while, whichever is sooner, and bounded in number (the oldest go first). What is kept is the
 * verifier's own: the caller a JWT names, or an introspection's outcome, refusals included.
 *
 * @internal
 */
import * as Crypto from "node:crypto"

/** The verified tokens of one verifier. */
export interface Verified<A> {
  readonly entries: Map<string, { readonly value: A; readonly until: number }>
  readonly max: number
}

export const make = <A>(max = 1024): Verified<A> => ({ entries: new Map(), max })

/** The key a token is kept by for an audience: never the token itself. */
export const keyOf = (token: string, audience: string): string =>
  Crypto.hash("sha256", `${audience}\u0000${token}`, "base64url")

/** What was kept for a token, while it may still be taken on its word. */
export const get = <A>(verified: Verified<A>, key: string, now: number): A | undefined => {
  const kept = verified.entries.get(key)
  if (kept === undefined) return undefined
  if (kept.until > now) return kept.value
  verified.entries.delete(key)
  return undefined
}

export const set = <A>(verified: Verified<A>, key: string, value: A, until: number): void => {
  if (verified.entries.size >= verified.max) {
    const oldest = verified.entries.keys().next()
    if (oldest.done !== true) verified.entries.delete(oldest.value)
  }
  verified.entries.set(key, { value, until })
}
