/**
 * What both doors of the Promise API share: booting a runtime's door and the run-time moves over it.
 *
 * `serveSurfaceAsMcp` runs the Effect API's layer in a runtime, over stdio, a transport or HTTP;
 * the boot (released on a refusal), the moves and how each settles (`ServerClosed` once closed) are
 * the same whichever door it serves.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type * as ManagedRuntime from "effect/ManagedRuntime"
import * as PromiseDoor from "../../core/internal/promiseDoor.ts"
import type * as AppResources from "../face/AppResources.ts"
import type * as Bundle from "../../core/Bundle.ts"
import type * as Face from "../face/Face.ts"
import type * as Prompts from "../face/Prompts.ts"

/**
 * A Promise API server was closed (its `close`, or the host leaving a stdio server), so `operation`
 * was not run.
 *
 * @example
 * ```ts
 * import { ServerClosed } from "effect-surface/mcp"
 * new ServerClosed({ operation: "reroster" }).message // "the MCP server is closed, so reroster was not run."
 * ```
 *
 * @since 0.1.0
 */
export class ServerClosed extends Schema.TaggedError<ServerClosed>()("ServerClosed", { operation: Schema.String }) {
  override get message(): string {
    return `the MCP server is closed, so ${this.operation} was not run.`
  }
}

// Every run of a Promise door settles through one of these.
export const door = <R>(runtime: ManagedRuntime.ManagedRuntime<R, unknown>): PromiseDoor.Door<R> =>
  PromiseDoor.make(runtime, (operation) => new ServerClosed({ operation }))

export const boot = PromiseDoor.boot

// The face's moves, each run through the door.
export const moves = <R>(door: PromiseDoor.Door<R>, face: Face.Face) => ({
  reroster: (surfaces: { readonly [sibling: string]: Bundle.Sibling }) => door.run("reroster", face.reroster(surfaces)),
  setTools: (tools: { readonly [name: string]: Bundle.BespokeTool<Bundle.Clients> }) =>
    door.run("setTools", face.setTools(tools)),
  setPrompts: (prompts: Prompts.Table) => door.run("setPrompts", face.setPrompts(prompts)),
  setResources: (resources: AppResources.Table) => door.run("setResources", face.setResources(resources))
})
