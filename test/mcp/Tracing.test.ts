// A tools/call leaves a trace: the engine's span for the call (one per call: the hot path affords
// no more), the pool's dial under it, exported through @effect/opentelemetry like any Effect span.
// (Without a tracer installed the per-call spans are not taken: test/core/Span.test.ts.)
import { assert, describe, it } from "@effect/vitest"
import * as OtelTracer from "@effect/opentelemetry/OtelTracer"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Effect, Layer } from "effect"
import { Engine } from "effect-surface"
import { McpToolset } from "effect-surface/client"
import { McpFace } from "effect-surface/mcp"
import { Board, boardExpose, makeClients, Stopwatch, stopwatchExpose } from "../../examples/board/app.ts"
import { call, connectTo } from "./harness.ts"

// Spans exported to `exporter` through @effect/opentelemetry.
const tracing = (exporter: InMemorySpanExporter) =>
  OtelTracer.layer.pipe(
    Layer.provide(
      Layer.succeed(
        OtelTracer.OtelTracerProvider,
        new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
      )
    )
  )

describe("tracing", () => {
  it.live("one tools/call is a server span Engine.call naming the tool, with the dial it needed under it; a resources/read is McpSession2025.resources/read over Engine.read", () =>
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
        yield* Effect.promise(() => c.client.readResource({ uri: "surface://cells/stopwatch/laps" }))
      }).pipe(
        Effect.scoped,
        Effect.provide(tracing(exporter))
      )
      const spans = exporter.getFinishedSpans()
      const named = (name: string) => {
        const found = spans.find((span) => span.name === name)
        assert.isDefined(found, `a span named ${name} among ${spans.map((s) => s.name).join(", ")}`)
        return found!
      }
      const engine = named("Engine.call")
      const dial = named("ConnectionPool.dial")
      assert.strictEqual(engine.attributes["tool"], "stopwatch_watch_lap")
      assert.isUndefined(engine.parentSpanContext, "the call is the root of its trace")
      assert.strictEqual(
        dial.parentSpanContext?.spanId,
        engine.spanContext().spanId,
        "the dial is a child of the call that needed it"
      )
      assert.strictEqual(dial.spanContext().traceId, engine.spanContext().traceId)
      const read = named("McpSession2025.resources/read")
      const engineRead = named("Engine.read")
      assert.strictEqual(read.attributes["mcp.uri"], "surface://cells/stopwatch/laps")
      assert.strictEqual(
        engineRead.parentSpanContext?.spanId,
        read.spanContext().spanId,
        "Engine.read is a child of the request"
      )
    }))

  it.live("a client toolset's call is a span McpToolset.call naming the tool, over the Engine.call of the local bundle it reached", () =>
    Effect.gen(function*() {
      const exporter = new InMemorySpanExporter()
      yield* Effect.gen(function*() {
        const { typed } = yield* makeClients
        const core = yield* Layer.build(Engine.layerBundle({
          core: { surface: Board, expose: boardExpose },
          surfaces: { stopwatch: { surface: Stopwatch, expose: stopwatchExpose } },
          client: Effect.succeed(typed)
        }))
        const toolset = yield* McpToolset.make([{ name: "board", type: "local", core }])
        yield* toolset.call("board__stopwatch_watch_lap", {})
      }).pipe(Effect.scoped, Effect.provide(tracing(exporter)))
      const spans = exporter.getFinishedSpans()
      const outer = spans.find((span) => span.name === "McpToolset.call")
      const inner = spans.find((span) => span.name === "Engine.call")
      assert.isDefined(outer, `McpToolset.call among ${spans.map((s) => s.name).join(", ")}`)
      assert.strictEqual(outer?.attributes["mcp.tool"], "board__stopwatch_watch_lap")
      assert.strictEqual(inner?.parentSpanContext?.spanId, outer?.spanContext().spanId)
    }))
})
