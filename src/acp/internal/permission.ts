/**
 * Asking the person's permission fails closed.
 *
 * Every other call's malformed answer is an error a turn can catch; a permission answer has a safe
 * direction instead. An answer that does not parse, a selected option that was never offered, or
 * an answer that arrives after the turn was cancelled all read as the protocol's own
 * `{ outcome: { outcome: "cancelled" } }`, exactly as if the person had dismissed the prompt, with
 * a warning naming what was wrong: code that checks for an allowing option sees a refusal either
 * way, and cannot be talked into proceeding by an answer it never asked for.
 */
import type { RequestPermissionResponse } from "@agentclientprotocol/sdk"
import * as Effect from "effect/Effect"
import { InputError } from "../../core/InputError.ts"
import type { RequestError } from "../AcpError.ts"

export const METHOD = "session/request_permission"

/** The answer a dismissed prompt gives, and the one every doubtful answer is read as. */
export const dismissed: RequestPermissionResponse = { outcome: { outcome: "cancelled" } }

const offeredIds = (params: object): ReadonlySet<unknown> => {
  const options = (params as { readonly options?: unknown }).options
  return new Set(
    Array.isArray(options) ?
      options.map((option: unknown) => (option as { readonly optionId?: unknown } | null)?.optionId) : []
  )
}

const closed = (why: string): Effect.Effect<RequestPermissionResponse> =>
  Effect.as(Effect.logWarning(`ACP ${METHOD} read as cancelled: ${why}`), dismissed)

/**
 * `call` (the checked request) with its doubtful endings read as a dismissal. A refusal, a
 * capability or schema mismatch and a closed connection stay errors: none of them is an answer.
 */
export const failClosed = (
  params: object,
  call: Effect.Effect<unknown, RequestError>,
  cancelled: () => boolean
): Effect.Effect<unknown, RequestError> =>
  call.pipe(
    Effect.flatMap((answer) => {
      if (cancelled()) return closed("the answer arrived after the turn was cancelled")
      const outcome = (answer as RequestPermissionResponse).outcome
      if (outcome.outcome === "selected" && !offeredIds(params).has(outcome.optionId)) {
        const issue = {
          path: ["outcome", "optionId"],
          message: `${JSON.stringify(outcome.optionId)} was never offered`
        }
        return closed(new InputError({ issues: [issue] }).message)
      }
      return Effect.succeed(answer)
    }),
    Effect.catchTags({
      MalformedAnswer: (error) => closed(error.message),
      // Cancelled at the editor while the person was still deciding: dismissed, as the protocol says.
      Cancelled: (error) => error.sent ? Effect.succeed(dismissed) : Effect.fail(error)
    })
  )
