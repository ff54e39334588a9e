/**
 * Calls that asked their client something, parked between the rounds of a 2026-07-28 round trip.
 *
 * In this revision a server never sends the client a request: a handler that needs a person's
 * answer, a model's completion or the client's roots ends its request with `input_required`, and
 * the client re-sends the request with the answers. A handler here is written once, against the
 * core's `Ask`, and runs as one fiber for the whole call: when it asks, the request is answered
 * `input_required` and the fiber stays parked at the question (owned by the face, not by the
 * request); the retry carries a signed state naming the call, delivers the answers, and the same
 * fiber goes on. So what the handler did before it asked happens once, however many rounds it takes.
 * Questions asked side by side in one round travel together; an answer the client sent ahead is
 * taken without asking; a call no retry continues ends after the state's lifetime, through its
 * finalizers; a retry whose stream drops cancels the call. A task-capable tool's call may instead
 * go on as a task (the tasks table takes it from the driver, `driver`). Everything that crosses — a round's
 * outcome, its notifications — is JSON, so another instance can drive a call parked here.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import * as Crypto from "node:crypto"
import * as Identity from "../../../core/Identity.ts"
import * as Caller from "../../../core/Caller.ts"
import type * as Json from "../../../core/Json.ts"
import type * as RpcError from "../../face/RpcError.ts"
import * as Asking from "./asking.ts"
import { drive, type Elsewhere, forget, type Outcome, refusal, type Table, type Tasking } from "./driver.ts"
import * as Holders from "./holders.ts"
import type * as RequestState from "../RequestState.ts"

export { type Elsewhere, type Outcome, outcomeOf, type Tasking } from "./driver.ts"

/**
 * What a call runs: its handler, its result framed for its method.
 */
export type Job = Effect.Effect<Json.JsonObject, RpcError.Refusal, Caller.Services>

/**
 * A face's parked calls.
 */
export interface Calls {
  /** This instance's name in the states it signs. */
  readonly instance: string
  readonly codec: RequestState.Codec
  /** What the calls waiting here may hold. */
  readonly limits: RequestState.Limits
  /**
   * Run a fresh call in `round`, with answers the client sent ahead; a task-capable tool's says so.
   * `argumentBytes` (the JSON size of the request's arguments) counts among what the call holds
   * while it waits, as its answers do.
   */
  readonly start: (
    job: Job,
    target: string,
    supplied: { readonly [key: string]: unknown },
    round: Asking.Round,
    taskSupport?: "optional" | "required",
    argumentBytes?: number
  ) => Effect.Effect<Outcome>
  /** Continue the parked call a verified state names, here or on the instance it names. */
  readonly resume: (
    payload: RequestState.Payload,
    inputResponses: { readonly [key: string]: unknown },
    round: Asking.Round
  ) => Effect.Effect<Outcome>
  /** Continue a call parked here (what `Elsewhere` asks of the instance that holds it). */
  readonly resumeHere: (
    payload: RequestState.Payload,
    inputResponses: { readonly [key: string]: unknown },
    round: Asking.Round
  ) => Effect.Effect<Outcome>
  /** How many calls are parked or running here. */
  readonly size: Effect.Effect<number>
}

// --- the table ----------------------------------------------------------------------------------

const start = (table: Table) =>
(
  job: Job,
  target: string,
  supplied: { readonly [key: string]: unknown },
  round: Asking.Round,
  taskSupport?: "optional" | "required",
  argumentBytes = 0
): Effect.Effect<Outcome> =>
  Effect.suspend(() => {
    const call: Asking.Call = {
      id: undefined,
      target,
      caller: round.caller ?? Identity.local,
      round: 0,
      // The handler starts on this request: what it sends at once goes to it.
      current: round,
      envelope: round.envelope,
      asked: 0,
      supplied: new Map(Object.entries(supplied)),
      answered: {},
      // The arguments are held as long as the call is, as its answers are.
      held: argumentBytes,
      counted: 0,
      pending: new Map(),
      wake: undefined,
      ended: undefined,
      fiber: undefined,
      expiry: undefined,
      lacking: undefined,
      taskSupport,
      begin: undefined,
      beginAsked: false,
      task: undefined
    }
    const runFork = Effect.runForkWith(Asking.services(table.context, call))
    const fiber = runFork(job)
    call.fiber = fiber
    FiberSet.addUnsafe(table.fibers, fiber)
    fiber.addObserver((exit) => {
      call.ended = exit
    })
    return drive(table, call, round, undefined)
  })

const resumeHere = (table: Table) =>
(
  payload: RequestState.Payload,
  inputResponses: { readonly [key: string]: unknown },
  round: Asking.Round
): Effect.Effect<Outcome> =>
  Effect.suspend(() => {
    const call = table.calls.get(payload.call)
    // Another caller's parked call is, to this one, a call that has ended.
    const asking = round.holder ?? Identity.holder(round.caller ?? Identity.local)
    if (call === undefined || Identity.holder(call.caller) !== asking) {
      return Effect.succeed(lost("the call it continues has ended"))
    }
    if (call.current !== undefined) {
      return Effect.succeed(refusal("requestState refused: another request is continuing this call now"))
    }
    if (payload.round !== call.round) {
      return Effect.succeed(
        refusal(
          `requestState refused: it answers round ${payload.round}, and the call has moved on to round ${call.round}`
        )
      )
    }
    const delivery = Asking.deliver(call, inputResponses)
    if (Result.isFailure(delivery)) return Effect.succeed(refusal(delivery.failure))
    return drive(table, call, round, delivery.success)
  })

const lost = (reason: string): Outcome => ({ _tag: "Lost", reason })

const unreachable = (instance: string) =>
  lost(
    `the call it continues runs on instance ${instance}, which this instance cannot reach ` +
      "(instances that share a Redis continue each other's calls)"
  )

/**
 * The parked calls of one face, for the scope's life: closing it ends every call still running.
 */
export const make = (options: {
  readonly codec: RequestState.Codec
  /** What the calls waiting here may hold: the codec's unless given. */
  readonly limits?: RequestState.Limits
  readonly instance?: string
  readonly elsewhere?: Elsewhere
  readonly tasking?: Tasking
}): Effect.Effect<Calls, never, Scope.Scope> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<never>()
    const limits = options.limits ?? options.codec.limits
    const table: Table = {
      instance: options.instance ?? Crypto.randomBytes(8).toString("hex"),
      codec: options.codec,
      calls: new Map(),
      holders: Holders.make(limits, context),
      fibers: yield* FiberSet.make(),
      context,
      elsewhere: options.elsewhere,
      tasking: options.tasking
    }
    // Calls still waiting when the face closes are ended with it, and no longer counted.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const call of table.calls.values()) forget(table, call)
      })
    )
    const here = resumeHere(table)
    return {
      instance: table.instance,
      codec: table.codec,
      limits,
      start: start(table),
      resumeHere: here,
      resume: (payload, inputResponses, round) =>
        payload.instance === table.instance
          ? here(payload, inputResponses, round)
          : table.elsewhere === undefined
          ? Effect.succeed(unreachable(payload.instance))
          : table.elsewhere.continue(payload, inputResponses, round),
      size: Effect.sync(() => table.calls.size)
    }
  })
