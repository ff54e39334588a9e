/**
 * The services a handler on the MCP request path may require, and nothing else.
 *
 * A bespoke tool's handler (and a prompt's) may report progress and ask the calling client for input
 * or a model's answer; the session provides exactly these services per request, wired to that
 * request. Naming the set here keeps one definition of "what a handler may ask for" shared by the
 * bundle's tool type, the face and the session, and gives every other place a handler runs (a
 * command line, a test) one stand-in to provide. No SDK code is loaded by this module.
 *
 * @since 0.1.0
 */
import { Context, Effect } from "effect"
import * as ClientRequests from "./ClientRequests.ts"
import * as Progress from "./Progress.ts"

/**
 * The response stream of the request being served. Over Streamable HTTP a handler may close it
 * mid-call (SEP-1699 polling): the client then resumes with `Last-Event-ID` and receives the result
 * from the event store, so a long call need not hold a connection open.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpRequest } from "effect-surface/mcp"
 *
 * const longCall = Effect.gen(function*() {
 *   yield* McpRequest.closeResponseStream // the client polls for the answer
 *   yield* Effect.sleep("5 seconds")
 *   return "done"
 * })
 * ```
 *
 * @since 0.1.0
 */
export class McpResponseStream extends Context.Service<McpResponseStream, {
  /** Close the stream; `false` where the transport has none to close or cannot resume it. */
  readonly close: Effect.Effect<boolean>
}>()("effect-surface/McpResponseStream") {}

/**
 * Close the current request's response stream, as `McpResponseStream`'s `close`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpRequest } from "effect-surface/mcp"
 *
 * const polled = Effect.andThen(McpRequest.closeResponseStream, Effect.succeed("answered later"))
 * ```
 *
 * @since 0.1.0
 */
export const closeResponseStream: Effect.Effect<boolean, never, McpResponseStream> = Effect.flatMap(
  Effect.service(McpResponseStream),
  (stream) => stream.close
)

/**
 * What a handler on the request path may require: `McpProgress`, `McpClientRequests` and
 * `McpResponseStream`.
 *
 * @example
 * ```ts
 * import type { Effect } from "effect"
 * import type { McpRequest } from "effect-surface/mcp"
 * type Handler = (input: { readonly id: string }) => Effect.Effect<string, never, McpRequest.Services>
 * ```
 *
 * @since 0.1.0
 */
export type Services = Progress.McpProgress | ClientRequests.McpClientRequests | McpResponseStream

/**
 * The services with nothing behind them: progress goes nowhere, asking the client fails with
 * `ClientLacksCapability`, and there is no response stream to close.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpRequest } from "effect-surface/mcp"
 *
 * declare const handler: (input: string) => Effect.Effect<string, never, McpRequest.Services>
 * handler("t1").pipe(Effect.provideContext(McpRequest.none))
 * ```
 *
 * @since 0.1.0
 */
export const none: Context.Context<Services> = Context.make(Progress.McpProgress, Progress.none).pipe(
  Context.add(ClientRequests.McpClientRequests, ClientRequests.none),
  Context.add(McpResponseStream, { close: Effect.succeed(false) })
)

/**
 * Run a handler outside any MCP request, with `none` behind its services.
 *
 * @example
 * ```ts
 * import type { Bundle } from "effect-surface"
 * import { McpRequest } from "effect-surface/mcp"
 *
 * declare const tool: Bundle.BespokeTool<Bundle.Clients>
 * declare const clients: Bundle.Clients
 * const result = McpRequest.detached(tool.handler({}, clients)) // no progress, no questions to a client
 * ```
 *
 * @since 0.1.0
 */
export const detached = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, Services>> =>
  Effect.provideContext(effect, none)
