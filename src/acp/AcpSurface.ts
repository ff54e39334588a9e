/**
 * The one seam code in an ACP turn uses to reach the person's editor.
 *
 * When somebody talks to an agent from their editor, the editor is a program that can read a file,
 * run a command, show progress or ask a question. A turn's code asks it through this service,
 * which travels in the Effect context: a forked fiber, a service three calls deep, and a fiber
 * still running after the turn ends all reach the same editor and session as the turn did. The
 * seam ships none of the capabilities that use it — reading a file through the editor, running
 * something there — those are ordinary Effects somebody else owns, written above it.
 *
 * `request` asks and waits; `notify` tells and waits for nothing; `onCancel` declares the cleanup
 * a turn owes if the person presses stop. Every answer is checked (`AcpChecks`), every call is
 * checked against what the editor advertised (`AcpCapabilities`), and each way a call can fail has
 * its own tagged error (`AcpError`).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { NoSurface, type NotifyError, type RequestError } from "./AcpError.ts"
import type { Answer, Capabilities, CleanupRequest, Method, Params, Update } from "./Protocol.ts"

/**
 * What a turn can ask of the editor it runs for.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AcpSurface } from "effect-surface/acp"
 *
 * const readme = Effect.gen(function*() {
 *   const surface: AcpSurface.Surface = yield* AcpSurface.AcpSurface
 *   const { content } = yield* surface.request("fs/read_text_file", { path: "/repo/README.md" })
 *   return content
 * })
 * ```
 *
 * @since 0.1.0
 */
export interface Surface {
  /** The session of the turn this surface belongs to. */
  readonly sessionId: string
  /** What the editor advertised in `initialize`. */
  readonly capabilities: Capabilities
  /**
   * Ask the editor and wait for its checked answer. `sessionId` is filled in. Interrupting the
   * caller cancels the call at the editor (`$/cancel_request`) without waiting for it. Every check
   * is made each time the Effect runs: one built before a cancel and run after it is `Cancelled`,
   * unsent.
   */
  readonly request: <M extends Method>(method: M, params: Params<M>) => Effect.Effect<Answer<M>, RequestError>
  /** Send one checked `session/update`; nothing waits for it to be written. Refused after a cancel, as `request` is. */
  readonly notify: (update: Update) => Effect.Effect<void, NotifyError>
  /**
   * Register calls to send, in order, if the turn is cancelled while the caller's scope is open.
   * Checked against the editor's capabilities now; returns the Effect that withdraws them.
   */
  readonly onCancel: (
    requests: ReadonlyArray<CleanupRequest>
  ) => Effect.Effect<Effect.Effect<void>, RequestError, Scope.Scope>
}

/**
 * The surface of the running turn, as a service.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AcpSurface } from "effect-surface/acp"
 *
 * const session = Effect.map(Effect.service(AcpSurface.AcpSurface), (surface) => surface.sessionId)
 * ```
 *
 * @since 0.1.0
 */
export class AcpSurface extends Context.Service<AcpSurface, Surface>()("effect-surface/AcpSurface") {}

const current = <A, E, R>(
  method: string,
  use: (surface: Surface) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | NoSurface, R> =>
  Effect.flatMap(
    Effect.serviceOption(AcpSurface),
    (found): Effect.Effect<A, E | NoSurface, R> =>
      Option.isSome(found) ? use(found.value) : Effect.fail(new NoSurface({ method }))
  )

/**
 * Ask the editor of the running turn. Without a turn this fails with `NoSurface`, never silently.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AcpSurface } from "effect-surface/acp"
 *
 * const write = AcpSurface.request("fs/write_text_file", { path: "/repo/notes.md", content: "hello" })
 * // @ts-expect-error the session is the running turn's: params that carry one do not compile
 * const elsewhere = AcpSurface.request("fs/read_text_file", { path: "/a", sessionId: "another" })
 * ```
 *
 * @since 0.1.0
 */
export const request = <M extends Method>(
  method: M,
  params: Params<M>
): Effect.Effect<Answer<M>, RequestError | NoSurface> => current(method, (surface) => surface.request(method, params))

/**
 * Tell the editor of the running turn something (a message chunk, a tool call's progress, a plan).
 *
 * @example
 * ```ts
 * import { AcpSurface } from "effect-surface/acp"
 *
 * const say = AcpSurface.notify({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "done" } })
 * ```
 *
 * @since 0.1.0
 */
export const notify = (update: Update): Effect.Effect<void, NotifyError | NoSurface> =>
  current("session/update", (surface) => surface.notify(update))

/**
 * Declare the cleanup a cancel would leave undone: sent after `session/prompt` has answered
 * `cancelled` and the turn has settled, in order, each under a short deadline, failures logged.
 * Withdrawn by the returned Effect, or dropped when the caller's scope closes; a turn that ends any
 * other way sends nothing.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AcpSurface } from "effect-surface/acp"
 *
 * const run = Effect.gen(function*() {
 *   const { terminalId } = yield* AcpSurface.request("terminal/create", { command: "npm", args: ["test"] })
 *   const withdraw = yield* AcpSurface.onCancel([
 *     { method: "terminal/kill", params: { terminalId } },
 *     { method: "terminal/release", params: { terminalId } }
 *   ])
 *   const exit = yield* AcpSurface.request("terminal/wait_for_exit", { terminalId })
 *   yield* withdraw // about to release it the ordinary way
 *   yield* AcpSurface.request("terminal/release", { terminalId })
 *   return exit
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
export const onCancel = (
  requests: ReadonlyArray<CleanupRequest>
): Effect.Effect<Effect.Effect<void>, RequestError | NoSurface, Scope.Scope> =>
  current(requests[0]?.method ?? "onCancel", (surface) => surface.onCancel(requests))

/**
 * Whether this code runs in an ACP turn: the guard to branch on, so the same code works from an
 * editor and from a schedule.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AcpSurface } from "effect-surface/acp"
 *
 * const greet = Effect.gen(function*() {
 *   if (!(yield* AcpSurface.has)) return yield* Effect.log("hello")
 *   yield* AcpSurface.notify({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hello" } })
 * })
 * ```
 *
 * @since 0.1.0
 */
export const has: Effect.Effect<boolean> = Effect.map(Effect.serviceOption(AcpSurface), Option.isSome)
