/**
 * What one caller's waiting 2026-07-28 calls hold, bounded: how many calls wait for answers, and
 * the bytes of their arguments and of the answers their handlers were given.
 *
 * A parked call lives on the server until its client retries it or its state expires (ten minutes
 * by default), holding its handler's fiber and every answer it was given. The client decides how
 * many calls it starts and how large its arguments and answers are, so without a bound one caller could park
 * calls until the process runs out of memory. Each caller (the verified subject behind a resource
 * server; otherwise every caller together, as one) may have `maxParked` calls waiting, holding at
 * most `maxHeldBytes` of arguments and answers; a call that would wait past either is ended, and its request is
 * answered with a sentence naming the bound. Two process-wide gauges say what is held now.
 *
 * @internal
 */
import type * as Context from "effect/Context"
import * as Metric from "effect/Metric"
import * as Identity from "../../../core/Identity.ts"
import type * as RequestState from "../RequestState.ts"
import type * as Asking from "./asking.ts"

/** Calls waiting for their clients' answers, across this process. */
export const parkedCalls = Metric.gauge("effect_surface_mcp_parked_calls", {
  description: "2026-07-28 calls waiting for their clients' answers"
})

/** Bytes of arguments and answers the waiting calls hold, across this process. */
export const parkedAnswerBytes = Metric.gauge("effect_surface_mcp_parked_answer_bytes", {
  description: "bytes of arguments and answers held by 2026-07-28 calls waiting for their clients"
})

interface Held {
  calls: number
  bytes: number
}

/** One table's count of what each caller's waiting calls hold. */
export interface Holders {
  readonly limits: RequestState.Limits
  readonly context: Context.Context<never>
  readonly held: Map<string, Held>
}

/** An empty count under `limits`; the gauges move in `context`'s registry. */
export const make = (limits: RequestState.Limits, context: Context.Context<never>): Holders => ({
  limits,
  context,
  held: new Map()
})

const holderOf = (call: Asking.Call) => Identity.holder(call.caller)

/**
 * Count `call` as waiting (`entering` the first time it parks; on a later round only what it
 * holds changes), or the sentence saying which bound it would pass. A refused call is not counted.
 */
export const admit = (holders: Holders, call: Asking.Call, entering: boolean): string | undefined => {
  const { maxHeldBytes, maxParked } = holders.limits
  const key = holderOf(call)
  const held = holders.held.get(key) ?? { calls: 0, bytes: 0 }
  // Callers no resource server told apart share one bound, and are told so.
  const whose = call.caller._tag === "Local" ? "callers without a verified subject, together," : "a caller"
  if (entering && held.calls >= maxParked) {
    return `Too many calls waiting for answers: ${whose} may have at most ${maxParked} at once ` +
      "(requestState.maxParked); answer one, or let one expire, before starting another that asks"
  }
  const bytes = held.bytes - call.counted + call.held
  if (bytes > maxHeldBytes) {
    return `Too many bytes held: the calls ${whose} may have waiting hold at most ${maxHeldBytes} bytes of ` +
      `arguments and answers (requestState.maxHeldBytes), and this one would bring them to ${bytes}; the call is ended`
  }
  if (entering) {
    held.calls++
    parkedCalls.modifyUnsafe(1, holders.context)
  }
  parkedAnswerBytes.modifyUnsafe(call.held - call.counted, holders.context)
  held.bytes = bytes
  call.counted = call.held
  holders.held.set(key, held)
  return undefined
}

/** Stop counting `call`, which waits no more (it ended, or went on as a task). */
export const release = (holders: Holders, call: Asking.Call): void => {
  const key = holderOf(call)
  const held = holders.held.get(key)
  if (held === undefined) return
  held.calls--
  held.bytes -= call.counted
  parkedCalls.modifyUnsafe(-1, holders.context)
  parkedAnswerBytes.modifyUnsafe(-call.counted, holders.context)
  call.counted = 0
  if (held.calls <= 0) holders.held.delete(key)
}
