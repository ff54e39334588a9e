import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Option, References, Tracer } from "effect"
import { entrySpan } from "../../src/core/internal/span.ts"

// What a traced call sees inside its span, and what is left of it once it has ended.
const inside = Effect.gen(function*() {
  const span = yield* Effect.currentSpan
  const frame = yield* References.CurrentStackFrame
  const child = yield* Effect.currentSpan.pipe(Effect.withSpan("child"))
  return { span, frame, child }
})

const seen = (taken: Effect.Success<typeof inside>) => {
  const { span, frame, child } = taken
  assert.strictEqual(span._tag, "Span")
  return {
    name: span.name,
    kind: span.kind,
    attributes: Object.fromEntries(span.attributes),
    ended: span.status._tag,
    frame: frame?.name,
    frameParent: frame?.parent?.name,
    childParent: Option.getOrUndefined(child.parent)?.spanId === span.spanId
  }
}

describe("entrySpan", () => {
  it.effect("takes the span Effect.withSpan takes: the same name, kind and attributes, the parent of spans inside, the same stack frame, ended with the call", () =>
    Effect.gen(function*() {
      const options = { kind: "server", attributes: { tool: "tasks_add" } } as const
      const outer = (effect: typeof inside) => effect.pipe(Effect.withSpan("outer"))
      const viaWithSpan = yield* outer(Effect.withSpan(inside, "Engine.call", { ...options, captureStackTrace: false }))
      const viaEntrySpan = yield* outer(entrySpan("Engine.call", options, inside))
      assert.deepStrictEqual(seen(viaEntrySpan), seen(viaWithSpan))
      assert.deepStrictEqual(seen(viaEntrySpan), {
        name: "Engine.call",
        kind: "server",
        attributes: { tool: "tasks_add" },
        ended: "Ended",
        frame: "Engine.call",
        frameParent: "outer",
        childParent: true
      })
      const parent = Option.getOrUndefined(viaEntrySpan.span.parent)
      assert.isTrue(parent?._tag === "Span" && parent.name === "outer")
    }).pipe(Effect.withTracer(Tracer.nativeTracer)))

  it.effect("leaves the caller's context as it was, and ends the span with the call's exit when it fails", () =>
    Effect.gen(function*() {
      let taken: Tracer.Span | undefined
      const exit = yield* Effect.exit(entrySpan(
        "Engine.call",
        {},
        Effect.flatMap(Effect.currentSpan, (span) => {
          taken = span
          return Effect.fail("refused")
        })
      ))
      assert.isTrue(Exit.isFailure(exit))
      assert.strictEqual(taken?.status._tag, "Ended")
      assert.isTrue(taken?.status._tag === "Ended" && Exit.isFailure(taken.status.exit))
      assert.isUndefined(yield* References.CurrentStackFrame)
      assert.isTrue(Option.isNone(yield* Effect.option(Effect.currentSpan)))
    }).pipe(Effect.withTracer(Tracer.nativeTracer)))

  it.effect("takes no span where no tracer is installed, since Effect's built-in one hands its spans to no one", () =>
    Effect.gen(function*() {
      const outer = yield* entrySpan("Engine.call", { kind: "server" }, inside).pipe(Effect.withSpan("outer"))
      assert.strictEqual(outer.span._tag === "Span" ? outer.span.name : undefined, "outer")
      const installed = yield* entrySpan("Engine.call", { kind: "server" }, inside).pipe(
        Effect.withSpan("outer"),
        Effect.withTracer(Tracer.nativeTracer)
      )
      assert.strictEqual(installed.span._tag === "Span" ? installed.span.name : undefined, "Engine.call")
    }))

  it.effect("takes no span while tracing is disabled, even with a tracer installed", () =>
    Effect.gen(function*() {
      const taken = yield* Effect.option(entrySpan("Engine.call", {}, Effect.currentSpan)).pipe(
        Effect.withTracer(Tracer.nativeTracer),
        Effect.withTracerEnabled(false)
      )
      assert.isTrue(Option.isNone(taken))
    }))
})
