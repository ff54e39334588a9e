/**
 * How every Promise API settles: an Effect run in a `ManagedRuntime` for a caller outside Effect.
 *
 * Left to itself a runtime settles a Promise with Effect's own account of how a fiber ended — an
 * interruption is "All fibers interrupted without error", a run after `dispose` is the defect string
 * "ManagedRuntime disposed" — which a Promise caller can neither read nor match. Each door runs through
 * one of these instead: an abort the caller asked for settles with their signal's `reason`, as `fetch`
 * does (an `AbortError` unless they gave one), and a call after the door was closed, or cut off by its
 * closing, settles with the door's own closed error. Every other failure is the Effect's own error.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as ManagedRuntime from "effect/ManagedRuntime"

/** What a door is given when a caller asks it to run something. */
export interface RunOptions {
  /** Aborting it interrupts the run, which settles with the signal's reason. */
  readonly signal?: AbortSignal | undefined
}

/**
 * A runtime's Promise door: `run` an Effect in it, `close` it once (later calls share the first).
 * `closedError(what)` is what a run asked for after `close` rejects with; `what` names the run.
 */
export interface Door<R> {
  readonly run: <A, E>(what: string, effect: Effect.Effect<A, E, R>, options?: RunOptions) => Promise<A>
  /** Run `before` (if given, at the first call only), then dispose the runtime. */
  readonly close: (before?: Effect.Effect<void, never, R>) => Promise<void>
  readonly isClosed: () => boolean
  /** Run a synchronous read in the runtime (only while it is open). */
  readonly runSync: <A>(effect: Effect.Effect<A, never, R>) => A
}

/** Open a door on `runtime`: `door.run("answer", effect, { signal })`, then `door.close()`. */
export const make = <R>(
  runtime: ManagedRuntime.ManagedRuntime<R, unknown>,
  closedError: (what: string) => unknown
): Door<R> => {
  let closing: Promise<void> | undefined
  const settle = <A, E>(what: string, exit: Exit.Exit<A, E>, signal: AbortSignal | undefined): A => {
    if (Exit.isSuccess(exit)) return exit.value
    const cause = exit.cause
    if (signal?.aborted === true && Cause.hasInterrupts(cause)) throw signal.reason
    // Closing interrupts what is in flight, and a run that starts as the runtime goes finds it disposed.
    if (closing !== undefined && (Cause.hasInterrupts(cause) || Cause.hasDies(cause))) throw closedError(what)
    throw Cause.squash(cause)
  }
  return {
    run: (what, effect, options) => {
      const signal = options?.signal
      if (closing !== undefined) return Promise.reject(closedError(what))
      // Nothing is started for a signal that has already fired.
      if (signal?.aborted === true) return Promise.reject(signal.reason)
      return runtime.runPromiseExit(effect, signal === undefined ? undefined : { signal }).then((exit) =>
        settle(what, exit, signal)
      )
    },
    close: (before) => {
      if (closing !== undefined) return closing
      const first = before === undefined ? Promise.resolve() : runtime.runPromise(before).then(() => {}, () => {})
      closing = first.then(() => runtime.dispose())
      return closing
    },
    isClosed: () => closing !== undefined,
    runSync: (effect) => runtime.runSync(effect)
  }
}

/**
 * Boot a door's services: resolves to them, or, when the layer is refused, disposes the runtime (a
 * refused boot may already hold a port, a transport or the console) and rejects with the refusal.
 */
export const boot = <A, E, R>(door: Door<R>, services: Effect.Effect<A, E, R>): Promise<A> =>
  door.run("boot", services).catch(async (error: unknown) => {
    await door.close()
    throw error
  })
