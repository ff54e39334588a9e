/**
 * While a door serves on stdio, stdout is the protocol: one stray line there and the peer reads
 * garbage. Every stdio door (MCP, ACP) keeps it clean the same way, so the rule lives once here:
 * Effect's logs go to stderr, and so do the console methods that would print to stdout.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"

// The console methods that write to stdout, pointed at stderr until the scope closes.
const consoleToStderr = Effect.acquireRelease(
  Effect.sync(() => {
    const saved = { log: console.log, info: console.info, debug: console.debug }
    console.log = console.info = console.debug = console.error
    return saved
  }),
  (saved) => Effect.sync(() => Object.assign(console, saved))
)

/** For the layer's life, nothing but protocol reaches stdout. Provide it first, so a boot's prints are covered too. */
export const layer: Layer.Layer<never> = Layer.merge(
  Layer.effectDiscard(consoleToStderr),
  Layer.succeed(Logger.LogToStderr, true)
)
