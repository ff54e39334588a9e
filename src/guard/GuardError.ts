/**
 * Why a guard refuses a call, and why a guard cannot start.
 *
 * A refusal is an answer the caller reads — an agent over MCP, a person at a shell — so each is a
 * tagged error whose message is the one sentence both doors print and the audit records as the
 * reason. They live apart from `Guard` so the command line can word them without loading the
 * upstream connection.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The tool is not granted: denied by the guard file, or not named in it (the two are not told
 * apart, as neither is listed).
 *
 * @example
 * ```ts
 * import { GuardError } from "effect-surface/guard"
 * new GuardError.NotGranted({ tool: "get-env" }).message // 'tool "get-env" is not granted by this guard'
 * ```
 *
 * @since 0.1.0
 */
export class NotGranted extends Schema.TaggedError<NotGranted>()("NotGranted", { tool: Schema.String }) {
  override get message(): string {
    return `tool "${this.tool}" is not granted by this guard`
  }
}

/**
 * The upstream's live definition of the tool moved from the locked one: what would be called is not
 * what was reviewed.
 *
 * @example
 * ```ts
 * import { GuardError } from "effect-surface/guard"
 * new GuardError.Drifted({ tool: "echo" }).message
 * ```
 *
 * @since 0.1.0
 */
export class Drifted extends Schema.TaggedError<Drifted>()("Drifted", { tool: Schema.String }) {
  override get message(): string {
    return `tool "${this.tool}" changed upstream since the lock was written: review the change, then run effect-surface guard lock again`
  }
}

/**
 * The upstream no longer lists the tool (or could not be reached to list it).
 *
 * @example
 * ```ts
 * import { GuardError } from "effect-surface/guard"
 * new GuardError.Withdrawn({ tool: "echo", upstream: "everything" }).message
 * ```
 *
 * @since 0.1.0
 */
export class Withdrawn
  extends Schema.TaggedError<Withdrawn>()("Withdrawn", { tool: Schema.String, upstream: Schema.String })
{
  override get message(): string {
    return `tool "${this.tool}" is not offered by the upstream "${this.upstream}" now (it is gone, or the upstream cannot be reached)`
  }
}

/**
 * A request guard of the guard file holds for the call's arguments (`grants.<tool>.fail-when[i]`):
 * the file's own reason, or the condition itself when it gives none. Neither quotes what the caller
 * sent, so the audit keeps the sentence whole.
 *
 * @example
 * ```ts
 * import { GuardError } from "effect-surface/guard"
 * new GuardError.FailedWhen({ tool: "transfer", reason: "a bitcoin transfer of 100 or more needs a person" }).message
 * // 'the guard refuses this call to tool "transfer": a bitcoin transfer of 100 or more needs a person'
 * ```
 *
 * @since 0.1.0
 */
export class FailedWhen
  extends Schema.TaggedError<FailedWhen>()("FailedWhen", { tool: Schema.String, reason: Schema.String })
{
  override get message(): string {
    return `the guard refuses this call to tool "${this.tool}": ${this.reason}`
  }
}

/**
 * The call was allowed but not sent, because its audit row could not be written: the guard sends
 * nothing it has not recorded.
 *
 * @example
 * ```ts
 * import { GuardError } from "effect-surface/guard"
 * new GuardError.Unaudited({ tool: "transfer" }).message
 * // 'tool "transfer" was not called: the guard could not write its audit'
 * ```
 *
 * @since 0.1.0
 */
export class Unaudited extends Schema.TaggedError<Unaudited>()("Unaudited", { tool: Schema.String }) {
  override get message(): string {
    return `tool "${this.tool}" was not called: the guard could not write its audit`
  }
}

/**
 * The guard itself failed on a call (a defect, logged with its cause under the id `failure`):
 * deciding it, so it was not sent, or sending it, so whether it reached the upstream is not known.
 *
 * @example
 * ```ts
 * import { GuardError } from "effect-surface/guard"
 * new GuardError.GuardFailed({ tool: "transfer", while: "deciding", failure: "a1b2c3" }).message
 * // 'the guard failed while deciding on a call to tool "transfer", so it was not sent; the server\'s log has it as a1b2c3'
 * ```
 *
 * @since 0.1.0
 */
export class GuardFailed extends Schema.TaggedError<GuardFailed>()("GuardFailed", {
  tool: Schema.String,
  while: Schema.Literals(["deciding", "sending"]),
  failure: Schema.String
}) {
  override get message(): string {
    const what = this.while === "deciding"
      ? `the guard failed while deciding on a call to tool "${this.tool}", so it was not sent`
      : `the guard failed while sending a call to tool "${this.tool}": whether it reached the upstream is not known`
    return `${what}; the server's log has it as ${this.failure}`
  }
}

/**
 * The lock was taken from another upstream than the guard file names.
 *
 * @example
 * ```ts
 * import { GuardError } from "effect-surface/guard"
 * new GuardError.LockMismatch({ lock: "guard.lock.json", locked: "memory", upstream: "everything" }).message
 * ```
 *
 * @since 0.1.0
 */
export class LockMismatch extends Schema.TaggedError<LockMismatch>()("LockMismatch", {
  lock: Schema.String,
  locked: Schema.String,
  upstream: Schema.String
}) {
  override get message(): string {
    return `lock ${this.lock} was written for the upstream "${this.locked}", not "${this.upstream}": run effect-surface guard lock again`
  }
}

/**
 * Every refusal a guard answers a call with.
 *
 * @example
 * ```ts
 * import type { GuardError } from "effect-surface/guard"
 * const retryable = (refusal: GuardError.Refusal) => refusal._tag === "Withdrawn"
 * ```
 *
 * @since 0.1.0
 */
export type Refusal = NotGranted | Drifted | Withdrawn | FailedWhen
