/**
 * One MCP session: the official SDK's low-level `Server` bound to a shared `Face`.
 *
 * The SDK owns the protocol — framing, version negotiation, request ids, cancellation messages — and
 * is used for exactly that. Everything a request does runs as an Effect in a fiber this session's
 * own scope owns, and that scope lives exactly as long as the transport: a host that disconnects
 * ends the session's handlers, subscriptions (and the connection leases they hold) and roster
 * listeners at once, not when the server stops — under Streamable HTTP, where every MCP session is
 * one of these, nothing of a departed host is left behind. A host's `notifications/cancelled`
 * interrupts the one handler it names. A handler's request path is this session's too: its Effect
 * log lines at or above the session's level, its progress, and its questions to the client travel
 * as notifications and requests related to that request (so over Streamable HTTP they ride the
 * request's own stream), and every notification it queued is sent before its result. Only this module imports the SDK's server, so a new protocol
 * revision is a new session module, not a new face.
 *
 * @since 0.1.0
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  type CallToolRequest,
  CallToolRequestSchema,
  RequestSchema,
  type CallToolResult,
  CompleteRequestSchema,
  type ElicitRequestFormParams,
  GetPromptRequestSchema,
  type GetPromptResult,
  type InitializeRequest,
  InitializeRequestSchema,
  type InitializeResult,
  ListPromptsRequestSchema,
  type ListPromptsResult,
  ListResourcesRequestSchema,
  type ListResourcesResult,
  ListResourceTemplatesRequestSchema,
  type ListResourceTemplatesResult,
  ListToolsRequestSchema,
  type ListToolsResult,
  type ReadResourceResult,
  ReadResourceRequestSchema,
  type ServerNotification,
  type ServerRequest,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Cause, Context, Deferred, Duration, Effect, Exit, Fiber, FiberMap, FiberSet, Option, Queue, Ref, Scope, Semaphore, Stream } from "effect"
import { messageOf } from "../core/ToolFailure.ts"
import * as ClientRequests from "./ClientRequests.ts"
import type * as Elicitation from "./Elicitation.ts"
import type * as Face from "./Face.ts"
import * as Logging from "./Logging.ts"
import * as Progress from "./Progress.ts"
import * as Request from "./Request.ts"
import * as Resources from "./Resources.ts"

/**
 * A connected session.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
 * import { McpFace, McpSessions } from "effect-surface/mcp"
 *
 * declare const face: McpFace.Face
 * declare const transport: Transport
 * const program = Effect.gen(function*() {
 *   const session: McpSessions.Session = yield* McpSessions.connect(face, transport)
 *   yield* session.closed // the host disconnected, and everything the session owned has ended
 *   return yield* session.subscriptions // []
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
export interface Session {
  /** The SDK server, for what the face does not cover (custom notifications, tests). */
  readonly server: Server
  /**
   * Completes when the session has ended — its transport closed, from either side, or the scope it
   * was connected in closed — and everything it owned (handlers, subscriptions, listeners) with it.
   */
  readonly closed: Effect.Effect<void>
  /** The URIs this session is subscribed to now. */
  readonly subscriptions: Effect.Effect<ReadonlyArray<string>>
}

/**
 * The longest `resources/subscribe` waits for its subscription to go live (its first frame) before
 * answering anyway; a source that is down is then followed in the background.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { McpSessions } from "effect-surface/mcp"
 * Duration.toMillis(McpSessions.openWait) // 1000
 * ```
 *
 * @since 0.1.0
 */
export const openWait: Duration.Duration = Duration.seconds(1)

// tools/call by its method alone; its shape is checked by the SDK's tools/call wrapper.
const LooseCallToolRequestSchema = RequestSchema.extend({ method: CallToolRequestSchema.shape.method })

// What the SDK's `Server` does on `initialize` (version negotiation, recording the client's
// capabilities) is private; the function arm of `instructions` calls through to it and overlays only
// the `instructions` field. Pinned by a test that re-reads instructions per `initialize`.
interface Initializing {
  readonly _oninitialize: (request: InitializeRequest) => Promise<InitializeResult>
}

// What the SDK turns into a JSON-RPC error: its `code`, `message` and `data`. (An `McpError` would
// carry its "MCP error <code>:" prefix into the message, and the client adds its own again.)
const rpcError = (code: number, message: string, data?: unknown): Error =>
  Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) })

// A defect leaves as one sentence: its stack and the server's paths are for the server's log.
const toRpcError = (cause: Cause.Cause<Resources.ProtocolError>): Error => {
  const failure = Cause.findErrorOption(cause)
  if (Option.isSome(failure)) return rpcError(failure.value.code, failure.value.message, failure.value.data)
  return isCancelled(cause) ? rpcError(-32800, "request cancelled") : rpcError(Resources.internalError, messageOf(cause))
}

const isCancelled = (cause: Cause.Cause<unknown>): boolean => Cause.hasInterrupts(cause) && !Cause.hasDies(cause)

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>

// The SDK types a requested schema as a strict union of primitive shapes; `McpElicitation` derives
// exactly those shapes, as plain JSON, so the value is the same object seen through a wider type.
const asRequestedSchema = (schema: Elicitation.RequestedSchema) => schema as ElicitRequestFormParams["requestedSchema"]

// A request being served: the SDK's handle on it, and where its notifications wait to be sent, in
// order. The wait exists only once the handler queues its first notification (most never do): a
// queue, and one fiber sending from it. Touched synchronously only, by the fibers of this request
// and the session's handler (one runs at a time), so its two fields are plain mutable ones.
interface Pending {
  readonly extra: Extra
  outbox: { readonly queue: Queue.Queue<ServerNotification, Cause.Done>; readonly sender: Fiber.Fiber<void> } | undefined
  /** Set once the handler has ended: anything queued later is dropped, as it was too late to precede the result. */
  done: boolean
}

// The request the current fiber serves, read by the session's services when they are used, so a
// request adds one entry to the context its handler runs in and builds nothing else up front.
const CurrentRequest = Context.Reference<Pending | undefined>("effect-surface/McpSessions/CurrentRequest", { defaultValue: () => undefined })

const currentRequest: Effect.Effect<Pending | undefined> = Effect.service(CurrentRequest)

/**
 * Serve a face on one transport until the scope closes or the transport does.
 *
 * The session forks its own scope from the caller's: it closes when the transport closes (and
 * `closed` completes once it has), or when the caller's scope closes, whichever comes first.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
 * import { McpFace, McpSessions } from "effect-surface/mcp"
 *
 * declare const options: McpFace.Options
 * const program = Effect.gen(function*() {
 *   const face = yield* McpFace.make(options)
 *   const session = yield* McpSessions.connect(face, new StdioServerTransport())
 *   yield* session.closed
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
export const connect = (face: Face.Face, transport: Transport): Effect.Effect<Session, never, Scope.Scope> =>
  Effect.gen(function*() {
    const closed = yield* Deferred.make<void>()
    const scope = yield* Scope.fork(yield* Effect.scope)
    // The first finalizer runs last: `closed` completes once everything else the session owned has ended.
    yield* Scope.addFinalizer(scope, Deferred.succeed(closed, undefined))
    const context = yield* Effect.context<never>()
    // The transport's close is announced by a callback: it closes the session's scope from a fiber of
    // its own (never one the scope owns, which the close would interrupt).
    const end = () => {
      Effect.runForkWith(context)(Scope.close(scope, Exit.void))
    }
    const opened = yield* open(face, transport, end).pipe(Scope.provide(scope))
    return { server: opened.server, closed: Deferred.await(closed), subscriptions: opened.subscriptions }
  })

const open = (face: Face.Face, transport: Transport, end: () => void) =>
  Effect.gen(function*() {
    const instructions = face.instructions
    const server = new Server(face.serverInfo, {
      // Advertised from the first initialize even when nothing is exposed: a host that never heard
      // the lists can change has no reason to re-read them after a roster move.
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        completions: {},
        logging: {}
      },
      ...(instructions._tag === "Static" && instructions.text !== undefined ? { instructions: instructions.text } : {})
    })
    const handlers = yield* FiberSet.make<unknown, unknown>()
    const subscriptions = yield* FiberMap.make<string>()
    const level = yield* Ref.make<Logging.Level>(face.logLevel)
    const context = yield* Effect.context<never>()
    const runFork = Effect.runForkWith(context)

    // Start `effect` in `services`; a fiber still running after its first turn is this session's,
    // so the session's end interrupts it (most answer within that turn and are never tracked).
    const fork = <A, E, R>(services: Context.Context<R>, effect: Effect.Effect<A, E, R>, signal?: AbortSignal): Fiber.Fiber<A, E> => {
      const fiber = Effect.runForkWith(services)(effect, signal === undefined ? undefined : { signal })
      if (fiber.pollUnsafe() === undefined) FiberSet.addUnsafe(handlers, fiber)
      return fiber
    }

    // A typed refusal leaves as the JSON-RPC error it names; a defect is logged outside the request
    // path, so the host is not sent the stack it must not see.
    const answer = <A>(exit: Exit.Exit<A, Resources.ProtocolError>): A => {
      if (Exit.isSuccess(exit)) return exit.value
      if (Cause.hasDies(exit.cause)) runFork(Effect.logError("MCP request failed", exit.cause))
      throw toRpcError(exit.cause)
    }
    const settled = <A, E>(fiber: Fiber.Fiber<A, E>): Promise<Exit.Exit<A, E>> => new Promise((resolve) => fiber.addObserver(resolve))

    // The one Promise boundary: the SDK calls in and the Effect runs in this session's scope. An
    // answer ready at once is handed back as is (the SDK awaits either), sparing a Promise per call.
    const handleIn = <A, R>(services: Context.Context<R>, effect: Effect.Effect<A, Resources.ProtocolError, R>, pending?: Pending): A | Promise<A> => {
      if (handlers.state._tag === "Closed") throw rpcError(-32800, "request cancelled")
      const fiber = fork(services, effect, pending?.extra.signal)
      const exit = fiber.pollUnsafe()
      if (pending === undefined) return exit === undefined ? settled(fiber).then(answer) : answer(exit)
      if (exit !== undefined) {
        pending.done = true
        if (pending.outbox === undefined) return answer(exit)
      }
      // Every notification the handler queued leaves before its result.
      return settled(fiber).then((exit) => {
        pending.done = true
        const outbox = pending.outbox
        return outbox === undefined
          ? answer(exit)
          : settled(fork(context, Effect.andThen(Queue.end(outbox.queue), Fiber.await(outbox.sender)))).then(() => answer(exit))
      })
    }
    const handle = <A>(effect: Effect.Effect<A, Resources.ProtocolError>): A | Promise<A> => handleIn(context, effect)

    // Queue a notification of the request a fiber serves; the first opens its outbox.
    const notify = (pending: Pending | undefined, notification: ServerNotification) => {
      if (pending === undefined || pending.done) return
      if (pending.outbox !== undefined) {
        Queue.offerUnsafe(pending.outbox.queue, notification)
        return
      }
      const queue = Effect.runSync(Queue.unbounded<ServerNotification, Cause.Done>())
      Queue.offerUnsafe(queue, notification)
      const send = (queued: ServerNotification) => Effect.ignore(Effect.tryPromise(() => pending.extra.sendNotification(queued)))
      pending.outbox = { queue, sender: fork(context, Stream.runForEach(Stream.fromQueue(queue), send)) }
    }

    const channel = (pending: Pending | undefined): ClientRequests.Channel => {
      const declared = server.getClientCapabilities()
      // Related to the request being served, so the transport sends it on that request's stream.
      const related = pending === undefined ? {} : { relatedRequestId: pending.extra.requestId }
      return {
        capabilities: { elicitation: declared?.elicitation?.form !== undefined, sampling: declared?.sampling !== undefined },
        elicit: (params, options) =>
          server.elicitInput({ mode: "form", message: params.message, requestedSchema: asRequestedSchema(params.requestedSchema) }, { ...options, ...related }),
        sample: (params, options) => server.createMessage(params, { ...options, ...related })
      }
    }

    // What a handler may ask for, the same for every request of the session: each use reads the
    // request it serves from its fiber's context.
    const requestServices = () => Context.make(ClientRequests.McpClientRequests, {
      get capabilities() {
        return channel(undefined).capabilities
      },
      elicit: (message, schema, options) => Effect.flatMap(currentRequest, (pending) => ClientRequests.make(channel(pending)).elicit(message, schema, options)),
      sample: (params, options) => Effect.flatMap(currentRequest, (pending) => ClientRequests.make(channel(pending)).sample(params, options))
    }).pipe(
      Context.add(Request.McpResponseStream, {
        close: Effect.map(currentRequest, (pending) => {
          // Offered by the SDK only where the stream can be resumed (an event store, 2025-11-25).
          if (pending?.extra.closeSSEStream === undefined) return false
          pending.extra.closeSSEStream()
          return true
        })
      }),
      Context.add(Progress.McpProgress, Progress.none)
    )

    // The request path's context at each level the host picks: the session's, its log lines
    // forwarded at that level, and the request services. Built at the first request at that level
    // (a memo, at most one entry per MCP level, never invalidated; an idle session holds none) and
    // flattened, so the one entry a request adds stays a shallow overlay.
    const forwarding = new Map<Logging.Level, Context.Context<Request.Services>>()
    const message = (params: Logging.Message, fiber: Fiber.Fiber<unknown, unknown>) =>
      notify(fiber.getRef(CurrentRequest), { method: "notifications/message", params })
    const forwardingAt = (at: Logging.Level): Context.Context<Request.Services> => {
      const known = forwarding.get(at)
      if (known !== undefined) return known
      const built = Context.makeUnsafe<Request.Services>(
        new Map(Context.merge(Logging.forwarding(context, at, message, face.serverInfo.name), requestServices()).mapUnsafe)
      )
      forwarding.set(at, built)
      return built
    }

    // A handler's request path: its services wired to this request, its log lines forwarded at the
    // session's level, and every notification it queued sent, in order, before its result is.
    const serve = <A>(extra: Extra, effect: Effect.Effect<A, Resources.ProtocolError, Request.Services>): A | Promise<A> => {
      const pending: Pending = { extra, outbox: undefined, done: false }
      const token = extra._meta?.progressToken
      // A host that asked for progress gets it on its token, queued behind the log lines before it.
      const reporting = token === undefined ? effect : Effect.flatMap(
        Progress.make(token, (params) => Effect.sync(() => notify(pending, { method: "notifications/progress", params }))),
        (progress) => Effect.provideService(effect, Progress.McpProgress, progress)
      )
      return handleIn(Context.add(forwardingAt(Ref.getUnsafe(level)), CurrentRequest, pending), reporting, pending)
    }

    if (instructions._tag === "Dynamic") {
      server.setRequestHandler(InitializeRequestSchema, async (request) => {
        const result = await (server as unknown as Initializing)._oninitialize(request)
        const text = await handle(instructions.read)
        return text === undefined ? result : { ...result, instructions: text }
      })
    }
    // Replaces the SDK's own handler, which keys levels by transport session id; here the level is
    // this session's, read by its own request path.
    server.setRequestHandler(SetLevelRequestSchema, (request) => handle(Effect.as(Ref.set(level, request.params.level), {})))
    server.setRequestHandler(ListToolsRequestSchema, () =>
      handle(Effect.map(face.roster.current, (resolved): ListToolsResult =>
        // Built by the resolver in the tools/list shape; the SDK's type is the same JSON.
        ({ tools: resolved.advertisedTools as ListToolsResult["tools"] }))))
    // Registered with the loose request shape: the SDK's own parse would answer a malformed call
    // (`arguments: 0`) as an internal error, where its tools/call check answers -32602 naming it.
    server.setRequestHandler(LooseCallToolRequestSchema, (request, extra) => {
      // The SDK checked the request against CallToolRequestSchema before calling this handler.
      const params = request.params as CallToolRequest["params"]
      // A ToolResult is a CallToolResult: our own type, kept assignable by a type test.
      return serve<CallToolResult>(extra, face.callTool(params.name, params.arguments ?? {}))
    })
    server.setRequestHandler(ListPromptsRequestSchema, () =>
      handle(Effect.map(face.listPrompts, (prompts): ListPromptsResult => ({ prompts: prompts as ListPromptsResult["prompts"] }))))
    server.setRequestHandler(GetPromptRequestSchema, (request, extra) =>
      serve<GetPromptResult>(extra, face.getPrompt(request.params.name, request.params.arguments ?? {})))
    server.setRequestHandler(CompleteRequestSchema, (request, extra) =>
      serve(extra, Effect.map(face.complete(request.params), (completion) => ({ completion }))))
    server.setRequestHandler(ListResourcesRequestSchema, () =>
      handle(Effect.map(face.listResources, (resources): ListResourcesResult => ({ resources: resources as ListResourcesResult["resources"] }))))
    server.setRequestHandler(ListResourceTemplatesRequestSchema, () =>
      handle(Effect.map(face.listResourceTemplates, (templates): ListResourceTemplatesResult =>
        ({ resourceTemplates: templates as ListResourceTemplatesResult["resourceTemplates"] }))))
    server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
      serve(extra, Effect.map(face.readResource(request.params.uri), (contents): ReadResourceResult => ({ contents: [...contents] }))))

    const notifyUpdated = (uri: string) =>
      Effect.tryPromise(() => server.sendResourceUpdated({ uri })).pipe(Effect.ignore)

    // A URI's subscription and the moment it went live. Taken under one lock, so concurrent
    // subscribes to a URI share one subscription instead of restarting each other.
    const lock = yield* Semaphore.make(1)
    const opening = new Map<string, Deferred.Deferred<void>>()
    const follow = (uri: string) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const standing = opening.get(uri)
        if (standing !== undefined && (yield* FiberMap.has(subscriptions, uri))) return standing
        const opened = yield* Deferred.make<void>()
        opening.set(uri, opened)
        const settle = Effect.andThen(Deferred.succeed(opened, undefined), Effect.sync(() => {
          if (opening.get(uri) === opened) opening.delete(uri)
        }))
        // The face follows moves and drops itself, and ends the subscription (with a last
        // "updated") when the URI can no longer be served.
        yield* FiberMap.run(
          subscriptions,
          uri,
          face.watch(uri, notifyUpdated(uri), Deferred.succeed(opened, undefined)).pipe(Effect.ignore, Effect.ensuring(settle)),
          { onlyIfMissing: true }
        )
        return opened
      }))

    server.setRequestHandler(SubscribeRequestSchema, (request) =>
      handle(
        face.checkUri(request.params.uri).pipe(
          Effect.andThen(follow(request.params.uri)),
          // Answered once the subscription is live, so a change the host makes next is announced.
          Effect.flatMap((opened) => Effect.timeoutOption(Deferred.await(opened), openWait)),
          Effect.as({})
        )
      ))
    server.setRequestHandler(UnsubscribeRequestSchema, (request) =>
      handle(Effect.as(FiberMap.remove(subscriptions, request.params.uri), {})))

    const announce = (send: () => Promise<void>) => Effect.tryPromise(send).pipe(Effect.ignore)

    // Each listener compares with the value this session started on, not by dropping the first
    // frame: a move that lands before the listener subscribes is then still announced.
    const initial = yield* face.roster.current
    const previous = yield* Ref.make(initial)
    yield* face.roster.changes.pipe(
      Stream.filter((resolved) => resolved !== initial),
      Stream.runForEach((resolved) =>
        Effect.gen(function*() {
          const before = yield* Ref.getAndSet(previous, resolved)
          yield* announce(() => server.sendToolListChanged())
          // A move of the root tools alone leaves every resource where it was.
          if (before.bundle.surfaces === resolved.bundle.surfaces && before.bundle.core === resolved.bundle.core) return
          yield* announce(() => server.sendResourceListChanged())
        })
      ),
      Effect.forkScoped
    )
    const initialApps = yield* face.appResources.current
    yield* face.appResources.changes.pipe(
      Stream.filter((compiled) => compiled !== initialApps),
      Stream.runForEach(() => announce(() => server.sendResourceListChanged())),
      Effect.forkScoped
    )
    const initialPrompts = yield* face.prompts.current
    yield* face.prompts.changes.pipe(
      Stream.filter((table) => table !== initialPrompts),
      Stream.runForEach(() => announce(() => server.sendPromptListChanged())),
      Effect.forkScoped
    )

    server.onclose = end
    yield* Effect.promise(() => server.connect(transport))
    yield* Effect.addFinalizer(() => Effect.promise(() => server.close()))
    return {
      server,
      subscriptions: Effect.sync(() => Array.from(subscriptions, ([uri]) => uri))
    }
  })
