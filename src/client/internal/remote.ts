/**
 * One live session with a remote MCP server, as Effects: list its tools, call one, hear it close.
 *
 * The second module that imports the SDK's client side (with `Transports.ts`). It owns the SDK
 * `Client` for one connection and turns everything the SDK can throw into one of three answers the
 * rest of the toolset understands: a `LinkError` (the connection failed; its phase says whether the
 * request could have reached the server, so the pool never replays an ambiguous one), a `Rejected`
 * (the server refused at the protocol level) or a `Refused` hop (the SSRF guard stopped it). It
 * advertises no client capability unless asked (roots), and never reads the server's instructions.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { SseError } from "@modelcontextprotocol/sdk/client/sse.js"
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
  ResultSchema,
  ToolListChangedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { messageOf } from "../../core/ToolFailure.ts"
import { LinkError } from "../../surface/LinkError.ts"
import type * as Owned from "../../surface/Owned.ts"
import * as Catalog from "../Catalog.ts"
import type * as Hosts from "../Hosts.ts"
import * as Transports from "../Transports.ts"
import type * as Questions from "../Questions.ts"
import * as Callers from "./callers.ts"
import * as Deadlines from "./deadlines.ts"
import * as Progressing from "./progress.ts"
import * as Asked from "./questions.ts"
import * as Redact from "./redact.ts"
import * as Resend from "./resend.ts"

/**
 * The server refused a request at the protocol level (a JSON-RPC error, or an HTTP status that is
 * not a lost session).
 */
export class Rejected extends Data.TaggedError("McpRejected")<{ readonly code: number; readonly reason: string }> {
  override get message(): string {
    return `the server refused the request (${this.code}): ${this.reason}`
  }
}

/**
 * A call's deadline passed before its answer came; the server was told to cancel it.
 */
export class TimedOut extends Data.TaggedError("McpTimedOut")<{ readonly timeoutMs: number }> {}

/**
 * Every way a request on a live session can fail.
 */
export type Failure = LinkError | Rejected | Hosts.Refused

/**
 * A live session. `call` answers the raw result, for `McpCallResult.adapt`; `list` answers the raw
 * tool entries of every page.
 */
export interface Remote {
  readonly list: Effect.Effect<ReadonlyArray<unknown>, Failure | ListingTooLarge>
  /**
   * A `tools/call` bounded by `timeoutMs`, from when it is sent; asking for progress when the
   * caller's context holds a `Progress` with a token, and reporting it there (`progress.ts`).
   */
  readonly call: (tool: string, args: unknown, timeoutMs: number) => Effect.Effect<unknown, Failure | TimedOut>
  /** Any other request (a read, a prompt, a listing), bounded by `timeoutMs`; its raw result. */
  readonly request: (
    method: string,
    params: { readonly [key: string]: unknown },
    timeoutMs: number
  ) => Effect.Effect<unknown, Failure | TimedOut>
  /** Which revision this session speaks. */
  readonly protocol: "2025-11-25" | "2026-07-28"
}

/**
 * What a session is opened with: how the client introduces itself, what it advertises, and where
 * a changed tool list is announced.
 */
export interface Options {
  readonly server: string
  readonly clientInfo: { readonly name: string; readonly version: string }
  /** What the server may ask, and who answers (`Questions.ts`). */
  readonly handlers: Questions.Handlers
  /** Called from the SDK's notification handler; must only enqueue. */
  readonly onToolsChanged: () => void
}

// The deadline is the toolset's (Effect's clock, so tests drive it: see `deadlines.ts`); the SDK's
// own timer is set past any deadline a caller can give, so it never decides first.
const NO_SDK_TIMEOUT = 2_147_483_647
const MAX_PAGES = 100
const NOT_REACHED = new Set(["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"])

// Whether a failed fetch never reached the server: the socket could not even be opened.
const neverConnected = (error: unknown): boolean => {
  const code = Resend.codeOf(error)
  return typeof code === "string" && NOT_REACHED.has(code)
}

// A failed fetch says only "fetch failed"; what failed (a reset, a refusal, a closed socket) is its
// cause, and is what a person reading the diagnostic needs.
const linkReason = (error: unknown): string => {
  const cause: unknown = Predicate.hasProperty(error, "cause") ? error.cause : undefined
  const code = Resend.codeOf(error)
  const own = messageOf(error)
  if (!(cause instanceof Error) || cause.message === "" || own.includes(cause.message)) return Redact.text(own)
  return Redact.text(`${own} (${typeof code === "string" ? `${code}: ` : ""}${cause.message})`)
}

const stripPrefix = (error: McpError): string => error.message.replace(/^MCP error -?\d+: /, "")

// The SDK's codes for a request its connection did not answer.
const linkClosed: ReadonlySet<number> = new Set([ErrorCode.ConnectionClosed, ErrorCode.RequestTimeout])

/**
 * What a rejected SDK promise means. Classified by type and code, never by message: the SDK's own
 * error classes are from this package's one copy of the SDK. Every reason is cleared of URL
 * credentials (`redact.ts`): the errors quote the URL they were given.
 */
export const classify = (error: unknown): Failure => {
  // The fetch guard's own refusal, come back through the SDK's promise as the value it raised.
  // oxlint-disable-next-line typescript/no-unsafe-class-instance-assignment
  if (Predicate.isTagged(error, "McpHostRefused")) return error as Hosts.Refused
  // An OAuth sign-in that failed at the transport's fetch: the server refused the request unsigned.
  if (Predicate.isTagged(error, "McpSignInFailed"))
    return new Rejected({ code: 401, reason: Redact.text(messageOf(error)) })
  if (error instanceof McpError) {
    return linkClosed.has(error.code)
      ? new LinkError({ phase: "call", reason: "the connection closed before the answer came" })
      : new Rejected({ code: error.code, reason: Redact.text(stripPrefix(error)) })
  }
  // The server no longer knows the session (it restarted): the request was not taken in.
  if (error instanceof StreamableHTTPError && error.code === 404) {
    return new LinkError({ phase: "closed", reason: "the server no longer knows this session" })
  }
  if ((error instanceof StreamableHTTPError || error instanceof SseError) && typeof error.code === "number") {
    return new Rejected({ code: error.code, reason: Redact.text(error.message) })
  }
  if (neverConnected(error))
    return new LinkError({
      phase: "dial",
      reason: `the server could not be reached (${linkReason(error)})`
    })
  return new LinkError({ phase: "call", reason: linkReason(error) })
}

const request = (client: Client, method: string, params: Record<string, unknown>) =>
  Effect.tryPromise({
    try: (signal) => client.request({ method, params }, ResultSchema, { signal, timeout: NO_SDK_TIMEOUT }),
    catch: classify
  })

const DEADLINE_PASSED = "the request's deadline passed"

// A request with its deadline armed on the connection's deadlines: when it passes, the request's
// signal is aborted, so the SDK sends `notifications/cancelled` and rejects; an interruption does the
// same. One callback, no fiber of its own; a session already closed fails at once, unsent. Sent
// through `callers` (where the toolset answers questions) as the call made in `context`; with
// `onProgress`, it carries a progress token (the SDK's, its message id) and each notice goes there.
const call = (
  session: Session,
  method: string,
  params: Record<string, unknown>,
  timeoutMs: number,
  context?: Context.Context<never>,
  onProgress?: Progressing.OnProgress
) =>
  Effect.callback<unknown, Failure | TimedOut>((resume) => {
    if (session.closed) return resume(Effect.fail(gone))
    const { callers, client } = session
    const controller = new AbortController()
    let expired = false
    const disarm = session.deadlines.arm(timeoutMs, () => {
      expired = true
      controller.abort(DEADLINE_PASSED)
    })
    const options = { signal: controller.signal, timeout: NO_SDK_TIMEOUT }
    const token = onProgress === undefined ? undefined : `progress-${++session.progressTokens}`
    if (token !== undefined && onProgress !== undefined) session.progress.set(token, onProgress)
    const given = params["_meta"]
    const sent = token === undefined
      ? params
      : { ...params, _meta: { ...(typeof given === "object" && given !== null ? given : {}), progressToken: token } }
    const sending = callers === undefined || context === undefined
      ? client.request({ method, params: sent }, ResultSchema, options)
      : callers.run(context, () => client.request({ method, params: sent }, ResultSchema, options))
    const settle = () => {
      disarm()
      if (token !== undefined) session.progress.delete(token)
    }
    sending.then(
      (answer) => {
        settle()
        resume(Effect.succeed(answer))
      },
      (error: unknown) => {
        settle()
        resume(Effect.fail(expired ? new TimedOut({ timeoutMs }) : classify(error)))
      }
    )
    return Effect.sync(() => {
      settle()
      controller.abort()
    })
  })

// What a request needs of its session, read when it is sent: with `progress`, where each progress
// token's notices go (`followProgress`).
interface Session {
  readonly client: Client
  readonly deadlines: Deadlines.Deadlines
  readonly callers: Callers.Callers | undefined
  readonly progress: Map<string, Progressing.OnProgress>
  progressTokens: number
  closed: boolean
}

const isRecord = (u: unknown): u is { readonly [key: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

// A progress notice is taken off the transport as it arrives, before the SDK sees it: the SDK hands
// notices to their handlers a microtask later than it settles a response, so the last reports
// before an answer would come after the request had stopped listening, and be lost.
const followProgress = (transport: Transport, session: Session) => {
  const inner = transport.onmessage
  transport.onmessage = (message, extra) => {
    const raw: unknown = message
    if (isRecord(raw) && raw["method"] === "notifications/progress" && !("id" in raw)) {
      const params = isRecord(raw["params"]) ? raw["params"] : {}
      const token = params["progressToken"]
      const route = typeof token === "string" ? session.progress.get(token) : undefined
      if (route !== undefined) return route(params)
    }
    inner?.(message, extra)
  }
}

const Page = Schema.Struct({ tools: Schema.Array(Schema.Unknown), nextCursor: Schema.optionalKey(Schema.String) })
const decodePage = Schema.decodeUnknownResult(Page)

/**
 * A listing past the bounds one server's listing may reach (`McpCatalog.MAX_LISTED_TOOLS`,
 * `McpCatalog.MAX_LISTING_BYTES`): none of it is taken.
 */
export class ListingTooLarge extends Data.TaggedError("McpListingTooLarge")<{ readonly reason: string }> {
  override get message(): string {
    return `its tool listing ${this.reason}, past what one server may list; none of it was taken`
  }
}

// The size of a page's tools as JSON, in bytes; a page too deep to serialise is refused with them.
const bytesOf = (tools: ReadonlyArray<unknown>): Result.Result<number, ListingTooLarge> =>
  Result.try({
    try: () => Buffer.byteLength(JSON.stringify(tools), "utf8"),
    catch: () => new ListingTooLarge({ reason: "nests too deeply to be measured" })
  })

// Every page, bounded in tools and bytes before a page is taken in: a server cannot grow this
// process without limit, and no page is spread onto the stack.
export const listAll = (
  list: (params: { readonly cursor?: string }) => Effect.Effect<unknown, Failure>
): Effect.Effect<ReadonlyArray<unknown>, Failure | ListingTooLarge> =>
  Effect.gen(function*() {
    const tools: Array<unknown> = []
    let bytes = 0
    let cursor: string | undefined
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = decodePage(yield* list(cursor === undefined ? {} : { cursor }))
      if (Result.isFailure(answer))
        return yield* new Rejected({ code: -32603, reason: "tools/list answered something that is not a tool list" })
      const listed = answer.success.tools
      if (tools.length + listed.length > Catalog.MAX_LISTED_TOOLS)
        return yield* new ListingTooLarge({ reason: `holds more than ${Catalog.MAX_LISTED_TOOLS} tools` })
      const size = bytesOf(listed)
      if (Result.isFailure(size)) return yield* size.failure
      bytes += size.success
      if (bytes > Catalog.MAX_LISTING_BYTES)
        return yield* new ListingTooLarge({ reason: `comes to more than ${Catalog.MAX_LISTING_BYTES} bytes` })
      for (const tool of listed) tools.push(tool)
      cursor = answer.success.nextCursor
      if (cursor === undefined)
        return tools
    }
    return tools // a server paging for ever: what the first pages held
  })

// The server's questions reach the toolset's handlers; only those given were advertised, and the
// SDK answers the others "method not found". Each is answered in the context of the call it
// belongs to (`callers.ts`).
const answerQuestions = (client: Client, server: string, handlers: Questions.Handlers, callers: Callers.Callers) => {
  const answer = Asked.answerer(handlers)
  const ask = (method: string, params: unknown) =>
    Effect.runPromiseWith(callers.current())(
      answer(server, { method, params: params as { readonly [key: string]: unknown } }).pipe(
        Effect.catch((unanswered) => Effect.fail(new McpError(unanswered.code, unanswered.reason)))
      )
    ) as Promise<never>
  if (handlers.elicit !== undefined)
    client.setRequestHandler(ElicitRequestSchema, (request) => ask(request.method, request.params))
  if (handlers.sample !== undefined)
    client.setRequestHandler(CreateMessageRequestSchema, (request) => ask(request.method, request.params))
  if (handlers.roots !== undefined)
    client.setRequestHandler(ListRootsRequestSchema, (request) => ask(request.method, request.params))
}

const close = (client: Client, transport: Transport): Effect.Effect<void> =>
  Effect.andThen(
    Transports.endSession(transport, "2 seconds"),
    Effect.promise(() => client.close().catch(() => undefined))
  )

/**
 * Open a session over `transport` in the current scope: the scope's end closes it (deleting an HTTP
 * session first), on every way out, a failed or interrupted handshake included.
 */
export const connect = (
  transport: Transport,
  options: Options
): Effect.Effect<Owned.Owned<Remote>, Failure, Scope.Scope> =>
  Effect.gen(function*() {
    const { handlers } = options
    const client = new Client(
      { name: options.clientInfo.name, version: options.clientInfo.version },
      { capabilities: Asked.capabilities(handlers) }
    )
    // Followed only where a question can come: a toolset with no handlers is asked nothing.
    const asks = handlers.elicit !== undefined || handlers.sample !== undefined || handlers.roots !== undefined
    const callers = asks ? Callers.make() : undefined
    if (callers !== undefined) answerQuestions(client, options.server, handlers, callers)
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => options.onToolsChanged())
    const listeners = new Set<() => void>()
    // Registered before the handshake, so a handshake that fails or is interrupted still closes it.
    yield* Effect.addFinalizer(() => close(client, transport))
    const session: Session = {
      client,
      deadlines: yield* Deadlines.make,
      callers,
      progress: new Map(),
      progressTokens: 0,
      closed: false
    }
    client.onclose = () => {
      session.closed = true
      for (const listener of listeners)
        listener()
    }
    yield* Effect.tryPromise({
      try: (signal) => client.connect(transport, { signal, timeout: NO_SDK_TIMEOUT }),
      catch: classify
    })
    followProgress(transport, session)
    // With questions to answer, a request carries its caller's context to them.
    const sent = (
      session: Session,
      method: string,
      params: Record<string, unknown>,
      timeoutMs: number,
      onProgress?: Progressing.OnProgress
    ) =>
      callers === undefined
        ? call(session, method, params, timeoutMs, undefined, onProgress)
        : Effect.contextWith((context: Context.Context<never>) =>
          call(session, method, params, timeoutMs, context, onProgress)
        )
    const remote: Remote = {
      protocol: "2025-11-25",
      list: Effect.suspend(() =>
        session.closed ? Effect.fail(gone) : listAll((params) => request(client, "tools/list", params))
      ),
      call: (tool, args, timeoutMs) =>
        Progressing.follow((onProgress) =>
          sent(session, "tools/call", { name: tool, arguments: args }, timeoutMs, onProgress)
        ),
      request: (method, params, timeoutMs) => sent(session, method, { ...params }, timeoutMs)
    }
    return {
      client: remote,
      dispose: Effect.void, // the scope closes it
      // The SDK rejects every pending request when the transport closes (ConnectionClosed, a
      // LinkError once classified), so the pool need not race each call against the close.
      settlesPending: true,
      onClose: (listener) => {
        if (session.closed) listener()
        else listeners.add(listener)
      }
    }
  })

const gone = new LinkError({ phase: "closed", reason: "the connection had closed" })
