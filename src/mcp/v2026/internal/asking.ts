/**
 * What a handler sees of its call while the call runs across 2026-07-28 rounds: its questions, its
 * progress and its log lines.
 *
 * A parked call's handler asks through the core's `Ask` as it would in any era; here a question is
 * kept on the call until the round's request is answered `input_required`, or taken at once when the
 * client sent its answer ahead. Progress and log lines go to whichever request drives the call now,
 * on that request's token and at its level: a retry is a new request with a stream of its own.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import type * as Fiber from "effect/Fiber"
import * as Ask from "../../../core/Ask.ts"
import * as Caller from "../../../core/Caller.ts"
import * as Identity from "../../../core/Identity.ts"
import type * as Json from "../../../core/Json.ts"
import * as Progress from "../../../core/Progress.ts"
import * as Logging from "../../face/Logging.ts"
import type * as RpcError from "../../face/RpcError.ts"
import * as Answers from "./answers.ts"
import type * as Wire from "../../../protocol/v2026/Messages.ts"

/** A notification bound for the client of the request driving a call now. */
export type Notify = (notification: Json.JsonObject) => void

/**
 * The request driving a call in one round: where its notifications go and what it declared.
 */
export interface Round {
  readonly notify: Notify
  readonly envelope: Wire.Envelope
  /** Who sent the request (the local caller where nothing was verified). */
  readonly caller?: Identity.Principal
  /** Who sent it, as `Identity.holder` keys it: all a round forwarded from another instance carries. */
  readonly holder?: string
}

/** A question asked and not yet answered. */
export interface Question {
  readonly request: Answers.InputRequest
  readonly answered: Deferred.Deferred<unknown>
}

/**
 * What a call that went on as a task tells its task: that its questions moved, and its progress.
 */
export interface TaskHooks {
  readonly changed: () => void
  readonly progress: (update: Progress.Update) => void
}

/** One call, parked or running: what its rounds share. */
export interface Call {
  /** Named, and entered in the table, when it first parks: most calls never do. */
  id: string | undefined
  readonly target: string
  /** Who started the call: its handler's `Identity`, and the owner of the task it may become. */
  readonly caller: Identity.Principal
  /** The number of `input_required` answers issued so far: a state answers the last one. */
  round: number
  /** The request driving the call now; none while it is parked. */
  current: Round | undefined
  /** The last round's envelope: what the client declared when it last spoke. */
  envelope: Wire.Envelope
  /** Questions asked so far (for default keys). */
  asked: number
  /** Answers the client sent ahead of being asked, taken by the question of that key. */
  readonly supplied: Map<string, unknown>
  /** Every answer taken so far, carried in the state so the call can be run again elsewhere if harmless. */
  readonly answered: Record<string, unknown>
  /** The bytes of its arguments and of the answers taken so far: what the call holds for its caller while it waits. */
  held: number
  /** The part of `held` counted against its caller's bound, as of the last time it parked. */
  counted: number
  /** Questions asked and not yet answered. */
  readonly pending: Map<string, Question>
  /** Wakes the driver: set while a request drives the call. */
  wake: (() => void) | undefined
  /** How the handler ended, once it has (kept for a retry when no request was driving it). */
  ended: Exit.Exit<Json.JsonObject, RpcError.Refusal> | undefined
  fiber: Fiber.Fiber<Json.JsonObject, RpcError.Refusal> | undefined
  /** Ends the parked call when no retry comes. */
  expiry: Fiber.Fiber<void> | undefined
  /** A capability the handler asked for that the client never declared. */
  lacking: "elicitation" | "sampling" | "roots" | undefined
  /** Whether the call may go on as a task (a task-capable tool's); `undefined`: never. */
  readonly taskSupport: "optional" | "required" | undefined
  /** Goes on as a task from here: set while a request whose client follows tasks drives the call. */
  begin: (() => void) | undefined
  /** The handler asked to go on as a task before a driver listened: the next one takes it. */
  beginAsked: boolean
  /** Set once the call has gone on as a task. */
  task: TaskHooks | undefined
}

// An answer the handler was given: kept (for the state) and counted against what its call holds.
const take = (call: Call, key: string, answer: unknown) => {
  if (Object.hasOwn(call.answered, key)) call.held -= Answers.bytesOf(call.answered[key])
  call.answered[key] = answer
  call.held += Answers.bytesOf(answer)
}

// The handler's question: an answer sent ahead is taken if it has the right shape; otherwise the
// question waits, and the driver is woken to say the call needs input.
export const question = <A>(
  call: Call,
  key: string,
  request: Answers.InputRequest,
  decode: (answer: unknown) => Result.Result<A, string>
): Effect.Effect<A, Error> =>
  Effect.suspend(() => {
    if (call.supplied.has(key)) {
      const given = call.supplied.get(key)
      call.supplied.delete(key)
      const decoded = decode(given)
      if (Result.isSuccess(decoded)) {
        take(call, key, given)
        return Effect.succeed(decoded.success)
      }
    }
    // Two questions under one key would share one answer: the second is refused, the first waits on.
    if (call.pending.has(key)) {
      return Effect.fail(
        new Error(`a question keyed "${key}" is already waiting for its answer; give each question its own key`)
      )
    }
    const answered = Deferred.makeUnsafe<unknown>()
    const waiting: Question = { request, answered }
    call.pending.set(key, waiting)
    call.wake?.()
    call.task?.changed()
    return Effect.flatMap(Deferred.await(answered), (answer) => {
      take(call, key, answer)
      // An Error, so the handler reads the reason as written.
      return Effect.mapError(Effect.fromResult(decode(answer)), (reason) => new Error(reason))
    }).pipe(
      Effect.onInterrupt(() =>
        Effect.sync(() => {
          if (call.pending.get(key) !== waiting) return
          call.pending.delete(key)
          call.task?.changed()
        })
      )
    )
  })

/**
 * Deliver what a retry (or a task's update) answers: every answer to a waiting question must have
 * its method's shape (a malformed one refuses it all and changes nothing); the others are ignored.
 * The questions answered leave `pending` as the delivery runs, before the handler goes on.
 */
export const deliver = (call: Call, inputResponses: { readonly [key: string]: unknown }) => {
  const answered: Array<readonly [Question, unknown]> = []
  for (const [key, pending] of call.pending) {
    if (!Object.hasOwn(inputResponses, key)) continue
    const shaped = Answers.check(pending.request.method, inputResponses[key])
    if (Result.isFailure(shaped)) return Result.fail(`inputResponses["${key}"]: ${shaped.failure}`)
    answered.push([pending, inputResponses[key]])
  }
  return Result.succeed(
    Effect.sync(() => {
      for (const [pending, answer] of answered) {
        for (const [key, waiting] of call.pending) if (waiting === pending) call.pending.delete(key)
        Deferred.doneUnsafe(pending.answered, Exit.succeed(answer))
      }
      if (answered.length > 0) call.task?.changed()
    })
  )
}

const keyOf = (call: Call, kind: string, asked: Ask.Asked) => asked.key ?? `${kind}-${++call.asked}`

const channel = (call: Call): Ask.Channel => ({
  get capabilities() {
    return (call.current?.envelope ?? call.envelope).capabilities
  },
  elicit: (params, asked) =>
    question(
      call,
      keyOf(call, "elicit", asked),
      Answers.elicitation(params.message, params.requestedSchema),
      Answers.decodeElicit
    ),
  sample: (request, asked) =>
    question(call, keyOf(call, "sample", asked), Answers.sampling(request), Answers.decodeSample),
  roots: (asked) => question(call, keyOf(call, "roots", asked), Answers.roots, Answers.decodeRoots)
})

// Asking for what the client never declared fails as it does in any era; the call remembers it.
const noting = (call: Call, asking: Ask.Ask["Service"]): Ask.Ask["Service"] => {
  const note = (error: Ask.AskError) =>
    Effect.sync(() => {
      if (error._tag === "ClientLacksCapability") call.lacking = error.capability
    })
  return {
    get capabilities() {
      return asking.capabilities
    },
    elicit: (message, schema, options) => Effect.tapError(asking.elicit(message, schema, options), note),
    sample: (request, options) => Effect.tapError(asking.sample(request, options), note),
    roots: (options) => Effect.tapError(asking.roots(options), note)
  }
}

// Progress and log lines go to whichever request drives the call now, on its token and at its level;
// once the call is a task, its progress is the task's status message.
export const services = (context: Context.Context<never>, call: Call): Context.Context<Caller.Services> => {
  const send = (notification: Json.JsonObject) => call.current?.notify(notification)
  const progress: Progress.Progress["Service"] = {
    get token() {
      return call.current?.envelope.progressToken
    },
    report: (update) =>
      Effect.sync(() => {
        call.task?.progress(update)
        const token = call.current?.envelope.progressToken
        if (token === undefined) return
        send({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: token, ...update }
        })
      })
  }
  const level = call.envelope.logLevel
  const base = level === undefined ? context : Logging.forwarding(context, level, (message) => {
    const at = call.current?.envelope.logLevel
    if (at !== undefined && Logging.reaches(message.level, at)) {
      send({ jsonrpc: "2.0", method: "notifications/message", params: { ...message } })
    }
  })
  return Context.merge(
    base,
    Context.make(Ask.Ask, noting(call, Ask.make(channel(call)))).pipe(
      Context.add(Progress.Progress, progress),
      Context.add(Caller.ResponseStream, { close: Effect.succeed(false) }),
      Context.add(Identity.Identity, call.caller),
      Context.add(Caller.Task, {
        begin: Effect.sync(() => {
          if (call.begin === undefined) call.beginAsked = true
          else call.begin()
        })
      })
    )
  )
}
