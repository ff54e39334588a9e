// Ours serving `add({ a, b })` as a user writes it: a one-procedure surface on the public API,
// handed to whichever `serveStdio` the caller imported (the stdio entry, or the full MCP barrel).
// It loads the package root, not the stdio door: the caller brings that, and `effect`'s modules as
// the caller's app imports them (from the barrel, as the README writes an app, or by path).
import type { runMain as RunMain } from "@effect/platform-node/NodeRuntime"
import type * as EffectModule from "effect/Effect"
import type * as SchemaModule from "effect/Schema"
import { Client, Expose, Implementation, Surface } from "effect-surface"
import type { serveStdio as ServeStdio } from "effect-surface/mcp/stdio"
import { add, ADD_DESCRIPTION } from "../lib/adder.ts"

/** The modules of `effect` the server is written with, imported by the caller. */
export interface EffectModules {
  readonly Effect: typeof EffectModule
  readonly Schema: typeof SchemaModule
}

/** Serve the adder over stdio until the host closes it. */
export const serveAdd = (
  runMain: typeof RunMain,
  serveStdio: typeof ServeStdio,
  { Effect, Schema }: EffectModules
): void => {
  const AddInput = Schema.Struct({ a: Schema.Finite, b: Schema.Finite })
  const AddOutput = Schema.Struct({ sum: Schema.Finite })
  const MathSurface = Surface.make({
    procedures: { math: { add: { input: AddInput, output: AddOutput, mutates: false, description: ADD_DESCRIPTION } } }
  })
  const expose = Expose.make(MathSurface, { procedures: { "math.add": true } })
  const implemented = Implementation.make(MathSurface, {
    procedures: { math: { add: (input) => Effect.succeed(add(input)) } }
  })
  runMain(serveStdio({
    core: { surface: MathSurface, expose },
    client: Effect.succeed({ core: Client.erase(Client.directDispatch(implemented)), clients: {} }),
    serverInfo: { name: "add-ours", version: "0.0.0" }
  }))
}
