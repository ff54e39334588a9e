/**
 * Tokens already verified, taken on their word until a deadline: a signature check costs more than
 * the rest of a small call, and a client sends the same token with every request. Kept by the
 * SHA-256 of token and audience (the token itself is never held), each until its `exp` or a short
 * while, whichever is sooner, and bounded in number (the oldest go first).
 *
 * @internal
 */
import * as Crypto from "node:crypto"
import type * as Identity from "../../core/Identity.ts"

/** The verified tokens of one verifier. */
export interface Verified {
  readonly entries: Map<string, { readonly principal: Identity.Principal; readonly until: number }>
  readonly max: number
}

export const make = (max = 1024): Verified => ({ entries: new Map(), max })

/** The key a token is kept by for an audience: never the token itself. */
export const keyOf = (token: string, audience: string): string =>
  Crypto.hash("sha256", `${audience}\u0000${token}`, "base64url")

/** The caller a token verified earlier names, while it may still be taken on its word. */
export const get = (verified: Verified, key: string, now: number): Identity.Principal | undefined => {
  const kept = verified.entries.get(key)
  if (kept === undefined) return undefined
  if (kept.until > now) return kept.principal
  verified.entries.delete(key)
  return undefined
}

export const set = (verified: Verified, key: string, principal: Identity.Principal, until: number): void => {
  if (verified.entries.size >= verified.max) {
    const oldest = verified.entries.keys().next()
    if (oldest.done !== true) verified.entries.delete(oldest.value)
  }
  verified.entries.set(key, { principal, until })
}
