/**
 * The person answers a policy's "ask" in their editor's permission prompt.
 *
 * A client toolset's policy may say a tool call needs the person's approval; under ACP the person
 * is behind the editor, so `Approval` is answered with `session/request_permission` through the
 * running turn's surface. It fails closed at every step: no turn to ask through, a prompt the
 * editor refused or could not show, an answer that does not parse, an option that was never
 * offered, an answer after the turn was cancelled — each is a `Deny`, worded for the model. Only
 * the allowing option the person picked lets the call through.
 *
 * @since 0.1.0
 */
import type { PermissionOption, RequestPermissionResponse } from "@agentclientprotocol/sdk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as Approval from "../core/Approval.ts"
import * as AcpSurface from "./AcpSurface.ts"
import * as AcpToolCalls from "./AcpToolCalls.ts"

/**
 * The choices the person is offered: allow this call once, or reject it.
 *
 * @example
 * ```ts
 * import { AcpApproval } from "effect-surface/acp"
 * AcpApproval.options.map((option) => option.optionId) // ["allow-once", "reject-once"]
 * ```
 *
 * @since 0.1.0
 */
export const options: ReadonlyArray<PermissionOption> = [
  { optionId: "allow-once", name: "Allow", kind: "allow_once" },
  { optionId: "reject-once", name: "Reject", kind: "reject_once" }
]

const allowing = new Set(options.filter((option) => option.kind.startsWith("allow")).map((option) => option.optionId))

const decision = (request: Approval.Request, answer: RequestPermissionResponse): Approval.Decision => {
  const outcome = answer.outcome
  if (outcome.outcome === "selected" && allowing.has(outcome.optionId)) return Approval.allow
  return Approval.deny(
    outcome.outcome === "selected"
      ? `the person declined the call to ${request.toolName}`
      : `the person dismissed the request to call ${request.toolName}`
  )
}

/**
 * Ask the person about one call through the running turn's editor; never fails.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AcpApproval } from "effect-surface/acp"
 *
 * const decision = AcpApproval.decide({ toolName: "files__write_file", server: "files", tool: "write_file", args: { path: "/a" } })
 * Effect.runSync(decision) // Deny outside a turn: no editor to ask
 * ```
 *
 * @since 0.1.0
 */
export const decide = Effect.fn("AcpApproval.decide")(function*(request: Approval.Request) {
  const toolCallId = (yield* Effect.service(AcpToolCalls.CurrentToolCall)) ?? AcpToolCalls.nextId()
  const asked = yield* Effect.result(AcpSurface.request("session/request_permission", {
    toolCall: {
      toolCallId,
      title: request.description === undefined ? `Call ${request.toolName}`
        : `Call ${request.toolName}: ${request.description}`,
      kind: "other",
      status: "pending",
      rawInput: request.args
    },
    options: [...options]
  }))
  if (Result.isFailure(asked)) {
    const why = asked.failure._tag === "NoSurface" ? "there is no editor to ask" : asked.failure.message
    return Approval.deny(`calling ${request.toolName} needs the person's approval, and it was not given: ${why}`)
  }
  return decision(request, asked.success)
})

/**
 * `Approval` answered by the editor of whichever turn asks. Every ACP turn has it already; provide
 * it yourself only to code that asks from a fiber outside the turn's context.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Approval } from "effect-surface"
 * import { AcpApproval } from "effect-surface/acp"
 *
 * const ask = Approval.ask({ toolName: "t", server: "s", tool: "t", args: {} }).pipe(Effect.provide(AcpApproval.layer))
 * ```
 *
 * @since 0.1.0
 */
export const layer: Layer.Layer<Approval.Approval> = Layer.succeed(Approval.Approval, Approval.Approval.of({ decide }))
