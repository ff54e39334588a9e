/**
 * One MCP session: the official SDK's low-level `Server` bound to a shared `Face`.
 *
 * The SDK owns the protocol — framing, version negotiation, request ids, cancellation messages — and
 * is used for exactly that. Everything a request does runs as an Effect in a fiber this session's
 * scope owns, so closing the session interrupts its handlers, ends its subscriptions and leaves no
 * fiber behind; a host's `notifications/cancelled` interrupts the one handler it names. Only this
 * module imports the SDK's server, so a new protocol revision is a new session module, not a new face.
 *
 * @since 0.1.0
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  type InitializeRequest,
  InitializeRequestSchema,
  type InitializeResult,
  ListResourcesRequestSchema,
  type ListResourcesResult,
  ListResourceTemplatesRequestSchema,
  type ListResourceTemplatesResult,
  ListToolsRequestSchema,
  type ListToolsResult,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Cause, Deferred, Effect, Exit, FiberMap, FiberSet, Option, Stream } from "effect"
import type { Scope } from "effect"
import type * as Face from "./Face.ts"
import * as Resources from "./Resources.ts"

/**
 * A connected session.
 *
 * @since 0.1.0
 */
export interface Session {
  /** The SDK server, for what the face does not cover (custom notifications, tests). */
  readonly server: Server
  /** Completes when the transport closes, from either side. */
  readonly closed: Effect.Effect<void>
}

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

const toRpcError = (cause: Cause.Cause<Resources.ProtocolError>): Error => {
  const failure = Cause.findErrorOption(cause)
  if (Option.isSome(failure)) return rpcError(failure.value.code, failure.value.message, failure.value.data)
  return Cause.hasInterrupts(cause) ? rpcError(-32800, "request cancelled") : rpcError(Resources.internalError, Cause.pretty(cause))
}

/**
 * Serve a face on one transport until the scope closes or the transport does.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
 * import { McpFace, McpSession } from "effect-surface/mcp"
 *
 * const program = Effect.gen(function*() {
 *   const face = yield* McpFace.make(options)
 *   const session = yield* McpSession.connect(face, new StdioServerTransport())
 *   yield* session.closed
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
export const connect = (face: Face.Face, transport: Transport): Effect.Effect<Session, never, Scope.Scope> =>
  Effect.gen(function*() {
    const instructions = face.instructions
    const server = new Server(face.serverInfo, {
      // Advertised from the first initialize even when nothing is exposed: a host that never heard
      // the lists can change has no reason to re-read them after a roster move.
      capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } },
      ...(instructions._tag === "Static" && instructions.text !== undefined ? { instructions: instructions.text } : {})
    })
    const run = yield* FiberSet.makeRuntimePromise<never>()
    const subscriptions = yield* FiberMap.make<string>()
    const closed = yield* Deferred.make<void>()

    // The one Promise boundary: the SDK calls in, the Effect runs in this session's scope, and a
    // typed refusal leaves as the JSON-RPC error it names.
    const handle = <A>(effect: Effect.Effect<A, Resources.ProtocolError>, signal?: AbortSignal): Promise<A> =>
      run(Effect.exit(effect), signal === undefined ? undefined : { signal }).then((exit) => {
        if (Exit.isSuccess(exit)) return exit.value
        throw toRpcError(exit.cause)
      })

    if (instructions._tag === "Dynamic") {
      server.setRequestHandler(InitializeRequestSchema, async (request) => {
        const result = await (server as unknown as Initializing)._oninitialize(request)
        const text = await run(instructions.read)
        return text === undefined ? result : { ...result, instructions: text }
      })
    }
    server.setRequestHandler(ListToolsRequestSchema, () =>
      handle(Effect.map(face.roster.current, (resolved): ListToolsResult =>
        // Built by the resolver in the tools/list shape; the SDK's type is the same JSON.
        ({ tools: resolved.advertisedTools as ListToolsResult["tools"] }))))
    server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      handle(
        // A ToolResult is a CallToolResult: our own type, kept assignable by a type test.
        Effect.map(face.callTool(request.params.name, request.params.arguments ?? {}), (result): CallToolResult => result),
        extra.signal
      ))
    server.setRequestHandler(ListResourcesRequestSchema, () =>
      handle(Effect.map(face.roster.current, (resolved): ListResourcesResult =>
        ({ resources: resolved.advertisedResources as ListResourcesResult["resources"] }))))
    server.setRequestHandler(ListResourceTemplatesRequestSchema, () =>
      handle(Effect.map(face.roster.current, (resolved): ListResourceTemplatesResult =>
        ({ resourceTemplates: resolved.advertisedResourceTemplates as ListResourceTemplatesResult["resourceTemplates"] }))))
    server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
      handle(Effect.map(face.readResource(request.params.uri), (contents) => ({ contents: [contents] })), extra.signal))

    const notifyUpdated = (uri: string) =>
      Effect.tryPromise(() => server.sendResourceUpdated({ uri })).pipe(Effect.ignore)
    const follow = (uri: string) =>
      FiberMap.run(subscriptions, uri, face.watch(uri, notifyUpdated(uri)).pipe(Effect.ignore))

    server.setRequestHandler(SubscribeRequestSchema, (request) =>
      handle(
        face.resolveUri(request.params.uri).pipe(
          Effect.andThen(FiberMap.has(subscriptions, request.params.uri)),
          // Subscribing twice is one subscription, not a restart of the first.
          Effect.flatMap((already) => already ? Effect.void : follow(request.params.uri)),
          Effect.as({})
        )
      ))
    server.setRequestHandler(UnsubscribeRequestSchema, (request) =>
      handle(Effect.as(FiberMap.remove(subscriptions, request.params.uri), {})))

    // A roster move: both lists changed; subscriptions the new roster cannot serve end (with a last
    // "updated", so the host re-reads and learns why), and survivors re-open on the new connection.
    // Compared by identity with the roster this session started on, not by dropping the first
    // frame: a move that lands before the listener subscribes is then still announced.
    const initial = yield* face.roster.current
    yield* face.roster.changes.pipe(
      Stream.filter((resolved) => resolved !== initial),
      Stream.runForEach(() =>
        Effect.gen(function*() {
          yield* Effect.tryPromise(() => server.sendToolListChanged()).pipe(Effect.ignore)
          yield* Effect.tryPromise(() => server.sendResourceListChanged()).pipe(Effect.ignore)
          for (const uri of Array.from(subscriptions, ([key]) => key)) {
            const served = yield* Effect.result(face.resolveUri(uri))
            if (served._tag === "Success") yield* follow(uri)
            else yield* FiberMap.remove(subscriptions, uri).pipe(Effect.andThen(notifyUpdated(uri)))
          }
        })
      ),
      Effect.forkScoped
    )

    server.onclose = () => Deferred.doneUnsafe(closed, Exit.void)
    yield* Effect.promise(() => server.connect(transport))
    yield* Effect.addFinalizer(() => Effect.promise(() => server.close()))
    return { server, closed: Deferred.await(closed) }
  })
