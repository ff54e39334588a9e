/**
 * What both doors of the Promise API share: booting a `ManagedRuntime` and the run-time moves over it.
 *
 * `serveSurfaceAsMcp` runs the Effect API's layer in a runtime, over stdio, a transport or HTTP;
 * the boot (released on a refusal) and the moves are the same whichever door it serves.
 *
 * @since 0.1.0
 */
import { Effect, ManagedRuntime } from "effect"
import type * as AppResources from "../AppResources.ts"
import type * as Bundle from "../../core/Bundle.ts"
import type * as Face from "../Face.ts"
import type * as Prompts from "../Prompts.ts"

// A boot that fails may already hold something (the console redirected, a transport started, a
// port bound): released before the refusal is passed on.
export const boot = <A, R>(
  runtime: ManagedRuntime.ManagedRuntime<R, unknown>,
  services: Effect.Effect<A, never, R>
): Promise<A> =>
  runtime.runPromise(services).then(
    (booted) => booted,
    async (error: unknown) => {
      await runtime.dispose()
      throw error
    }
  )

// The face's moves, each run in the runtime.
export const moves = <R>(runtime: ManagedRuntime.ManagedRuntime<R, unknown>, face: Face.Face) => ({
  reroster: (surfaces: { readonly [sibling: string]: Bundle.Sibling }) => runtime.runPromise(face.reroster(surfaces)),
  setTools: (tools: { readonly [name: string]: Bundle.BespokeTool<Bundle.Clients> }) =>
    runtime.runPromise(face.setTools(tools)),
  setPrompts: (prompts: Prompts.Table) => runtime.runPromise(face.setPrompts(prompts)),
  setResources: (resources: AppResources.Table) => runtime.runPromise(face.setResources(resources))
})
