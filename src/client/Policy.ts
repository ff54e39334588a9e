/**
 * The one gate every toolset call passes before anything is sent.
 *
 * A remote server describes its own tools, and it can describe a destructive one as read-only, so
 * nothing the server says takes part in deciding whether a call may run: the policy sees the call
 * (its projected name, the server, the remote tool, the arguments) and answers allow, deny or ask.
 * Ask is put to the `Approval` service (the editor's permission prompt under ACP); with none
 * provided, ask means no. A policy that fails or dies denies, and so does one that answers anything
 * but a decision, with a sentence saying what it answered. With no policy given every call is
 * allowed: the gate is there to be configured, not to surprise.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Approval from "../core/Approval.ts"
import { messageOf } from "../core/ToolFailure.ts"
import { PolicyDenied } from "./Errors.ts"

/**
 * The call a policy decides on. No annotation or server-written text is part of it.
 *
 * @example
 * ```ts
 * import type { McpPolicy } from "effect-surface/client"
 * const request: McpPolicy.Request = { toolName: "files__write_file", server: "files", tool: "write_file", args: { path: "a" } }
 * ```
 *
 * @since 0.1.0
 */
export interface Request {
  /** The projected name the agent called. */
  readonly toolName: string
  /** The server's configured name. */
  readonly server: string
  /** The tool's own name on that server. */
  readonly tool: string
  /** The arguments, already checked against the tool's input schema. */
  readonly args: unknown
}

/**
 * What a policy answers. `reason` is worded for the model.
 *
 * @example
 * ```ts
 * import { McpPolicy } from "effect-surface/client"
 * const answers: ReadonlyArray<McpPolicy.Decision> = [McpPolicy.allow, McpPolicy.deny("read only"), McpPolicy.ask]
 * ```
 *
 * @since 0.1.0
 */
export type Decision =
  | { readonly _tag: "Allow" }
  | { readonly _tag: "Deny"; readonly reason?: string | undefined }
  | { readonly _tag: "Ask" }

/**
 * A policy: a decision per call, as a value or an Effect.
 *
 * @example
 * ```ts
 * import { McpPolicy } from "effect-surface/client"
 * const policy: McpPolicy.Policy = {
 *   decide: (r) => r.tool.startsWith("delete") ? McpPolicy.ask : McpPolicy.allow
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Policy {
  readonly decide: (request: Request) => Decision | Effect.Effect<Decision>
}

/**
 * Let the call through.
 *
 * @example
 * ```ts
 * import { McpPolicy } from "effect-surface/client"
 * McpPolicy.allow // { _tag: "Allow" }
 * ```
 *
 * @since 0.1.0
 */
export const allow: Decision = { _tag: "Allow" }

/**
 * Ask the person (the `Approval` service); no one to ask means no.
 *
 * @example
 * ```ts
 * import { McpPolicy } from "effect-surface/client"
 * McpPolicy.ask // { _tag: "Ask" }
 * ```
 *
 * @since 0.1.0
 */
export const ask: Decision = { _tag: "Ask" }

/**
 * Refuse the call, saying why.
 *
 * @example
 * ```ts
 * import { McpPolicy } from "effect-surface/client"
 * McpPolicy.deny("this agent only reads") // { _tag: "Deny", reason: "this agent only reads" }
 * ```
 *
 * @since 0.1.0
 */
export const deny = (reason?: string): Decision => ({ _tag: "Deny", reason })

const denied = (request: Request, reason: string) =>
  new PolicyDenied({ name: request.toolName, server: request.server, tool: request.tool, reason })

// A policy's answer as a decision: anything else it answers (`{ kind: "deny" }`, `undefined`, a
// Promise) is a denial saying what came back, since it has not said yes either.
const asDecision = (answer: unknown): Decision => {
  if (Predicate.hasProperty(answer, "_tag")) {
    const reason: unknown = Predicate.hasProperty(answer, "reason") ? answer.reason : undefined
    if (answer._tag === "Allow") return allow
    if (answer._tag === "Ask") return ask
    if (answer._tag === "Deny" && (reason === undefined || typeof reason === "string")) return deny(reason)
  }
  const given = Predicate.isPromiseLike(answer) ? "a Promise" : truncated(messageOf(answer))
  return deny(
    `the policy answered ${given}, which is not a decision: decide answers McpPolicy.allow, McpPolicy.deny(reason) ` +
      `or McpPolicy.ask, as a value or an Effect`
  )
}

const truncated = (text: string) => text.length > 80 ? `${text.slice(0, 80)}…` : text

const decision = (policy: Policy, request: Request): Effect.Effect<Decision> =>
  Effect.suspend(() => {
    const answer = policy.decide(request)
    return Effect.isEffect(answer) ? Effect.map(answer, asDecision) : Effect.succeed(asDecision(answer))
  }).pipe(
    // A policy that cannot answer has not said yes.
    Effect.catchCause((cause) => Effect.succeed(deny(`the policy failed (${messageOf(cause)})`)))
  )

/**
 * Decide one call: succeed to let it through, fail with `PolicyDenied` otherwise. `approval` is the
 * `Approval` captured where the toolset was made, used before any in the caller's context; with
 * neither, an ask is denied.
 *
 * @example
 * ```ts
 * import { Effect, Option, Predicate } from "effect"
 * import { McpPolicy } from "effect-surface/client"
 * const program = McpPolicy.gate(
 *   { decide: () => McpPolicy.ask },
 *   { toolName: "files__write_file", server: "files", tool: "write_file", args: {} },
 *   { approval: Option.none(), description: "Write a file" }
 * ) // fails with PolicyDenied: nobody to ask
 * ```
 *
 * @since 0.1.0
 */
export const gate = (
  policy: Policy | undefined,
  request: Request,
  context: { readonly approval: Option.Option<Approval.Approval["Service"]>; readonly description?: string | undefined }
): Effect.Effect<void, PolicyDenied> => {
  if (policy === undefined) return Effect.void
  return Effect.flatMap(decision(policy, request), (answer): Effect.Effect<void, PolicyDenied> => {
    switch (answer._tag) {
      case "Allow":
        return Effect.void
      case "Deny":
        return Effect.fail(denied(request, answer.reason ?? "the policy denied it"))
      case "Ask": {
        const question = Approval.ask({ ...request, description: context.description })
        const asked = Option.isSome(context.approval)
          ? Effect.provideService(question, Approval.Approval, context.approval.value) : question
        return Effect.flatMap(
          asked,
          (reply) => reply._tag === "Allow" ? Effect.void : Effect.fail(denied(request, reply.reason))
        )
      }
    }
  })
}
