/**
 * An ACP agent as Effect: the SDK's agent app, serving an editor, running each prompt as a turn.
 *
 * The agent runs in its own process; the editor (Zed, or any ACP client) is on the other end of
 * stdio and outside the trust boundary. `initialize` stores what the editor advertised (per
 * connection: the SDK keeps no record), `session/new` opens a session and builds its services,
 * `session/prompt` runs the turn handler — an Effect with `AcpSurface`, `AcpSession` and an
 * editor-backed `Approval` in its context — and `session/cancel` ends the turn: the prompt answers
 * `cancelled` at once, every outstanding call is cancelled at the editor, later calls are refused,
 * and the cleanup the turn registered is sent once the answer is out and the turn has settled.
 *
 * @since 0.1.0
 */
import type * as Acp from "@agentclientprotocol/sdk"
import { ndJsonStream } from "@agentclientprotocol/sdk"
import { Readable, Writable } from "node:stream"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as AcpChecks from "./AcpChecks.ts"
import type * as Approval from "../core/Approval.ts"
import * as ProtocolStdout from "../core/internal/protocolStdout.ts"
import type { AcpSession, Info } from "./AcpSession.ts"
import * as Link from "./internal/connection.ts"

/**
 * What a turn answers: why it stopped (`end_turn` when it returns nothing).
 *
 * @example
 * ```ts
 * import type { AcpAgent } from "effect-surface/acp"
 * const stop: AcpAgent.StopReason = "end_turn"
 * ```
 *
 * @since 0.1.0
 */
export type StopReason = Acp.StopReason

/**
 * A turn: the user's prompt in, an Effect run with the turn's surface in context. A failure answers
 * `session/prompt` with an error naming it in one sentence.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { type AcpAgent, AcpSurface } from "effect-surface/acp"
 *
 * const echo: AcpAgent.Handler<never, AcpSurface.AcpSurface> = (request) =>
 *   Effect.gen(function*() {
 *     const surface = yield* AcpSurface.AcpSurface
 *     for (const block of request.prompt) {
 *       yield* Effect.ignore(surface.notify({ sessionUpdate: "agent_message_chunk", content: block }))
 *     }
 *   })
 * ```
 *
 * @since 0.1.0
 */
export type Handler<E, R> = (request: Acp.PromptRequest, session: Info) => Effect.Effect<StopReason | void, E, R>

/**
 * How the agent introduces itself and what a session is given.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import type { AcpAgent } from "effect-surface/acp"
 *
 * const options: AcpAgent.Options = { name: "my-agent", version: "1.0.0", cleanupDeadline: "2 seconds" }
 * ```
 *
 * @since 0.1.0
 */
export interface Options<S = never, SE = never, SR = never> {
  /** `agentInfo.name` (default `"effect-surface"`). */
  readonly name?: string | undefined
  readonly version?: string | undefined
  readonly title?: string | undefined
  /**
   * Advertised at `initialize`, each field given over the default's (text prompts only, no session
   * loading, MCP servers on stdio only). A session toolset can take HTTP and SSE servers:
   * `{ mcpCapabilities: AcpToolset.mcpCapabilities }`.
   */
  readonly agentCapabilities?: Acp.AgentCapabilities | undefined
  /**
   * Services a session's turns share, built at `session/new` in the session's scope (so they live
   * as long as the connection) with `SessionProvided` in context: a client toolset from
   * `mcpServers` (`AcpToolset.layer`), a cache, a model client.
   */
  readonly session?: ((session: Info) => Layer.Layer<S, SE, SR>) | undefined
  /** How long each cleanup call after a cancel may take (default 5 seconds). */
  readonly cleanupDeadline?: Duration.Input | undefined
  /**
   * How long a cancelled turn may take to settle before its cleanup is sent anyway, and how long a
   * stop waits for the running turns to unwind before closing the connection (default 10 seconds).
   */
  readonly settleDeadline?: Duration.Input | undefined
}

/**
 * A connected editor.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { AcpAgent } from "effect-surface/acp"
 *
 * declare const connection: AcpAgent.Connection
 * const untilTheEditorLeaves = connection.closed
 * ```
 *
 * @since 0.1.0
 */
export type Connection = Link.Connection

/**
 * The services every turn runs with, whatever else it needs.
 *
 * @example
 * ```ts
 * import type { AcpAgent } from "effect-surface/acp"
 * type Given = AcpAgent.Provided // AcpSurface | AcpSession | Approval
 * ```
 *
 * @since 0.1.0
 */
export type Provided = Link.Provided

/**
 * The services a session's own services are built with: its `AcpSession` and the editor-backed
 * `Approval`, so a client toolset made at `session/new` asks the person through the editor.
 *
 * @example
 * ```ts
 * import type { AcpAgent } from "effect-surface/acp"
 * type Given = AcpAgent.SessionProvided // AcpSession | Approval
 * ```
 *
 * @since 0.1.0
 */
export type SessionProvided = AcpSession | Approval.Approval

/**
 * The agent: serve one editor per stream.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type * as Acp from "@agentclientprotocol/sdk"
 * import { AcpAgent } from "effect-surface/acp"
 *
 * declare const stream: Acp.Stream
 * const serveOne = Effect.gen(function*() {
 *   const agent: AcpAgent.Agent = yield* AcpAgent.AcpAgent
 *   const connection = yield* agent.connect(stream)
 *   yield* connection.closed
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
export interface Agent {
  /**
   * Serve one editor on `stream` until it goes away or the scope closes. Closing the scope stops
   * gracefully: the running turns unwind while the editor is still connected (`settleDeadline` at most).
   */
  readonly connect: (stream: Acp.Stream) => Effect.Effect<Connection, never, Scope.Scope>
}

/**
 * The agent as a service.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AcpAgent } from "effect-surface/acp"
 *
 * const agent = Effect.service(AcpAgent.AcpAgent)
 * ```
 *
 * @since 0.1.0
 */
export class AcpAgent extends Context.Service<AcpAgent, Agent>()("effect-surface/AcpAgent") {}

const defaultCapabilities: Acp.AgentCapabilities = {
  loadSession: false,
  promptCapabilities: { image: false, audio: false, embeddedContext: false },
  mcpCapabilities: { http: false, sse: false }
}

/**
 * Build the agent from a turn handler. What the handler and the session services need beyond the
 * provided ones is taken from the context `make` runs in, once.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AcpAgent, AcpChecks } from "effect-surface/acp"
 *
 * const agent = AcpAgent.make(() => Effect.succeed("end_turn" as const)).pipe(Effect.provide(AcpChecks.layer))
 * ```
 *
 * @since 0.1.0
 */
export const make = <E, R, S = never, SE = never, SR = never>(
  handler: Handler<E, R>,
  options?: Options<S, SE, SR>
): Effect.Effect<Agent, never, AcpChecks.AcpChecks | Exclude<R, Provided | S> | Exclude<SR, SessionProvided>> =>
  Effect.gen(function*() {
    const checks = yield* AcpChecks.AcpChecks
    // Without the scope `make` runs in (a layer's build scope, say): each connection lives in its caller's.
    const context = Context.omit(Scope.Scope)(
      yield* Effect.context<Exclude<R, Provided | S> | Exclude<SR, SessionProvided>>()
    )
    type Erased = Exclude<R, Provided | S> | Exclude<SR, SessionProvided>
    const setup: Link.Setup<Erased> = {
      info: {
        name: options?.name ?? "effect-surface",
        version: options?.version ?? "0.1.0",
        ...(options?.title === undefined ? {} : { title: options.title })
      },
      agentCapabilities: { ...defaultCapabilities, ...options?.agentCapabilities },
      // The session's services are added to each turn's context; their types are the caller's.
      handler: handler as Link.Setup<Erased>["handler"],
      session: options?.session as Link.Setup<Erased>["session"],
      checks,
      cleanupDeadline: options?.cleanupDeadline ?? Duration.seconds(5),
      settleDeadline: options?.settleDeadline ?? Duration.seconds(10)
    }
    // What the context does not hold is the caller's scope, which `connect` asks for in its type.
    return AcpAgent.of({
      connect: (stream) =>
        Effect.provideContext(Link.connect(setup, stream), context) as Effect.Effect<Connection, never, Scope.Scope>
    })
  })

/**
 * The agent as a layer, its answers checked against the schema the installed SDK ships.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AcpAgent } from "effect-surface/acp"
 *
 * const AgentLive = AcpAgent.layer(() => Effect.void, { name: "quiet-agent" })
 * ```
 *
 * @since 0.1.0
 */
export const layer = <E, R, S = never, SE = never, SR = never>(
  handler: Handler<E, R>,
  options?: Options<S, SE, SR>
): Layer.Layer<AcpAgent, never, Exclude<R, Provided | S> | Exclude<SR, SessionProvided>> =>
  Layer.effect(AcpAgent, make(handler, options)).pipe(Layer.provide(AcpChecks.layer))

/**
 * Serve one editor on `stream` with the agent in context.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type * as Acp from "@agentclientprotocol/sdk"
 * import { AcpAgent } from "effect-surface/acp"
 *
 * declare const stream: Acp.Stream
 * const program = AcpAgent.connect(stream).pipe(
 *   Effect.flatMap((connection) => connection.closed),
 *   Effect.scoped,
 *   Effect.provide(AcpAgent.layer(() => Effect.void))
 * )
 * ```
 *
 * @since 0.1.0
 */
export const connect = (stream: Acp.Stream): Effect.Effect<Connection, never, AcpAgent | Scope.Scope> =>
  Effect.flatMap(Effect.service(AcpAgent), (agent) => agent.connect(stream))

/**
 * Serve the agent to the editor on this process's stdin and stdout until the editor goes away.
 * Nothing but protocol reaches stdout: Effect logs and the console go to stderr.
 *
 * @example
 * ```ts
 * import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
 * import { Effect } from "effect"
 * import { AcpAgent } from "effect-surface/acp"
 *
 * NodeRuntime.runMain(AcpAgent.serveStdio(() => Effect.void, { name: "my-agent" }))
 * ```
 *
 * @since 0.1.0
 */
export const serveStdio = <E, R, S = never, SE = never, SR = never>(
  handler: Handler<E, R>,
  options?: Options<S, SE, SR>
): Effect.Effect<void, never, Exclude<R, Provided | S> | Exclude<SR, SessionProvided>> =>
  Effect.gen(function*() {
    const stream = ndJsonStream(
      Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
      Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>
    )
    const connection = yield* connect(stream)
    yield* connection.closed
  }).pipe(
    Effect.scoped,
    Effect.provide(layer(handler, options)),
    // Outermost: stdout is the protocol's before the agent is built.
    Effect.provide(ProtocolStdout.layer)
  )
