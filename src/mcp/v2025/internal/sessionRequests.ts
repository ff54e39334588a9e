/**
 * What one 2025 session answers: the requests that are one Effect of the face each (lists, calls,
 * reads, prompts, completion), and the host's subscriptions and log level.
 *
 * The SDK's `Server` wraps every handler it is given in a closure of its own, per session; a
 * session answers a dozen methods and most are asked a few of them (an idle one, none), so none is
 * installed up front. The server's one fallback takes a method's first request, installs that
 * method's handler with the SDK — which checks and parses the request as it always would — and
 * hands the request to it; later requests of the method go straight to it. A method the session
 * does not answer is refused as the SDK refuses one: -32601, "Method not found".
 *
 * @internal
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  type GetPromptResult,
  type InitializeRequest,
  InitializeRequestSchema,
  type InitializeResult,
  type JSONRPCRequest,
  ListPromptsRequestSchema,
  type ListPromptsResult,
  ListResourcesRequestSchema,
  type ListResourcesResult,
  ListResourceTemplatesRequestSchema,
  type ListResourceTemplatesResult,
  ListToolsRequestSchema,
  type ListToolsResult,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  RequestSchema,
  type ServerResult,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Ref from "effect/Ref"
import * as Identity from "../../../core/Identity.ts"
import * as ToolCall from "../../../protocol/ToolCall.ts"
import type * as Face from "../../face/Face.ts"
import { Peer } from "../../face/Peer.ts"
import type * as Logging from "../../face/Logging.ts"
import type * as RpcError from "../../face/RpcError.ts"
import * as Path from "./requestPath.ts"
import * as Follower from "./sessionFollow.ts"
import * as Views from "../../views/Views.ts"

/** A host's subscriptions and log level kept beyond one session (see `Session.Registry`). */
export interface Registry {
  readonly subscribe: (uri: string) => Effect.Effect<void, RpcError.Refusal>
  readonly unsubscribe: (uri: string) => Effect.Effect<void, RpcError.Refusal>
  readonly setLogLevel: (level: Logging.Level) => Effect.Effect<void, RpcError.Refusal>
}

/** What a session's handlers answer from. */
export interface Answering {
  readonly face: Face.Face
  readonly session: Path.Session
  readonly follower: Follower.Follower
  readonly registry: Registry | undefined
}

// tools/call by its method alone; its shape is checked by the SDK's tools/call wrapper.
const LooseCallToolRequestSchema = RequestSchema.extend({ method: CallToolRequestSchema.shape.method })

// What the SDK's `Server` does on `initialize` (version negotiation, recording the client's
// capabilities) is private; the function arm of `instructions` calls through to it and overlays only
// the `instructions` field. Pinned by a test that re-reads instructions per `initialize`.
interface Initializing {
  readonly _oninitialize: (request: InitializeRequest) => Promise<InitializeResult>
}

// The SDK's table of installed handlers is private; the fallback reads the one it just installed
// there, so a first request runs exactly the wrapper every later one does.
interface Installed {
  readonly _requestHandlers: ReadonlyMap<
    string,
    (request: JSONRPCRequest, extra: Path.Extra) => Promise<ServerResult>
  >
}

// What the SDK answers a method with no handler (a plain error: an `McpError` would prefix its message).
const methodNotFound = (): Error => Object.assign(new Error("Method not found"), { code: ErrorCode.MethodNotFound })

/**
 * Answer `answering.face`'s requests on its session's server: `initialize` at once when the face's
 * instructions are read per session, every other method on its first request.
 */
export const answer = (answering: Answering): void => {
  const { server } = answering.session
  const instructions = answering.face.instructions
  if (instructions._tag === "Dynamic") {
    server.setRequestHandler(InitializeRequestSchema, async (request) => {
      const result = await (server as unknown as Initializing)._oninitialize(request)
      const text = await Path.handle(answering.session, instructions.read)
      return text === undefined ? result : { ...result, instructions: text }
    })
  }
  // The SDK's own `logging/setLevel` keys levels by transport session id; this session's is its own.
  server.removeRequestHandler(SetLevelRequestSchema.shape.method.value)
  server.fallbackRequestHandler = (request, extra) => {
    if (!installFace(answering, request.method) && !installHost(answering, request.method)) throw methodNotFound()
    return (server as unknown as Installed)._requestHandlers.get(request.method)!(request, extra)
  }
}

// Each list is what the request's caller may see (everything, for a caller not authenticated), with
// views linked only for a host that declared it renders them.
const view = (face: Face.Face, extra: Path.Extra, server: Server) =>
  Effect.map(
    face.view(Path.callerOf(extra) ?? Identity.local),
    (shown) => Views.present(shown, Views.declares(server.getClientCapabilities()))
  )

// The requests that are one Effect of the face each; false for a method that is none of them.
const installFace = ({ face, session }: Answering, method: string): boolean => {
  const server: Server = session.server
  const handle = <A>(effect: Effect.Effect<A, never>) => Path.handle(session, effect)
  switch (method) {
    case "tools/list":
      server.setRequestHandler(ListToolsRequestSchema, (_, extra) =>
        // Built by the resolver in the tools/list shape; the SDK's type is the same JSON.
        handle(Effect.map(view(face, extra, server), (shown): ListToolsResult => ({
          tools: shown.tools as ListToolsResult["tools"]
        }))))
      return true
    case "tools/call":
      // Registered with the loose request shape on the protocol beneath the SDK's `Server`, whose own
      // tools/call wrapper would answer malformed parameters (a bare value for a `{ value }` input) in
      // its multi-line validation text: they are read as in 2026 (`McpToolCall.read`, one sentence),
      // and the result, built to the schema by the face, is not parsed again on every call.
      Protocol.prototype.setRequestHandler.call(server, LooseCallToolRequestSchema, (request, extra) => {
        const read = ToolCall.read(request.params)
        if (Result.isFailure(read)) throw Path.invalidParams(read.failure)
        const { args, name } = read.success
        const peer = { era: "2025-11-25" as const, session: extra.sessionId, client: server.getClientVersion() }
        const call = Effect.provideService(
          face.callTool(name, args),
          Peer,
          peer
        )
        return Path.serve<CallToolResult>(session, extra, call)
      })
      return true
    case "prompts/list":
      server.setRequestHandler(
        ListPromptsRequestSchema,
        (_, extra) =>
          handle(Effect.map(view(face, extra, server), (shown): ListPromptsResult => ({
            prompts: shown.prompts as ListPromptsResult["prompts"]
          })))
      )
      return true
    case "prompts/get":
      server.setRequestHandler(
        GetPromptRequestSchema,
        (request, extra) =>
          Path.serve<GetPromptResult>(
            session,
            extra,
            face.getPrompt(request.params.name, request.params.arguments ?? {})
          )
      )
      return true
    case "completion/complete":
      server.setRequestHandler(
        CompleteRequestSchema,
        (request, extra) =>
          Path.serve(session, extra, Effect.map(face.complete(request.params), (completion) => ({ completion })))
      )
      return true
    case "resources/list":
      server.setRequestHandler(
        ListResourcesRequestSchema,
        (_, extra) =>
          handle(Effect.map(view(face, extra, server), (shown): ListResourcesResult => ({
            resources: shown.resources as ListResourcesResult["resources"]
          })))
      )
      return true
    case "resources/templates/list":
      server.setRequestHandler(
        ListResourceTemplatesRequestSchema,
        (_, extra) =>
          handle(Effect.map(view(face, extra, server), (shown): ListResourceTemplatesResult => ({
            resourceTemplates: shown.templates as ListResourceTemplatesResult["resourceTemplates"]
          })))
      )
      return true
    case "resources/read":
      server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
        Path.serve(
          session,
          extra,
          Effect.withSpan(
            Effect.map(face.readResource(request.params.uri), (contents): ReadResourceResult => ({
              contents: [...contents]
            })),
            "McpSession2025.resources/read",
            { kind: "server", attributes: { "mcp.uri": request.params.uri }, captureStackTrace: false }
          )
        ))
      return true
    default:
      return false
  }
}

// The host's subscriptions and log level: kept by this session, or by the registry given; false for
// a method that is none of them.
const installHost = ({ face, follower, registry, session }: Answering, method: string): boolean => {
  const { server } = session
  switch (method) {
    case "resources/subscribe":
      server.setRequestHandler(SubscribeRequestSchema, (request) => {
        const { uri } = request.params
        const subscribe = registry === undefined ? Follower.follow(follower, uri) : registry.subscribe(uri)
        return Path.handle(
          session,
          Effect.withSpan(
            // Answered once the subscription is live, so a change the host makes next is announced.
            face.checkUri(uri).pipe(Effect.andThen(subscribe), Effect.as({})),
            "McpSession2025.resources/subscribe",
            { kind: "server", attributes: { "mcp.uri": uri }, captureStackTrace: false }
          ),
          true
        )
      })
      return true
    case "resources/unsubscribe":
      server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
        const { uri } = request.params
        return Path.handle(
          session,
          Effect.as(registry === undefined ? Follower.unfollow(follower, uri) : registry.unsubscribe(uri), {}),
          true
        )
      })
      return true
    case "logging/setLevel":
      // The level is this session's, read by its own request path.
      server.setRequestHandler(SetLevelRequestSchema, (request) => {
        const level = request.params.level
        const set = Ref.set(session.level, level)
        return Path.handle(
          session,
          Effect.as(registry === undefined ? set : Effect.andThen(set, registry.setLogLevel(level)), {}),
          true
        )
      })
      return true
    default:
      return false
  }
}
