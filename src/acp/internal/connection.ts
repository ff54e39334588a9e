/**
 * One editor connected to the agent: the SDK's agent app, with every request it hands over run as
 * an Effect in this connection's scope.
 *
 * The SDK owns the protocol (framing, ids, the params it parses); this module owns what the SDK
 * leaves to the agent. It stores the editor's capabilities at `initialize` (the SDK keeps none),
 * opens sessions (each with its own scope and the services `session/new` builds), runs each
 * prompt's turn in a fiber with the turn's surface in context, and ends the turn on
 * `session/cancel` itself (the SDK aborts nothing): the prompt answers `cancelled` at once, and the
 * cleanup the turn registered goes out only once that answer has been written — seen on the
 * outgoing stream, not guessed — and the turn has settled. A stop (the scope closing) lets the
 * running turns unwind before the connection closes, so what they release on the way out reaches
 * the editor.
 */
import * as Acp from "@agentclientprotocol/sdk"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberMap from "effect/FiberMap"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Approval from "../../core/Approval.ts"
import { messageOf } from "../../core/ToolFailure.ts"
import type { Checks } from "../AcpChecks.ts"
import * as AcpApproval from "../AcpApproval.ts"
import { AcpSession, type Info } from "../AcpSession.ts"
import { AcpSurface } from "../AcpSurface.ts"
import type { Capabilities } from "../Protocol.ts"
import * as Turn from "./turn.ts"

/** The services every turn runs with. */
export type Provided = AcpSurface | AcpSession | Approval.Approval

/** What a connection needs to know about the agent it serves. */
export interface Setup<R> {
  readonly info: Acp.Implementation
  readonly agentCapabilities: Acp.AgentCapabilities
  readonly handler: (
    request: Acp.PromptRequest,
    session: Info
  ) => Effect.Effect<Acp.StopReason | void, unknown, R | Provided>
  readonly session: ((session: Info) => Layer.Layer<never, unknown, R | AcpSession | Approval.Approval>) | undefined
  readonly checks: Checks
  readonly cleanupDeadline: Duration.Input
  readonly settleDeadline: Duration.Input
}

/** A connected editor, as its owner sees it. */
export interface Connection {
  /** Completes once the connection has closed and everything it owned has ended. */
  readonly closed: Effect.Effect<void>
  /** What the editor advertised, once it has sent `initialize`. */
  readonly capabilities: Effect.Effect<Option.Option<Capabilities>>
  /**
   * Stop, gracefully: no new session or turn starts, the running turns are interrupted and unwind
   * while the editor is still connected (what their finalizers send reaches it, each prompt is
   * answered), for at most `settleDeadline`; then the connection closes. Closing the scope does the same.
   */
  readonly close: Effect.Effect<void>
}

interface SessionState {
  readonly info: Info
  readonly context: Context.Context<never>
  current: Turn.Turn | undefined
}

// Tap the outgoing messages: `seen` runs as each one is handed to the transport, in order.
const tap = (stream: Acp.Stream, seen: (message: Acp.AnyMessage) => void): Acp.Stream => {
  const writer = stream.writable.getWriter()
  return {
    readable: stream.readable,
    writable: new WritableStream<Acp.AnyMessage>({
      write: (message) => {
        const written = writer.write(message)
        seen(message)
        return written
      },
      close: () => writer.close(),
      abort: (reason) => writer.abort(reason)
    })
  }
}

const failure = (cause: Cause.Cause<unknown>): Error =>
  Cause.hasInterruptsOnly(cause) ? Acp.RequestError.requestCancelled()
    : Acp.RequestError.internalError(undefined, messageOf(cause))

// A connection's state. Its mutable fields (the link, set once the SDK connects, and whether the
// editor has initialized) are written once, synchronously, by the SDK's callbacks.
interface State<R> {
  readonly setup: Setup<R>
  readonly scope: Scope.Closeable
  readonly context: Context.Context<R>
  /** Each session's running turn handler. */
  readonly handlers: FiberMap.FiberMap<string>
  /** Request handlers and cleanups. */
  readonly background: FiberSet.FiberSet<unknown, unknown>
  readonly sessions: Map<string, SessionState>
  /**
   * Prompts whose answer has not yet been handed to the transport: what a cancelled turn's cleanup
   * waits for, and what a graceful stop waits for before closing.
   */
  readonly unanswered: Map<Acp.JsonRpcId, Deferred.Deferred<void>>
  link: Turn.Link | undefined
  initialized: boolean
  /** A graceful stop has begun: no new session or turn starts. */
  stopping: boolean
}

const linkOf = <R>(state: State<R>): Turn.Link => state.link!

const approval = Context.make(Approval.Approval, Approval.Approval.of({ decide: AcpApproval.decide }))

// The one Promise boundary: each SDK callback runs its Effect in the connection's scope.
const run = <R, A>(state: State<R>, effect: Effect.Effect<A, unknown, R>): Promise<A> => {
  const fiber = Effect.runForkWith(state.context)(effect)
  FiberSet.addUnsafe(state.background, fiber)
  return new Promise((resolve, reject) =>
    fiber.addObserver((exit) => Exit.isSuccess(exit) ? resolve(exit.value) : reject(failure(exit.cause)))
  )
}

// The cancelled prompt's answer has been handed to the transport: its cleanup may go.
const answered = <R>(state: State<R>, message: Acp.AnyMessage): void => {
  if (state.unanswered.size === 0 || "method" in message || !("id" in message)) return
  const waiting = state.unanswered.get(message.id)
  if (waiting === undefined) return
  state.unanswered.delete(message.id)
  Deferred.doneUnsafe(waiting, Effect.void)
}

const STOPPING = "the agent is stopping"

const openSession = <R>(state: State<R>, request: Acp.NewSessionRequest) =>
  Effect.gen(function*() {
    if (state.stopping) return yield* Effect.fail(Acp.RequestError.internalError(undefined, STOPPING))
    const info: Info = {
      sessionId: `session-${crypto.randomUUID()}`,
      cwd: request.cwd,
      mcpServers: request.mcpServers,
      request
    }
    const own = yield* Scope.fork(state.scope)
    const built = state.setup.session === undefined
      ? Context.empty()
      // Built with the session and the editor-backed Approval: a client toolset made here keeps that
      // Approval, and each ask reaches the editor of whichever turn is calling.
      : yield* Layer.buildWithScope(
        Layer.provide(
          state.setup.session(info),
          Layer.merge(Layer.succeed(AcpSession, info), Layer.succeedContext(approval))
        ),
        own
      ).pipe(
        Effect.onError((cause) => Scope.close(own, Exit.failCause(cause)))
      )
    state.sessions.set(info.sessionId, {
      info,
      context: Context.add(Context.merge(built, approval), AcpSession, info),
      current: undefined
    })
    return { sessionId: info.sessionId }
  })

// After a cancel: the handler unwinds, the answer goes out, then what the turn registered.
const afterCancel = <R>(
  state: State<R>,
  turn: Turn.Turn,
  handler: Fiber.Fiber<unknown, unknown>,
  written: Deferred.Deferred<void>
) =>
  Effect.gen(function*() {
    // Interrupted from a child fiber: `interruptUnsafe`, or a fiber forked into a set, lets an
    // uninterruptible finalizer of a FiberMap fiber be cut short (effect 4.1.0).
    yield* Effect.forkChild(Fiber.interrupt(handler))
    yield* Deferred.await(written)
    yield* Effect.timeoutOption(Fiber.await(handler), state.setup.settleDeadline)
    yield* Turn.cleanup(turn, state.setup.cleanupDeadline)
  }).pipe(Effect.withSpan("AcpAgent.cleanup", { attributes: { sessionId: turn.sessionId } }))

const prompt = <R>(state: State<R>, request: Acp.PromptRequest, requestId: Acp.JsonRpcId) =>
  Effect.gen(function*() {
    const written = Deferred.makeUnsafe<void>()
    state.unanswered.set(requestId, written)
    if (state.stopping) return yield* Effect.fail(Acp.RequestError.internalError(undefined, STOPPING))
    const session = state.sessions.get(request.sessionId)
    if (session === undefined) return yield* Effect.fail(Acp.RequestError.sessionNotFound(request.sessionId))
    // A new prompt on a busy session cancels the turn before it.
    if (session.current !== undefined) Turn.cancel(session.current)
    const turn = Turn.make(linkOf(state), request.sessionId)
    session.current = turn
    const services = Context.add(session.context, AcpSurface, Turn.surfaceOf(turn))
    // One span per turn: a span per editor call would cost more than the call's own overhead.
    const body = Effect.provideContext(state.setup.handler(request, session.info), services).pipe(
      Effect.withSpan("AcpAgent.turn", { attributes: { sessionId: request.sessionId } })
    ) as Effect.Effect<Acp.StopReason | void, unknown, R>
    const handler = yield* FiberMap.run(state.handlers, request.sessionId, body, { startImmediately: false })
    const ending = yield* Effect.raceFirst(
      Effect.map(Fiber.await(handler), (exit) => Option.some(exit)),
      Effect.as(Deferred.await(turn.cancelled), Option.none())
    )
    if (session.current === turn) session.current = undefined
    if (Option.isNone(ending)) {
      yield* FiberSet.run(state.background, afterCancel(state, turn, handler, written))
      return { stopReason: "cancelled" } satisfies Acp.PromptResponse
    }
    Turn.end(turn)
    const exit = ending.value
    if (Exit.isSuccess(exit)) return { stopReason: exit.value ?? "end_turn" } satisfies Acp.PromptResponse
    if (state.stopping && Cause.hasInterruptsOnly(exit.cause))
      return yield* Effect.fail(Acp.RequestError.internalError(undefined, "the agent stopped before the turn ended"))
    if (Cause.hasDies(exit.cause)) yield* Effect.logError("ACP turn failed", exit.cause)
    return yield* Effect.failCause(exit.cause)
  })

const app = <R>(state: State<R>) =>
  Acp.agent({ name: state.setup.info.name })
    .onRequest(Acp.methods.agent.initialize, ({ params }) => {
      linkOf(state).capabilities = params.clientCapabilities ?? {}
      state.initialized = true
      return {
        protocolVersion: Acp.PROTOCOL_VERSION,
        agentCapabilities: state.setup.agentCapabilities,
        agentInfo: state.setup.info,
        authMethods: []
      }
    })
    .onRequest(Acp.methods.agent.session.new, ({ params }) => run(state, openSession(state, params)))
    .onRequest(
      Acp.methods.agent.session.prompt,
      ({ params, requestId }) => run(state, prompt(state, params, requestId))
    )
    .onNotification(Acp.methods.agent.session.cancel, ({ params }) => {
      const turn = state.sessions.get(params.sessionId)?.current
      if (turn !== undefined) Turn.cancel(turn)
    })
    .onConnect((connection) => {
      state.link = {
        client: connection.client,
        signal: connection.signal,
        checks: state.setup.checks,
        capabilities: {}
      }
    })

// A graceful stop, while the editor is still connected: the running turns are interrupted and
// unwind, so what their finalizers send (a terminal/release) reaches it; every request in flight
// is answered and a cancelled turn's cleanup goes out. Bounded by `settleDeadline`; what is still
// running then finds the connection closed.
const drain = <R>(state: State<R>): Effect.Effect<void> =>
  Effect.gen(function*() {
    state.stopping = true
    if (state.link === undefined || state.link.signal.aborted) return
    // From a child fiber, as a cancel interrupts a turn (see `afterCancel`).
    yield* Effect.forkChild(FiberMap.clear(state.handlers))
    const promptsAnswered = Effect.suspend(() =>
      Effect.forEach([...state.unanswered.values()], Deferred.await, { discard: true })
    )
    yield* Effect.ignore(FiberMap.awaitEmpty(state.handlers)).pipe(
      Effect.andThen(FiberSet.awaitEmpty(state.background)),
      Effect.andThen(promptsAnswered),
      Effect.timeoutOrElse({
        duration: state.setup.settleDeadline,
        orElse: () =>
          Effect.flatMap(FiberMap.size(state.handlers), (turns) =>
            Effect.logWarning(
              `ACP agent stopping: ${turns} turn(s) still unwinding, ${state.unanswered.size} prompt(s) unanswered after ${
                Duration.format(Duration.fromInputUnsafe(state.setup.settleDeadline))
              }; closing the connection`
            ))
      })
    )
  })

/** Serve one editor on `stream` until it closes or the caller's scope does. */
export const connect = <R>(setup: Setup<R>, stream: Acp.Stream): Effect.Effect<Connection, never, Scope.Scope | R> =>
  Effect.gen(function*() {
    const scope = yield* Scope.fork(yield* Effect.scope)
    const closed = yield* Deferred.make<void>()
    yield* Scope.addFinalizer(scope, Deferred.succeed(closed, undefined))
    const state: State<R> = {
      setup,
      scope,
      context: yield* Effect.context<R>(),
      handlers: yield* FiberMap.make<string>().pipe(Scope.provide(scope)),
      background: yield* FiberSet.make<unknown, unknown>().pipe(Scope.provide(scope)),
      sessions: new Map(),
      unanswered: new Map(),
      link: undefined,
      initialized: false,
      stopping: false
    }
    const connection = app(state).connect(tap(stream, (message) => answered(state, message)))
    // The editor went away: every outstanding call has settled as Disconnected, and the turns still
    // running end through their own error paths (bounded as a cancelled turn's settling is) before
    // the scope closes, from a fiber of its own.
    void connection.closed.then(() =>
      Effect.runForkWith(state.context)(
        FiberMap.awaitEmpty(state.handlers).pipe(
          Effect.exit,
          Effect.timeoutOption(setup.settleDeadline),
          Effect.andThen(Scope.close(scope, Exit.void))
        )
      )
    )
    yield* Scope.addFinalizer(scope, Effect.sync(() => connection.close()))
    // Runs first: the turns unwind before the connection closes.
    yield* Scope.addFinalizer(scope, drain(state))
    return {
      closed: Deferred.await(closed),
      capabilities: Effect.sync(() => state.initialized ? Option.some(linkOf(state).capabilities) : Option.none()),
      close: Scope.close(scope, Exit.void)
    }
  })
