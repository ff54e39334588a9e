// This project's own MCP face as the fourth server: the example board over Streamable HTTP on a free
// loopback port, with two root tools a test can watch from the server's side — `watch_wait` (runs
// until cancelled, recording that it started and that it was interrupted) and `watch_count`
// (counts the calls that reached it).
import { Effect, Queue, Ref, References, Schema } from "effect"
import { Tools } from "effect-surface"
import { McpHttp } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import { greet } from "../mcp/modern.ts"

export const serveFace = Effect.gen(function*() {
  const started = yield* Queue.unbounded<string>()
  const cancelled = yield* Queue.unbounded<string>()
  const calls = yield* Ref.make(0)
  const options = yield* serverOptions
  const served = yield* McpHttp.serve({
    ...options,
    tools: {
      ...options.tools,
      watch_wait: Tools.make({
        description: "Wait until cancelled.",
        input: Schema.Struct({ id: Schema.String }),
        mutates: false,
        handler: ({ id }) =>
          Queue.offer(started, id).pipe(
            Effect.andThen(Effect.never),
            Effect.onInterrupt(() => Queue.offer(cancelled, id))
          )
      }),
      watch_count: Tools.make({
        description: "Count the calls that reach the server.",
        mutates: true,
        handler: () => Ref.updateAndGet(calls, (n) => n + 1)
      })
    },
    http: { port: 0 }
  }).pipe(Effect.provideService(References.MinimumLogLevel, "Warn"))
  return { served, url: served.url, started, cancelled, calls: Ref.get(calls), options }
})

/** Our own server over HTTP: the example board's tools, and `greet`, which asks the person their name. */
export const askingFace = Effect.gen(function*() {
  const options = yield* serverOptions
  return yield* McpHttp.serve({ ...options, tools: { ...options.tools, greet }, http: { port: 0 } }).pipe(
    Effect.provideService(References.MinimumLogLevel, "Warn")
  )
})
