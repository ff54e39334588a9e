/**
 * Which of a 2025 session's calls a server's question belongs to, so it is answered in that call's
 * context (an ACP turn's editor, say), as a 2026 question is answered in its call's own.
 *
 * A 2025-11-25 server asks by a request of its own, which names no call. Over Streamable HTTP it
 * comes on the response stream of the call that caused it, and the SDK reads that stream in the
 * async context its request was sent from: a call sent under `run` marks everything its stream
 * delivers with its context, and the question's handler reads the mark (`current`). Where one
 * stream carries everything (stdio, HTTP+SSE) nothing is marked, and a question is answered in the
 * context of the latest call still in flight — the right one whenever a single call is — or, with
 * none in flight, of the call made last.
 */
import * as Context from "effect/Context"
import { AsyncLocalStorage } from "node:async_hooks"

/** One session's calls, as its questions' handlers see them. */
export interface Callers {
  /** Send a request (`send`, the SDK's promise) as the call made in `context`. */
  readonly run: <A>(context: Context.Context<never>, send: () => Promise<A>) => Promise<A>
  /** The context a question arriving now is answered in. */
  readonly current: () => Context.Context<never>
}

/** The calls of one session. */
export const make = (): Callers => {
  const marks = new AsyncLocalStorage<Context.Context<never>>()
  const inFlight = new Map<number, Context.Context<never>>()
  let sent = 0
  let last: Context.Context<never> = Context.empty()
  return {
    run: (context, send) => {
      const id = sent++
      inFlight.set(id, context)
      last = context
      // The mark covers the send and what its stream delivers; `finally` is chained outside it,
      // so whatever runs after the answer (the caller's fiber) carries no mark of this call.
      return marks.run(context, send).finally(() => inFlight.delete(id))
    },
    current: () => {
      const marked = marks.getStore()
      if (marked !== undefined) return marked
      let latest = last
      for (const context of inFlight.values()) latest = context
      return latest
    }
  }
}
