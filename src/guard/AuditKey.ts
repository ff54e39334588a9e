/**
 * The key an audit's argument digests are made with.
 *
 * A row names a call's arguments by a digest so that two calls with the same arguments can be told
 * apart from two with different ones, without the row holding them. A plain hash of a low-entropy
 * argument (an amount, an account number) is undone by hashing every candidate, so the digest is an
 * HMAC under a key that lives beside the audit, not in it: whoever reads the log without the key
 * learns nothing of the arguments, and whoever holds the key can still test a guess. The key is a
 * file readable by its owner alone — created so when the guard makes it, refused when someone else
 * could read it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { createHmac, randomBytes } from "node:crypto"
import * as Fs from "node:fs/promises"
import { canonical } from "../core/Json.ts"

/**
 * The key file could not be read, made, or is not fit to key a digest.
 *
 * @example
 * ```ts
 * import { AuditKey } from "effect-surface/guard"
 * new AuditKey.KeyError({ path: "audit.jsonl.key", reason: "it does not exist" }).message
 * // "audit key audit.jsonl.key cannot be used: it does not exist"
 * ```
 *
 * @since 0.1.0
 */
export class KeyError
  extends Schema.TaggedError<KeyError>()("KeyError", { path: Schema.String, reason: Schema.String })
{
  override get message(): string {
    return `audit key ${this.path} cannot be used: ${this.reason}`
  }
}

// Short enough to guess is no key: at least the hex of 16 random bytes.
const MIN_LENGTH = 32

const codeOf = (cause: unknown): unknown =>
  typeof cause === "object" && cause !== null && "code" in cause ? cause.code : undefined

const reasonOf = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

/**
 * The key in the file at `path`: its text, trimmed. Refused when missing, shorter than 32
 * characters, or readable by anyone but its owner (on systems with file modes).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Audit, AuditKey } from "effect-surface/guard"
 * // Does this row's call carry these arguments?
 * declare const row: Audit.Row
 * const same = Effect.map(AuditKey.read("audit.jsonl.key"), (key) => AuditKey.digest(key, { to: "acct-1" }) === row.args)
 * ```
 *
 * @since 0.1.0
 */
export const read = Effect.fn("AuditKey.read")(function*(path: string) {
  const failed = (reason: string) => new KeyError({ path, reason })
  const stat = yield* Effect.tryPromise({
    try: () => Fs.stat(path),
    catch: (cause) =>
      failed(codeOf(cause) === "ENOENT" ? "it does not exist" : `it cannot be read (${reasonOf(cause)})`)
  })
  if (process.platform !== "win32" && (stat.mode & 0o077) !== 0) {
    const mode = (stat.mode & 0o777).toString(8)
    return yield* failed(`others than its owner may read it (mode ${mode}): make it owner-only (chmod 600)`)
  }
  const key = (yield* Effect.tryPromise({
    try: () => Fs.readFile(path, "utf8"),
    catch: (cause) => failed(`it cannot be read (${reasonOf(cause)})`)
  })).trim()
  if (key.length < MIN_LENGTH) return yield* failed(`it holds ${key.length} characters; a key needs ${MIN_LENGTH}`)
  return key
})

/**
 * The key at `path`, made first when there is none: 32 random bytes as hex, in a file created
 * owner-only (and never over one that appeared meanwhile).
 *
 * @example
 * ```ts
 * import { AuditKey } from "effect-surface/guard"
 * const key = AuditKey.readOrCreate("audit.jsonl.key") // Effect<string, KeyError>
 * ```
 *
 * @since 0.1.0
 */
export const readOrCreate = Effect.fn("AuditKey.readOrCreate")(function*(path: string) {
  // Written whole under another name, then linked into place: a guard starting beside this one
  // sees no key or the whole key, never half of one, and a key already there is never replaced.
  const draft = `${path}.${randomBytes(6).toString("hex")}.draft`
  const failed = (cause: unknown) => new KeyError({ path, reason: `it cannot be created (${reasonOf(cause)})` })
  const linked = Effect.tryPromise({ try: () => Fs.link(draft, path), catch: (cause) => cause }).pipe(
    Effect.catch((cause) => codeOf(cause) === "EEXIST" ? Effect.void : Effect.fail(failed(cause)))
  )
  const create = Effect.tryPromise({
    try: () => Fs.writeFile(draft, `${randomBytes(32).toString("hex")}\n`, { flag: "wx", mode: 0o600 }),
    catch: failed
  }).pipe(
    Effect.andThen(linked),
    Effect.ensuring(Effect.ignore(Effect.tryPromise(() => Fs.rm(draft, { force: true }))))
  )
  const exists = yield* Effect.promise(() => Fs.access(path).then(() => true, () => false))
  if (!exists) yield* create
  return yield* read(path)
})

/**
 * The digest of a call's arguments under `key`: an HMAC-SHA256 of their JSON with keys in order, so
 * the same arguments digest alike whatever their key order, and a guess can be tested only with the
 * key.
 *
 * @example
 * ```ts
 * import { AuditKey } from "effect-surface/guard"
 * const key = "0".repeat(64)
 * AuditKey.digest(key, { b: 1, a: 2 }) === AuditKey.digest(key, { a: 2, b: 1 }) // true
 * ```
 *
 * @since 0.1.0
 */
export const digest = (key: string, args: unknown): string =>
  `hmac-sha256:${createHmac("sha256", key).update(canonical(args ?? null)).digest("hex")}`
