/**
 * The services a handler may require of whoever called it, and nothing else.
 *
 * A bespoke tool's handler, a prompt's and a surface procedure may read who is calling
 * (`Identity`), report progress (`Progress`), ask its caller for a person's input or a model's
 * answer (`Ask`), and close its response stream early (`ResponseStream`). Each face provides exactly
 * these per request, wired to that request: MCP through its SDK, ACP, the command line and a
 * toolset's local entries through `none` (or the context they are given). Naming the set once keeps
 * one definition of "what a handler may ask for" shared by the bundle's tool and client types and
 * every face, and gives every other place a handler runs (a test, a script, a wire's server) one
 * stand-in to provide: `none`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Ask from "./Ask.ts"
import * as Identity from "./Identity.ts"
import * as Progress from "./Progress.ts"

/**
 * The response stream of the request being served. Over MCP's Streamable HTTP a handler may close it
 * mid-call (SEP-1699 polling): the caller then resumes and receives the result from the event store,
 * so a long call need not hold a connection open. Elsewhere `close` answers `false`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Caller } from "effect-surface"
 *
 * const longCall = Effect.gen(function*() {
 *   yield* Caller.closeResponseStream // the caller polls for the answer
 *   yield* Effect.sleep("5 seconds")
 *   return "done"
 * })
 * ```
 *
 * @since 0.1.0
 */
export class ResponseStream extends Context.Service<ResponseStream, {
  /** Close the stream; `false` where the transport has none to close or cannot resume it. */
  readonly close: Effect.Effect<boolean>
}>()("effect-surface/ResponseStream") {}

/**
 * Where a call may carry on as a task: a caller that can follow a task (MCP 2026-07-28 with the
 * tasks extension) is answered with one at `begin`, and the call goes on in the background, its
 * status and result fetched later; everywhere else `begin` does nothing and the call goes on as it
 * was. A task-capable tool's call also begins its task by itself once it has run a while without
 * asking anything (see the face's `tasks` settings).
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Ask, Caller } from "effect-surface"
 *
 * // Ask first, on the request; then go on as a task.
 * const deploy = Effect.gen(function*() {
 *   const sure = yield* Ask.elicit("Deploy now?", Schema.Struct({ yes: Schema.Boolean }))
 *   yield* Caller.beginTask
 *   yield* Effect.sleep("10 minutes")
 *   return sure._tag === "Accept" && sure.content.yes ? "deployed" : "left as it was"
 * })
 * ```
 *
 * @since 0.1.0
 */
export class Task extends Context.Service<Task, {
  /** Carry on as a task from here, where the caller can follow one. */
  readonly begin: Effect.Effect<void>
}>()("effect-surface/Task") {}

/**
 * Carry on as a task from here, as `Task`'s `begin`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Caller } from "effect-surface"
 * const longJob = Effect.andThen(Caller.beginTask, Effect.sleep("1 hour"))
 * ```
 *
 * @since 0.1.0
 */
export const beginTask: Effect.Effect<void, never, Task> = Task.use((task) => task.begin)

/**
 * Close the current request's response stream, as `ResponseStream`'s `close`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Caller } from "effect-surface"
 *
 * const polled = Effect.andThen(Caller.closeResponseStream, Effect.succeed("answered later"))
 * ```
 *
 * @since 0.1.0
 */
export const closeResponseStream: Effect.Effect<boolean, never, ResponseStream> = ResponseStream.use((stream) =>
  stream.close
)

/**
 * What a handler on a request path may require: `Progress`, `Ask`, `ResponseStream`, `Task` and who
 * is calling (`Identity`).
 *
 * @example
 * ```ts
 * import type { Effect } from "effect"
 * import type { Caller } from "effect-surface"
 * type Handler = (input: { readonly id: string }) => Effect.Effect<string, never, Caller.Services>
 * ```
 *
 * @since 0.1.0
 */
export type Services = Progress.Progress | Ask.Ask | ResponseStream | Task | Identity.Identity

const noTask: Task["Service"] = { begin: Effect.void }

/**
 * The services with nothing behind them: progress goes nowhere, asking fails with
 * `ClientLacksCapability`, there is no response stream to close, no task to become, and the caller
 * is the local one (`Identity.local`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Caller } from "effect-surface"
 *
 * declare const handler: (input: string) => Effect.Effect<string, never, Caller.Services>
 * handler("t1").pipe(Effect.provideContext(Caller.none))
 * ```
 *
 * @since 0.1.0
 */
export const none: Context.Context<Services> = Context.make(Progress.Progress, Progress.none).pipe(
  Context.add(Ask.Ask, Ask.none),
  Context.add(ResponseStream, { close: Effect.succeed(false) }),
  Context.add(Task, noTask),
  Context.add(Identity.Identity, Identity.local)
)

/**
 * Run a handler outside any request, with `none` behind its services.
 *
 * @example
 * ```ts
 * import type { Bundle } from "effect-surface"
 * import { Caller } from "effect-surface"
 *
 * declare const tool: Bundle.BespokeTool<Bundle.Clients>
 * declare const clients: Bundle.Clients
 * const result = Caller.detached(tool.handler({}, clients)) // no progress, no questions
 * ```
 *
 * @since 0.1.0
 */
export const detached = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, Services>> =>
  Effect.provideContext(effect, none)
