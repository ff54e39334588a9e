/**
 * The rows of one guarded call, in the order that makes the audit fail closed.
 *
 * A call is decided first (nothing is sent while deciding). A refusal is one row, `deny`/`refused`.
 * An allowed call is recorded `allow`/`started` before it is sent — when that row cannot be written
 * the call is not sent at all — and then `allow` with how it ended (`ok`, `error`, `cancelled`),
 * under the same id, so a process that dies mid-call leaves a `started` row with no end. A call
 * cancelled before the guard decided is `none`/`cancelled`, and one on which the guard itself
 * failed (a defect, logged with its cause under an id the caller is told) is `none`/`error`, or `allow`/`error` once it was sent.
 * The steps that write rows cannot be interrupted; deciding and sending can.
 *
 * @internal
 */
import type * as Identity from "../../core/Identity.ts"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import { randomUUID } from "node:crypto"
import * as ToolFailure from "../../core/ToolFailure.ts"
import * as ToolResult from "../../core/ToolResult.ts"
import type * as Audit from "../Audit.ts"
import * as GuardError from "../GuardError.ts"

/** What the guard decided: a refusal (its answer, and the row's reason), or a call to send. */
export type Verdict =
  | { readonly _tag: "Deny"; readonly answer: ToolResult.ToolResult; readonly reason: string }
  | { readonly _tag: "Allow"; readonly send: Effect.Effect<Sent> }

/** How a sent call ended: answered (`ok`), or answered with an error or failed on the way. */
export interface Sent {
  readonly outcome: "ok" | "error"
  readonly answer: ToolResult.ToolResult
}

/** One call as it came in. */
export interface Call {
  readonly door: Audit.Row["door"]
  readonly tool: string
  readonly args: unknown
  /** Who called, named in every row. */
  readonly caller: Identity.Principal
}

type Ending = Pick<Audit.Row, "decision" | "reason" | "outcome">

/** Decide `call`, send it when allowed, and write its rows to `audit` on the way. */
export const record = (
  audit: Audit.AuditLog["Service"],
  call: Call,
  decide: Effect.Effect<Verdict>
): Effect.Effect<ToolResult.ToolResult> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const id = randomUUID()
      const started = yield* Clock.currentTimeMillis
      // Arguments a digest cannot be taken of (nested past the stack) are refused by the check anyway.
      const args = Result.getOrElse(Result.try(() => audit.digest(call.args)), () => "undigestable")
      const write = (ending: Ending) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          audit.write({
            id,
            time: new Date(started).toISOString(),
            door: call.door,
            tool: call.tool,
            args,
            ...ending,
            durationMs: now - started,
            subject: call.caller.subject,
            client: call.caller.clientId
          }))
      // After the call's fate is settled, a row that cannot be written is told to the operator.
      const close = (ending: Ending) =>
        Effect.catch(
          write(ending),
          (failed) =>
            Effect.logError(`the ${ending.outcome} row of a call to ${call.tool} was not written: ${failed.message}`)
        )
      // The caller is told the id of the log line that holds the defect, never the defect's text.
      const failed = (phase: "deciding" | "sending", cause: Cause.Cause<unknown>) =>
        Effect.map(
          ToolFailure.logDefect(call.tool, `the guard failed while ${phase} on a call to ${call.tool}`, cause),
          (failure) => ToolResult.failure(new GuardError.GuardFailed({ tool: call.tool, while: phase, failure }))
        )

      const decided = yield* Effect.exit(restore(decide))
      if (Exit.isFailure(decided)) {
        if (Cause.hasInterruptsOnly(decided.cause)) {
          yield* close({ decision: "none", reason: "cancelled before the guard decided", outcome: "cancelled" })
          return yield* Effect.failCause(decided.cause)
        }
        yield* close({ decision: "none", reason: "the guard failed while deciding", outcome: "error" })
        return yield* failed("deciding", decided.cause)
      }
      const verdict = decided.value
      if (verdict._tag === "Deny") {
        yield* close({ decision: "deny", reason: verdict.reason, outcome: "refused" })
        return verdict.answer
      }
      const opened = yield* Effect.exit(write({ decision: "allow", reason: null, outcome: "started" }))
      if (Exit.isFailure(opened)) {
        yield* Effect.logError(`a call to ${call.tool} was not sent: its audit row could not be written`, opened.cause)
        return ToolResult.failure(new GuardError.Unaudited({ tool: call.tool }))
      }
      const sent = yield* Effect.exit(restore(verdict.send))
      if (Exit.isSuccess(sent)) {
        yield* close({ decision: "allow", reason: null, outcome: sent.value.outcome })
        return sent.value.answer
      }
      if (Cause.hasInterruptsOnly(sent.cause)) {
        yield* close({ decision: "allow", reason: null, outcome: "cancelled" })
        return yield* Effect.failCause(sent.cause)
      }
      yield* close({ decision: "allow", reason: "the guard failed while sending", outcome: "error" })
      return yield* failed("sending", sent.cause)
    })
  )
