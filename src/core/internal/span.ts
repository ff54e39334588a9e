/**
 * The span an entry point takes once per call: `Effect.withSpan`'s span, provided in one step.
 *
 * `Effect.withSpan` makes its span the parent of what it runs in two context updates — the parent
 * span, then the stack frame a failure is annotated with — and an update of either key rebuilds
 * the fiber's cached view of its context. On a path taken once per tool call that second rebuild
 * was an eighth of what the engine cost; this provides the same span, parent and frame at once,
 * and only where someone can read it: a tracer installed and enabled.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as References from "effect/References"
import * as Tracer from "effect/Tracer"

// What `withSpan` records for a span taken without a stack trace.
const noStack = (): string | undefined => undefined

/**
 * Run `effect` under a new span named `name`, ended when it exits, as `Effect.withSpan` does with
 * `captureStackTrace: false` — when a tracer is installed (OpenTelemetry's, or any `Tracer` provided).
 * Under Effect's built-in tracer, which hands its spans to no one, the call takes none: on every
 * tool call that span was most of what the engine allocated (bench: `tools_call.inmemory`).
 */
export const entrySpan = <A, E, R>(
  name: string,
  options: Tracer.SpanOptionsNoTrace,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.withFiber((fiber) =>
    fiber.cache.tracer === undefined || !fiber.cache.tracerEnabled ? effect : traced(name, options, effect)
  )

/**
 * `entrySpan` over an effect built when the call runs (`body`), with its span's options built only
 * when a span is taken: one step of the fiber where `entrySpan(…, Effect.suspend(body))` takes two,
 * on a path that runs once per tool call.
 */
export const entrySpanWith = <A, E, R>(
  name: string,
  options: () => Tracer.SpanOptionsNoTrace,
  body: () => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.withFiber((fiber) =>
    fiber.cache.tracer === undefined || !fiber.cache.tracerEnabled ? body() : traced(name, options(), body())
  )

const traced = <A, E, R>(name: string, options: Tracer.SpanOptionsNoTrace, effect: Effect.Effect<A, E, R>) =>
  Effect.useSpan(name, options, (span) =>
    Effect.updateContext(effect, (context: Context.Context<R>) => {
      const parented = Context.add(context, Tracer.ParentSpan, span)
      // A span of a disabled tracer is no frame, as under `withSpan`.
      return span._tag === "Span"
        ? Context.add(parented, References.CurrentStackFrame, {
          name,
          stack: noStack,
          parent: Context.get(context, References.CurrentStackFrame)
        })
        : parented
    }))
