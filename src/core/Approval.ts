/**
 * Who answers when a policy says "ask": the person, through whatever door they are behind.
 *
 * A policy in front of a tool decides allow, deny or ask. "Ask" needs somebody to ask, and who that
 * is depends on where the agent runs: an editor's permission prompt under ACP, a terminal prompt on a
 * command line, nobody at all in a batch job. The gate asks this service and nothing else, so the
 * same policy holds behind every door, and a missing answer is a no: with no `Approval` provided,
 * `ask` fails closed.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/**
 * What the person is asked about: the call as the agent made it (its projected name and arguments)
 * and where it would go.
 *
 * @example
 * ```ts
 * import type { Approval } from "effect-surface"
 *
 * const request: Approval.Request = { toolName: "files__write_file", server: "files", tool: "write_file", args: { path: "a.txt" } }
 * ```
 *
 * @since 0.1.0
 */
export interface Request {
  /** The name the agent called, as projected into its tool map. */
  readonly toolName: string
  /** The server (or local surface key) the call would reach. */
  readonly server: string
  /** The tool's own name on that server. */
  readonly tool: string
  readonly args: unknown
  /** The tool's description as shown to the agent, when there is one to show the person too. */
  readonly description?: string | undefined
}

/**
 * The person's answer. Anything but `allow` stops the call; `reason` is worded for the model.
 *
 * @example
 * ```ts
 * import type { Approval } from "effect-surface"
 *
 * const no: Approval.Decision = { _tag: "Deny", reason: "the person declined" }
 * ```
 *
 * @since 0.1.0
 */
export type Decision =
  | { readonly _tag: "Allow" }
  | { readonly _tag: "Deny"; readonly reason: string }

/**
 * The service a policy's "ask" is put to. It never fails: a prompt that could not be shown, was
 * dismissed or timed out answers `Deny`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Approval } from "effect-surface"
 *
 * const ask = Effect.gen(function*() {
 *   const approval = yield* Approval.Approval
 *   return yield* approval.decide({ toolName: "t", server: "s", tool: "t", args: {} })
 * })
 * ```
 *
 * @since 0.1.0
 */
export class Approval extends Context.Service<Approval, {
  readonly decide: (request: Request) => Effect.Effect<Decision>
}>()("effect-surface/Approval") {}

/**
 * An answer that lets the call through.
 *
 * @example
 * ```ts
 * import { Approval } from "effect-surface"
 * Approval.allow // { _tag: "Allow" }
 * ```
 *
 * @since 0.1.0
 */
export const allow: Decision = { _tag: "Allow" }

/**
 * An answer that stops the call, with the sentence the model is told.
 *
 * @example
 * ```ts
 * import { Approval } from "effect-surface"
 * Approval.deny("the person declined") // { _tag: "Deny", reason: "the person declined" }
 * ```
 *
 * @since 0.1.0
 */
export const deny = (reason: string): Decision => ({ _tag: "Deny", reason })

/**
 * Ask whoever is provided, or nobody: without an `Approval` in context the answer is `Deny`, saying
 * that no one was there to ask.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Approval } from "effect-surface"
 *
 * const decision = Approval.ask({ toolName: "t", server: "s", tool: "t", args: {} }) // Deny: no one to ask
 * Effect.runSync(decision)
 * ```
 *
 * @since 0.1.0
 */
export const ask = (request: Request): Effect.Effect<Decision> =>
  Effect.flatMap(
    Effect.serviceOption(Approval),
    (found) =>
      found._tag === "Some"
        ? found.value.decide(request)
        : Effect.succeed(deny(`calling ${request.toolName} needs the person's approval, and no one is there to ask`))
  )

/**
 * An `Approval` that answers every question with the same decision: `layer(Approval.allow)` in a
 * trusted batch job, a fixed `Deny` where nobody may be asked.
 *
 * @example
 * ```ts
 * import { Approval } from "effect-surface"
 * const trusted = Approval.layer(Approval.allow)
 * ```
 *
 * @since 0.1.0
 */
export const layer = (decision: Decision): Layer.Layer<Approval> =>
  Layer.succeed(Approval, Approval.of({ decide: () => Effect.succeed(decision) }))
