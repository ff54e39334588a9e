/**
 * A request's path through one MCP session: the services its handler may ask for, wired through
 * the SDK to that request, its log lines forwarded at the session's level, and every notification
 * it queued sent, in order, before its result.
 *
 * @since 0.1.0
 */
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js"
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js"
import type {
  CreateMessageRequestParams,
  ElicitRequestFormParams,
  ServerNotification,
  ServerRequest
} from "@modelcontextprotocol/sdk/types.js"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import * as Ask from "../../../core/Ask.ts"
import * as Caller from "../../../core/Caller.ts"
import type * as Elicitation from "../../../core/Elicitation.ts"
import * as Identity from "../../../core/Identity.ts"
import * as Progress from "../../../core/Progress.ts"
import { messageOf } from "../../../core/ToolFailure.ts"
import * as Logging from "../../face/Logging.ts"
import * as RpcError from "../../face/RpcError.ts"

/** The SDK's handle on one request. */
export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>

/**
 * A request being served: the SDK's handle on it, and where its notifications wait to be sent, in
 * order. The wait exists only once the handler queues its first notification (most never do): a
 * queue, and one fiber sending from it. Touched synchronously only, by the fibers of this request
 * and the session's handler (one runs at a time), so its two fields are plain mutable ones.
 */
export interface Pending {
  readonly extra: Extra
  outbox:
    | { readonly queue: Queue.Queue<ServerNotification, Cause.Done>; readonly sender: Fiber.Fiber<void> }
    | undefined
  /** Set once the handler has ended: anything queued later is dropped, as it was too late to precede the result. */
  done: boolean
}

// The request the current fiber serves, read by the session's services when they are used, so a
// request adds one entry to the context its handler runs in and builds nothing else up front.
const CurrentRequest = Context.Reference<Pending | undefined>("effect-surface/McpSession2025/CurrentRequest", {
  defaultValue: () => undefined
})

const currentRequest: Effect.Effect<Pending | undefined> = Effect.service(CurrentRequest)

/**
 * The handlers of one session still running after their first turn, which the session's end
 * interrupts. Most answer within that turn and are never tracked, so the set exists only once one
 * is; touched synchronously only, so its fields are plain mutable ones.
 */
export interface Handlers {
  running: Set<Fiber.Fiber<unknown, unknown>> | undefined
  /** Set once the session has ended: a request then is refused, a handler forked then interrupted. */
  closed: boolean
}

/** What one session's request paths share. */
export interface Session {
  readonly server: Server
  readonly serverName: string
  readonly context: Context.Context<never>
  readonly handlers: Handlers
  readonly level: Ref.Ref<Logging.Level>
  /**
   * The requests still running that later ones depend on (a subscribe, an unsubscribe, a level set):
   * a request arriving after one waits for it, so they take effect in the order they arrived.
   * Touched synchronously only.
   */
  readonly ordering: Set<Fiber.Fiber<unknown, unknown>>
  /** The request path's context at each log level the host picked (a memo, one entry per level; none before the first request). */
  forwarding: Partial<Record<Logging.Level, Context.Context<Caller.Services>>> | undefined
}

/** A session's handlers, none running yet. */
export const makeHandlers = (): Handlers => ({ running: undefined, closed: false })

/** End a session's handlers: later requests are refused, and every handler still running is interrupted (and awaited). */
export const endHandlers = (handlers: Handlers): Effect.Effect<void> =>
  Effect.suspend(() => {
    handlers.closed = true
    const running = handlers.running
    handlers.running = undefined
    return running === undefined ? Effect.void : Fiber.interruptAll(running)
  })

const track = (handlers: Handlers, fiber: Fiber.Fiber<unknown, unknown>) => {
  if (handlers.closed) {
    fiber.interruptUnsafe()
    return
  }
  const running = handlers.running ??= new Set()
  running.add(fiber)
  fiber.addObserver(() => {
    handlers.running?.delete(fiber)
  })
}

// What the SDK turns into a JSON-RPC error: its `code`, `message` and `data`. (An `McpError` would
// carry its "MCP error <code>:" prefix into the message, and the client adds its own again.)
const rpcError = (code: number, message: string, data?: unknown): Error =>
  Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) })

const isCancelled = (cause: Cause.Cause<unknown>): boolean => Cause.hasInterrupts(cause) && !Cause.hasDies(cause)

// A refusal leaves as its JSON-RPC error; a defect as one sentence (its stack and the server's
// paths are for the server's log).
const thrown = (cause: Cause.Cause<RpcError.Refusal>): Error => {
  const failure = Cause.findErrorOption(cause)
  if (Option.isSome(failure)) {
    const rpc = RpcError.toRpcError(failure.value)
    return rpcError(rpc.code, rpc.message, rpc.data)
  }
  return isCancelled(cause) ? rpcError(-32800, "request cancelled") : rpcError(RpcError.internalError, messageOf(cause))
}

/** A request's parameters the protocol refuses, named in a sentence. */
export const invalidParams = (message: string): Error => rpcError(RpcError.invalidParams, message)

/** The error a request still running when its session ends is answered with. */
export const stopped = (): Error => rpcError(RpcError.internalError, "the server stopped before this request finished")

/** The error a request made after the session closed is answered with. */
export const cancelled = (): Error => rpcError(-32800, "request cancelled")

// Start `effect` in `services`; a fiber still running after its first turn is this session's, so
// the session's end interrupts it (most answer within that turn and are never tracked).
const fork = <A, E, R>(
  session: Session,
  services: Context.Context<R>,
  effect: Effect.Effect<A, E, R>,
  signal?: AbortSignal
): Fiber.Fiber<A, E> => {
  const fiber = Effect.runForkWith(services)(effect, signal === undefined ? undefined : { signal })
  if (fiber.pollUnsafe() === undefined) track(session.handlers, fiber)
  return fiber
}

// A defect is logged outside the request path, so the host is not sent the stack it must not see.
// A request cut off by the session's end is told so, never left unanswered.
const answer = <A>(session: Session, exit: Exit.Exit<A, RpcError.Refusal>): A => {
  if (Exit.isSuccess(exit)) return exit.value
  if (session.handlers.closed && isCancelled(exit.cause)) throw stopped()
  if (Cause.hasDies(exit.cause)) Effect.runForkWith(session.context)(Effect.logError("MCP request failed", exit.cause))
  throw thrown(exit.cause)
}

const settled = <A, E>(fiber: Fiber.Fiber<A, E>): Promise<Exit.Exit<A, E>> =>
  new Promise((resolve) => fiber.addObserver(resolve))

/**
 * The one Promise boundary: the SDK calls in and the Effect runs in this session's scope. An answer
 * ready at once is handed back as is (the SDK awaits either), sparing a Promise per call.
 */
export const handleIn = <A, R>(
  session: Session,
  services: Context.Context<R>,
  effect: Effect.Effect<A, RpcError.Refusal, R>,
  pending?: Pending,
  ordered = false
): A | Promise<A> => {
  if (session.handlers.closed) throw cancelled()
  const { ordering } = session
  // Requests are handed over in the order they arrived; one that arrived after a request it may
  // depend on starts once that one has taken effect.
  const after = ordering.size === 0 ? effect : Effect.andThen(Fiber.awaitAll([...ordering]), effect)
  const fiber = fork(session, services, after, pending?.extra.signal)
  const exit = fiber.pollUnsafe()
  if (ordered && exit === undefined) {
    ordering.add(fiber)
    fiber.addObserver(() => ordering.delete(fiber))
  }
  if (pending === undefined)
    return exit === undefined ? settled(fiber).then((exit) => answer(session, exit)) : answer(session, exit)
  if (exit !== undefined) {
    pending.done = true
    if (pending.outbox === undefined) return answer(session, exit)
  }
  // Every notification the handler queued leaves before its result.
  return settled(fiber).then((exit) => {
    pending.done = true
    const outbox = pending.outbox
    return outbox === undefined
      ? answer(session, exit)
      : settled(fork(session, session.context, Effect.andThen(Queue.end(outbox.queue), Fiber.await(outbox.sender))))
        .then(() => answer(session, exit))
  })
}

// Queue a notification of the request a fiber serves; the first opens its outbox.
const notify = (session: Session, pending: Pending | undefined, notification: ServerNotification) => {
  if (pending === undefined || pending.done) return
  if (pending.outbox !== undefined) {
    Queue.offerUnsafe(pending.outbox.queue, notification)
    return
  }
  const queue = Effect.runSync(Queue.unbounded<ServerNotification, Cause.Done>())
  Queue.offerUnsafe(queue, notification)
  const send = (queued: ServerNotification) =>
    Effect.ignore(Effect.tryPromise(() => pending.extra.sendNotification(queued)))
  pending.outbox = { queue, sender: fork(session, session.context, Stream.runForEach(Stream.fromQueue(queue), send)) }
}

// The SDK types a requested schema as a strict union of primitive shapes; `Elicitation` derives
// exactly those shapes, as plain JSON, so the value is the same object seen through a wider type.
const asRequestedSchema = (schema: Elicitation.RequestedSchema) => schema as ElicitRequestFormParams["requestedSchema"]

// Asking the host, related to the request being served so the transport sends it on that request's stream.
const channel = (server: Server, pending: Pending | undefined): Ask.Channel => {
  const declared = server.getClientCapabilities()
  const related = pending === undefined ? {} : { relatedRequestId: pending.extra.requestId }
  const options = (signal: AbortSignal, timeout: Duration.Duration | undefined) =>
    timeout === undefined ? { signal, ...related } : { signal, timeout: Duration.toMillis(timeout), ...related }
  return {
    capabilities: {
      elicitation: declared?.elicitation?.form !== undefined,
      sampling: declared?.sampling !== undefined,
      roots: declared?.roots !== undefined
    },
    elicit: (params, { timeout }) =>
      Effect.tryPromise({
        try: (signal) =>
          server.elicitInput({
            mode: "form",
            message: params.message,
            requestedSchema: asRequestedSchema(params.requestedSchema)
          }, options(signal, timeout)),
        catch: (cause) => cause
      }),
    sample: (request, { timeout }) =>
      Effect.tryPromise({
        // The core's request is the SDK's params read as plain JSON; the SDK checked its answer's shape.
        try: (signal) =>
          server.createMessage(request as CreateMessageRequestParams, options(signal, timeout)) as Promise<
            Ask.SampleResult
          >,
        catch: (cause) => cause
      }),
    roots: ({ timeout }) =>
      Effect.tryPromise({
        try: (signal) => server.listRoots(undefined, options(signal, timeout)).then((listed) => listed.roots),
        catch: (cause) => cause
      })
  }
}

// What a handler may ask for, the same for every request of the session: each use reads the
// request it serves from its fiber's context.
const requestServices = (server: Server): Context.Context<Caller.Services> =>
  Context.make(Ask.Ask, {
    get capabilities() {
      return channel(server, undefined).capabilities
    },
    elicit: (message, schema, options) =>
      Effect.flatMap(currentRequest, (pending) => Ask.make(channel(server, pending)).elicit(message, schema, options)),
    sample: (request, options) =>
      Effect.flatMap(currentRequest, (pending) => Ask.make(channel(server, pending)).sample(request, options)),
    roots: (options) => Effect.flatMap(currentRequest, (pending) => Ask.make(channel(server, pending)).roots(options))
  }).pipe(
    Context.add(Caller.ResponseStream, {
      close: Effect.map(currentRequest, (pending) => {
        // Offered by the SDK only where the stream can be resumed (an event store, 2025-11-25).
        if (pending?.extra.closeSSEStream === undefined) return false
        pending.extra.closeSSEStream()
        return true
      })
    }),
    Context.add(Progress.Progress, Progress.none),
    // A 2025 session has no tasks: a call that would begin one goes on as it was.
    Context.add(Caller.Task, { begin: Effect.void }),
    // Each request that came with a verified token names its own caller (see `serve`).
    Context.add(Identity.Identity, Identity.local)
  )

// The request path's context at a level: the session's, its log lines forwarded at that level, and
// the request services. Built at the first request at that level (never invalidated; an idle
// session holds none) and flattened, so the one entry a request adds stays a shallow overlay.
const forwardingAt = (session: Session, at: Logging.Level): Context.Context<Caller.Services> => {
  const known = session.forwarding?.[at]
  if (known !== undefined) return known
  const message = (params: Logging.Message, fiber: Fiber.Fiber<unknown, unknown>) =>
    notify(session, fiber.getRef(CurrentRequest), { method: "notifications/message", params })
  const built = Context.makeUnsafe<Caller.Services>(
    new Map(
      Context.merge(
        Logging.forwarding(session.context, at, message, session.serverName),
        requestServices(session.server)
      ).mapUnsafe
    )
  )
  const forwarding = session.forwarding ??= {}
  forwarding[at] = built
  return built
}

/**
 * Serve one request on its path: its services wired to it, its log lines forwarded at the session's
 * level, progress on its token when the host asked, and every notification sent before its result.
 */
export const serve = <A>(
  session: Session,
  extra: Extra,
  effect: Effect.Effect<A, RpcError.Refusal, Caller.Services>
): A | Promise<A> => {
  const pending: Pending = { extra, outbox: undefined, done: false }
  const token = extra._meta?.progressToken
  // A host that asked for progress gets it on its token, queued behind the log lines before it.
  const reporting = token === undefined ? effect : Effect.flatMap(
    Progress.make(
      token,
      (params) => Effect.sync(() => notify(session, pending, { method: "notifications/progress", params }))
    ),
    (progress) => Effect.provideService(effect, Progress.Progress, progress)
  )
  const at = Context.add(forwardingAt(session, Ref.getUnsafe(session.level)), CurrentRequest, pending)
  const caller = callerOf(extra)
  return handleIn(
    session,
    caller === undefined ? at : Context.add(at, Identity.Identity, caller),
    reporting,
    pending
  )
}

/**
 * The caller a resource server verified for this request, handed to the SDK's transport with it
 * (`authInfo`); none where the request came unauthenticated.
 */
export const callerOf = (extra: { readonly authInfo?: { readonly extra?: Record<string, unknown> } }) =>
  extra.authInfo?.extra?.["caller"] as Identity.Principal | undefined

/**
 * What the SDK's transport is handed with a request a resource server verified: the caller, and
 * never the token (the SDK's field is left empty, so nothing downstream can log or forward it).
 */
export const authInfoOf = (caller: Identity.Principal): AuthInfo => formsOf(caller).authInfo

/** Who a verified caller's sessions belong to (`Identity.holder`), made once per caller. */
export const holderOf = (caller: Identity.Principal): string => formsOf(caller).holder

// A verifier answers a token it took on its word with the caller it verified before, so the forms
// of that caller a request needs are made once, not on every request.
const forms = new WeakMap<Identity.Principal, { readonly authInfo: AuthInfo; readonly holder: string }>()

const formsOf = (caller: Identity.Principal) => {
  const known = forms.get(caller)
  if (known !== undefined) return known
  const made = {
    authInfo: Object.freeze({ token: "", clientId: caller.clientId, scopes: [...caller.scopes], extra: { caller } }),
    holder: Identity.holder(caller)
  }
  forms.set(caller, made)
  return made
}

/**
 * Serve a request that needs none of the request services; `ordered` when requests arriving after
 * it depend on it (a subscribe: a change made next must be announced).
 */
export const handle = <A>(
  session: Session,
  effect: Effect.Effect<A, RpcError.Refusal>,
  ordered = false
): A | Promise<A> => handleIn(session, session.context, effect, undefined, ordered)
