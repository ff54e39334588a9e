// A tools/call leaves a trace: the session's span for the request, the engine's under it, and the
// pool's dial under that, exported through @effect/opentelemetry like any Effect span.
import { assert, describe, it } from "@effect/vitest"
import * as OtelTracer from "@effect/opentelemetry/OtelTracer"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Effect, Layer } from "effect"
import { McpFace } from "effect-surface/mcp"
import { Board, boardExpose, makeClients, Stopwatch, stopwatchExpose } from "../../examples/board/app.ts"
import { call, connectTo } from "./harness.ts"

describe("tracing", () => {
  it.live("one tools/call is a server span McpSession.tools/call with Engine.call under it, and the dial under that", () =>
    Effect.gen(function*() {
      const exporter = new InMemorySpanExporter()
      yield* Effect.gen(function*() {
        const { clients } = yield* makeClients
        const face = yield* McpFace.make({
          core: { surface: Board, expose: boardExpose },
          surfaces: { stopwatch: { surface: Stopwatch, expose: stopwatchExpose } },
          client: Effect.succeed(clients)
        })
        const c = yield* connectTo(face)
        const lap = yield* call(c, "stopwatch_watch_lap")
        assert.deepStrictEqual(lap.structuredContent, { value: 1 })
      }).pipe(
        Effect.scoped,
        Effect.provide(OtelTracer.layer.pipe(
          Layer.provide(Layer.succeed(OtelTracer.OtelTracerProvider, new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })))
        ))
      )
      const spans = exporter.getFinishedSpans()
      const named = (name: string) => {
        const found = spans.find((span) => span.name === name)
        assert.isDefined(found, `a span named ${name} among ${spans.map((s) => s.name).join(", ")}`)
        return found!
      }
      const request = named("McpSession.tools/call")
      const engine = named("Engine.call")
      const dial = named("ConnectionPool.dial")
      assert.strictEqual(request.attributes["mcp.tool"], "stopwatch_watch_lap")
      assert.strictEqual(engine.parentSpanContext?.spanId, request.spanContext().spanId, "Engine.call is a child of the request")
      assert.strictEqual(dial.parentSpanContext?.spanId, engine.spanContext().spanId, "the dial is a child of the call that needed it")
      assert.strictEqual(engine.spanContext().traceId, request.spanContext().traceId)
      assert.strictEqual(dial.spanContext().traceId, request.spanContext().traceId)
    }))
})
