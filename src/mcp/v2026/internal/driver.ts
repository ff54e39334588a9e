/**
 * Driving a parked 2026-07-28 call through one round: until its handler ends, waits on questions
 * (the call is parked, counted against its caller's bounds, and ended when no retry comes within
 * the state's lifetime) or goes on as a task; and how a round ended, as one `Outcome`.
 *
 * Kept apart from the table of calls (`calls`), which starts and continues calls and owns their
 * fibers: this module decides what one round does with one call.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import type * as Duration from "effect/Duration"
import * as Crypto from "node:crypto"
import type * as Json from "../../../core/Json.ts"
import { messageOf } from "../../../core/ToolFailure.ts"
import * as RpcError from "../../face/RpcError.ts"
import type * as Answers from "./answers.ts"
import type * as Asking from "./asking.ts"
import * as Holders from "./holders.ts"
import type * as RequestState from "../RequestState.ts"
import * as Wire from "../../../protocol/v2026/Messages.ts"

/**
 * How a round ended: the call's result (framed as its method frames it), its error, or the
 * questions it is waiting on and the state that continues it.
 */
export type Outcome =
  | { readonly _tag: "Complete"; readonly result: Json.JsonObject }
  | { readonly _tag: "Error"; readonly error: RpcError.Rpc; readonly status?: number }
  | {
    readonly _tag: "InputRequired"
    readonly inputRequests: { readonly [key: string]: Answers.InputRequest }
    readonly requestState: string
  }
  /** The parked call cannot be continued from here, for `reason` (it has ended, or its instance is out of reach). */
  | { readonly _tag: "Lost"; readonly reason: string }
  /** The call goes on as a task: what the request answers (`resultType: "task"`). */
  | { readonly _tag: "Task"; readonly task: Json.JsonObject }
/**
 * Another instance's parked call, continued from here: what the cluster layer provides.
 */
export interface Elsewhere {
  readonly continue: (
    payload: RequestState.Payload,
    inputResponses: { readonly [key: string]: unknown },
    round: Asking.Round
  ) => Effect.Effect<Outcome>
}

/**
 * Where calls go on as tasks: what the tasks table provides.
 */
export interface Tasking {
  /** How long a task-capable call runs, asking nothing, before it goes on as a task. */
  readonly after: Duration.Duration
  /**
   * Make `call` a task, at once (it is found from now on): what its request answers, and the
   * effect that makes it readable everywhere the task may be asked for.
   */
  readonly become: (call: Asking.Call) => { readonly created: Json.JsonObject; readonly saved: Effect.Effect<void> }
}

/** The parked calls of one face, as the driver reads and changes them. */
export interface Table {
  readonly instance: string
  readonly codec: RequestState.Codec
  readonly calls: Map<string, Asking.Call>
  readonly holders: Holders.Holders
  readonly fibers: FiberSet.FiberSet<unknown, unknown>
  readonly context: Context.Context<never>
  readonly elsewhere: Elsewhere | undefined
  readonly tasking: Tasking | undefined
}

/** A round refused before it ran: -32602 with `message`. */
export const refusal = (message: string): Outcome => ({
  _tag: "Error",
  error: { code: Wire.codes.invalidParams, message }
})

/**
 * How a call's handler ended, as a round's outcome. A call that ended in failure after asking for
 * what its client never declared failed for want of it: the revision has an error for exactly that
 * (-32021, HTTP 400), naming the capability.
 */
export const outcomeOf = (call: Asking.Call, exit: Exit.Exit<Json.JsonObject, RpcError.Refusal>): Outcome => {
  const failed = Exit.isFailure(exit) || exit.value["isError"] === true
  if (failed && call.lacking !== undefined) {
    return {
      _tag: "Error",
      status: 400,
      error: {
        code: Wire.codes.missingCapability,
        message: `Missing required client capability: the call needs the client's "${call.lacking}" capability`,
        data: { requiredCapabilities: { [call.lacking]: {} } }
      }
    }
  }
  if (Exit.isSuccess(exit)) return { _tag: "Complete", result: exit.value }
  const failure = Cause.findErrorOption(exit.cause)
  if (Option.isSome(failure)) return { _tag: "Error", error: RpcError.toRpcError(failure.value) }
  return Cause.hasInterrupts(exit.cause) && !Cause.hasDies(exit.cause)
    ? { _tag: "Error", error: { code: Wire.codes.internalError, message: "the call was cancelled" } }
    : { _tag: "Error", error: { code: Wire.codes.internalError, message: messageOf(exit.cause) } }
}

// Questions asked side by side arrive over a few turns of the scheduler: wait until a turn adds none.
const settle = (call: Asking.Call): Effect.Effect<void> =>
  Effect.gen(function*() {
    let seen = -1
    for (let turn = 0; turn < 16 && seen !== call.pending.size; turn++) {
      seen = call.pending.size
      yield* Effect.yieldNow
    }
  })

const park = (table: Table, call: Asking.Call): Effect.Effect<Outcome> =>
  Effect.gen(function*() {
    yield* settle(call)
    // Answers sent ahead for questions not asked in the round they came with are not kept: a
    // client answers what it was asked (and is asked again for anything it had not been).
    call.supplied.clear()
    const over = Holders.admit(table.holders, call, call.id === undefined)
    if (over !== undefined) return overBound(table, call, over)
    call.round++
    if (call.id === undefined) {
      call.id = Crypto.randomBytes(12).toString("base64url")
      table.calls.set(call.id, call)
    }
    const requestState = yield* table.codec.sign({
      call: call.id,
      instance: table.instance,
      round: call.round,
      target: call.target,
      answers: call.answered
    })
    const inputRequests: Record<string, Answers.InputRequest> = {}
    for (const [key, pending] of call.pending) inputRequests[key] = pending.request
    arm(table, call)
    return { _tag: "InputRequired", inputRequests, requestState } satisfies Outcome
  })

/** Drop `call` from the table, and stop counting what it held against its caller. */
export const forget = (table: Table, call: Asking.Call) => {
  if (call.id !== undefined && table.calls.delete(call.id)) Holders.release(table.holders, call)
}

// A call that would wait past its caller's bounds ends here, through its finalizers, and its
// request is told which bound it passed.
const overBound = (table: Table, call: Asking.Call, sentence: string): Outcome => {
  forget(table, call)
  if (call.fiber !== undefined) track(table, Fiber.interrupt(call.fiber))
  return { _tag: "Error", error: { code: -32000, message: sentence } }
}

// A parked call no retry continues ends with the state's lifetime, its finalizers run.
const arm = (table: Table, call: Asking.Call) => {
  const round = call.round
  call.expiry = track(
    table,
    Effect.sleep(table.codec.ttl).pipe(
      Effect.andThen(Effect.suspend(() => {
        if (call.round !== round || call.current !== undefined) return Effect.void
        forget(table, call)
        return call.fiber === undefined ? Effect.void : Fiber.interrupt(call.fiber)
      }))
    )
  )
}

const disarm = (call: Asking.Call) =>
  call.expiry === undefined ? Effect.void : Effect.suspend(() => {
    const expiry = call.expiry
    call.expiry = undefined
    return expiry === undefined ? Effect.void : Fiber.interrupt(expiry)
  })

// Where the call may go on as a task this round: a task-capable tool's, for a client that follows tasks.
const taskingOf = (table: Table, call: Asking.Call, round: Asking.Round): Tasking | undefined =>
  call.taskSupport !== undefined && round.envelope.capabilities.tasks ? table.tasking : undefined

/**
 * Drive the call through one round: until its handler ends (the call is over), waits on questions
 * (the call is parked) or goes on as a task (at `Caller.beginTask`, or once it has run `after`
 * without asking; a tool that requires a task answers with one even when it ended sooner). A
 * question asked before the driver listened parks it at once.
 * `then` (a retry's) runs once the driver listens and delivers the answers; should the handler
 * still wait on a question once it has settled, nothing new will wake the driver, so it parks there
 * and then. A request interrupted while driving cancels the call.
 */
export const drive = (
  table: Table,
  call: Asking.Call,
  round: Asking.Round,
  then: Effect.Effect<void> | undefined
): Effect.Effect<Outcome> =>
  Effect.andThen(
    disarm(call),
    Effect.callback<Outcome>((resume) => {
      call.current = round
      call.envelope = round.envelope
      let settled = false
      let unobserve: (() => void) | undefined
      let grace: Fiber.Fiber<void> | undefined
      const quiet = () => {
        call.wake = undefined
        call.begin = undefined
        grace?.interruptUnsafe()
        unobserve?.()
      }
      const finish = (outcome: Effect.Effect<Outcome>) => {
        if (settled) return
        settled = true
        quiet()
        resume(Effect.ensuring(outcome, Effect.sync(() => (call.current = undefined))))
      }
      const tasking = taskingOf(table, call, round)
      const becomeTask = (tasking: Tasking) => {
        if (settled) return
        forget(table, call)
        const made = tasking.become(call)
        finish(Effect.as(made.saved, { _tag: "Task", task: made.created } satisfies Outcome))
      }
      const ended = (exit: Exit.Exit<Json.JsonObject, RpcError.Refusal>) => {
        if (tasking !== undefined && call.taskSupport === "required") return becomeTask(tasking)
        forget(table, call)
        finish(Effect.succeed(outcomeOf(call, exit)))
      }
      if (call.ended !== undefined) return ended(call.ended)
      call.wake = () => finish(park(table, call))
      const asked = call.beginAsked
      call.beginAsked = false
      if (tasking !== undefined) {
        // Asked for while the call was parked: the task goes on with the answers this retry brought.
        if (asked) {
          becomeTask(tasking)
          if (then !== undefined) track(table, then)
          return
        }
        call.begin = () => becomeTask(tasking)
        grace = track(
          table,
          Effect.sleep(tasking.after).pipe(Effect.andThen(Effect.sync(() => {
            if (call.pending.size === 0) call.begin?.()
          })))
        )
      }
      unobserve = call.fiber?.addObserver(ended)
      if (then === undefined) {
        if (call.pending.size > 0) call.wake()
      } else {
        track(
          table,
          then.pipe(
            Effect.andThen(settle(call)),
            Effect.andThen(Effect.sync(() => {
              if (call.pending.size > 0) call.wake?.()
            }))
          )
        )
      }
      return Effect.suspend(() => {
        quiet()
        call.current = undefined
        forget(table, call)
        return call.fiber === undefined ? Effect.void : Fiber.interrupt(call.fiber)
      })
    })
  )

/** Run `effect` as a fiber of the table's own: ended with it. */
export const track = <A, E>(table: Table, effect: Effect.Effect<A, E>): Fiber.Fiber<A, E> => {
  const fiber = Effect.runForkWith(table.context)(effect)
  FiberSet.addUnsafe(table.fibers, fiber)
  return fiber
}
