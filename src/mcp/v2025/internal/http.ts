/**
 * A Streamable HTTP request of the 2025-11-25 era (and before): one that names a session, or opens
 * one with `initialize`.
 *
 * A POST's session is found (or opened by its `initialize`) while it is counted as admitting, its
 * body read under its bound; the requests it carries are recorded as awaiting answers; then a lone
 * plain call takes the direct road to its JSON answer (at whichever instance it reached, when the
 * session is shared in Redis), and anything else is answered by the SDK's transport, a POST's
 * answer settled as JSON or as its SSE stream. A GET opens the session's stream
 * (from Redis when sessions are shared), a DELETE ends the session. Behind a resource server a
 * session is its opener's: every request naming it is served only for the same holder.
 *
 * @internal
 */
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as HttpEffect from "effect/http/HttpEffect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as HttpChecks from "../../transport/HttpChecks.ts"
import * as HttpDrain from "../../transport/drain.ts"
import type * as Identity from "../../../core/Identity.ts"
import type * as EventStore from "../EventStore.ts"
import * as HttpResponse from "../HttpResponse.ts"
import type * as HttpSessions from "../HttpSessions.ts"
import * as Web from "./web.ts"
import * as Path from "./requestPath.ts"

/** What every 2025 request of one served endpoint reads and counts. */
export interface Server {
  readonly table: HttpSessions.Table
  readonly store: EventStore.EventStore["Service"]
  /** Runs what a web stream's callback starts (outside any fiber) in the server's context. */
  readonly runFork: <A, E>(effect: Effect.Effect<A, E>) => unknown
  readonly drain: HttpDrain.Drain
  readonly maxBodyBytes: number
  /** The most requests served at once (a batch counts each it carries); past it, 503 with `Retry-After`. */
  readonly maxInFlight: number
  /** The bytes a GET stream may hold unread before it is closed; see `Web.toResponse`. */
  readonly maxStreamBuffer: number
  /** The endpoint's URL, told to the transport when a request's own cannot be read. */
  readonly url: string
  /** A memo of the URL each `Host` and path names; see `urlOf`. */
  readonly urls: Map<string, string>
}

const refuse = (status: number, code: number, message: string) =>
  Effect.fail(new HttpChecks.Refusal({ status, code, message }))

const notFound = () => refuse(404, -32001, "Session not found")

// The session ended while this request was on its way through it: its transport, closed under it,
// answered with an error about the stream it lost, or with a stream that ends unanswered.
const endedUnder = (entry: HttpSessions.Entry, web: Response) =>
  Deferred.isDoneUnsafe(entry.ended) &&
  (!web.ok || (web.headers.get("content-type") ?? "").startsWith("text/event-stream"))

// The URL the transport is told a request came to, as `toURL` reads it off the request's `Host`
// and path: the same few on every request, so remembered (bounded, a memo of a pure function).
const urlOf = (server: Server, request: HttpServerRequest.HttpServerRequest): string => {
  const key = `${request.headers.host ?? ""} ${request.url}`
  const known = server.urls.get(key)
  if (known !== undefined) return known
  const href = Option.match(HttpServerRequest.toURL(request), {
    onNone: () => server.url,
    onSome: (parsed) => parsed.href
  })
  if (server.urls.size >= 64) server.urls.clear()
  server.urls.set(key, href)
  return href
}

// The body was read (and bounded) here, so the SDK is handed it parsed.
const forward = (
  server: Server,
  entry: HttpSessions.Entry,
  request: HttpServerRequest.HttpServerRequest,
  body: Option.Option<unknown>,
  authInfo: AuthInfo | undefined
) =>
  Effect.tryPromise({
    try: () =>
      entry.transport.handleRequest(
        Web.toWebRequest(
          request.method,
          urlOf(server, request),
          Web.headersFor(request.headers, Ref.getUnsafe(entry.version))
        ),
        {
          ...(Option.isSome(body) ? { parsedBody: body.value } : {}),
          ...(authInfo === undefined ? {} : { authInfo })
        }
      ),
    catch: (cause) => new HttpChecks.Refusal({ status: 500, code: -32603, message: `Internal error: ${String(cause)}` })
  })

// The session a request names, when it is the caller's (`holder`); counted as in use while the
// request's response is open. Another caller's session is answered 404 "Session not found", as an
// unknown or ended one is, not 403: the spec's mitigation of session hijacking keys a session by
// its user and its id, so under another user's key there is none, and a different answer would
// tell a caller holding a stolen id that the session exists. The SDK's client reads 404 as "this
// session is gone" and starts a new one, its own.
const named = (server: Server, id: string, ledger: HttpDrain.Ledger, holder: string | undefined) =>
  Effect.flatMap(
    server.table.lookup(id, holder),
    Option.match({
      onNone: notFound,
      onSome: (entry) =>
        Effect.as(HttpDrain.useSession(ledger, server.table.touch(entry, 1), server.table.touch(entry, -1)), entry)
    })
  )

// The session a request with no `Mcp-Session-Id` opens, when it is an `initialize`; the ledger
// takes over the open session's count in the same step, so no interruption can leave it counted.
const opened = (server: Server, body: unknown, ledger: HttpDrain.Ledger, holder: string | undefined) =>
  Effect.gen(function*() {
    if (!Web.initializes(body)) return yield* refuse(400, -32000, "Bad Request: Mcp-Session-Id header is required")
    const entry = yield* Effect.uninterruptibleMask((restore) =>
      Effect.tap(
        restore(server.table.open(holder)),
        (entry) => HttpDrain.useSession(ledger, Effect.void, server.table.touch(entry, -1))
      )
    )
    yield* Ref.set(entry.version, Web.initializeVersion(body))
    return entry
  })

// The session of a GET or DELETE: only ever one it names.
const sessionFor = (
  server: Server,
  request: HttpServerRequest.HttpServerRequest,
  ledger: HttpDrain.Ledger,
  holder: string | undefined
) => {
  const id = request.headers["mcp-session-id"]
  return id === undefined ? refuse(400, -32000, "Bad Request: Mcp-Session-Id header is required")
    : named(server, id, ledger, holder)
}

interface Admitted {
  readonly entry: HttpSessions.Entry
  readonly opening: boolean
  /** What the transport is handed: the body, less the requests cancelled before they arrived. */
  readonly body: Option.Option<unknown>
  /** The requests cancelled before they arrived, answered as such. */
  readonly dropped: ReadonlyArray<unknown>
}

// A POST is admitted (its session found before its body is read, the body read under the bound)
// while counted as admitting; the requests it carries then await their answers until the
// response is written, or until the client cancels them — the SDK answers nothing to a cancelled
// request. The in-flight cap is looked at once the body says how many requests the POST carries: a
// batch is admitted as that many, or refused whole.
const admitPost = (
  server: Server,
  request: HttpServerRequest.HttpServerRequest,
  ledger: HttpDrain.Ledger,
  read: Option.Option<unknown>,
  holder: string | undefined
) =>
  HttpDrain.admitting(
    server.drain,
    Effect.gen(function*() {
      if (!HttpChecks.isJson(request.headers["content-type"])) {
        return yield* refuse(415, -32000, "Unsupported Media Type: Content-Type must be application/json")
      }
      const id = request.headers["mcp-session-id"]
      const known = id === undefined ? undefined : yield* named(server, id, ledger, holder)
      const body = Option.isSome(read) ? read.value : yield* HttpChecks.readJson(request, server.maxBodyBytes)
      const entry = known ?? (yield* opened(server, body, ledger, holder))
      const ids = Web.requestIds(body)
      const dropped = yield* HttpDrain.admitIds(
        server.drain,
        ledger,
        entry.id,
        ids,
        Web.cancelledIds(body),
        server.maxInFlight
      )
      if (dropped === undefined) {
        // An `initialize` refused opens no session.
        if (known === undefined) yield* server.table.end(entry.id)
        return yield* HttpDrain.busy(server.maxInFlight, ids.length)
      }
      const sent = dropped.length === 0 ? body : Web.withoutRequests(body, dropped)
      return { entry, opening: known === undefined, body: Option.some(sent), dropped } satisfies Admitted
    })
  )

const admit = (
  server: Server,
  request: HttpServerRequest.HttpServerRequest,
  ledger: HttpDrain.Ledger,
  read: Option.Option<unknown>,
  holder: string | undefined
): Effect.Effect<Admitted, HttpChecks.Refusal | HttpSessions.Unavailable> =>
  request.method === "POST"
    ? admitPost(server, request, ledger, read, holder)
    : Effect.map(
      sessionFor(server, request, ledger, holder),
      (entry) => ({ entry, opening: false, body: Option.none(), dropped: [] })
    ).pipe(
      Effect.tap((admitted) =>
        request.method === "GET" && server.table.shared === undefined
          ? storeReachable(server, admitted.entry, request.headers["last-event-id"]) : Effect.void
      )
    )

// A resume needs the event store: one that fails is answered in a sentence, not with the SDK's
// bare "Error replaying events".
const storeReachable = (server: Server, entry: HttpSessions.Entry, lastEventId: string | undefined) =>
  lastEventId === undefined || lastEventId === "" ? Effect.void : server.store.after(entry.id, lastEventId).pipe(
    Effect.asVoid,
    Effect.catchTag(
      "EventStoreError",
      (error) =>
        Effect.fail(
          new HttpChecks.Refusal({
            status: 503,
            code: -32000,
            message: `Service Unavailable: cannot resume: ${error.message}`,
            retryAfter: 1
          })
        )
    )
  )

// Every request in the POST had been cancelled before it arrived: each is answered as such.
const answerDropped = (entry: HttpSessions.Entry, dropped: ReadonlyArray<unknown>) => {
  const answers = dropped.map((id) => ({
    jsonrpc: "2.0",
    id,
    error: { code: -32800, message: "Request cancelled before it started" }
  }))
  return HttpServerResponse.jsonUnsafe(answers.length === 1 ? answers[0] : answers, {
    headers: { "mcp-session-id": entry.id }
  })
}

// The transport's answer to an admitted request, and what it means for the session table.
const respond = (
  server: Server,
  request: HttpServerRequest.HttpServerRequest,
  admitted: Admitted,
  authInfo: AuthInfo | undefined
) =>
  Effect.gen(function*() {
    const { body, entry, opening } = admitted
    const { method } = request
    const { table } = server
    // A GET of a session shared in Redis is served from there, whoever writes its events.
    const answering = method === "GET" && table.shared !== undefined
      ? table.shared.openTail(entry.id, request.headers, Ref.getUnsafe(entry.version))
      : forward(server, entry, request, body, authInfo)
    // A client gone before its `initialize` was answered never learns the session's id.
    const web = yield* answering.pipe(Effect.onInterrupt(() => opening ? table.end(entry.id) : Effect.void))
    // A DELETE the transport accepted has ended the session everywhere (see `Shared.deleted`)
    // before it is answered.
    if (method === "DELETE" && web.ok && table.shared !== undefined) yield* table.shared.deleted(entry.id)
    // An initialize the transport refused (a batch, a bad message) opened no session; a DELETE
    // the transport accepted has closed it: either way the entry goes now, not when its life ends.
    if ((opening && entry.transport.sessionId === undefined) || (method === "DELETE" && web.ok))
      yield* table.end(entry.id)
    if (opening && web.ok) {
      // Shared before its id is handed out, so the next request finds it at any instance.
      yield* table.share(entry, Option.match(body, { onNone: () => undefined, onSome: Web.initializeParams })).pipe(
        Effect.tapError(() => table.end(entry.id))
      )
      yield* Effect.logInfo("MCP session initialized").pipe(Effect.annotateLogs("session", entry.id))
    }
    return yield* written(server, request, entry, web, body)
  })

// The request scope (and with it what was counted) closes when the body has been written: at once
// for a body written whole, when its stream ends for one streamed. A POST whose requests produced
// nothing but their answers is answered as one JSON body; a POST stream whose answers were all
// handed on will never be resumed, so its stored events go.
const written = (
  server: Server,
  request: HttpServerRequest.HttpServerRequest,
  entry: HttpSessions.Entry,
  web: Response,
  body: Option.Option<unknown>
) =>
  Effect.gen(function*() {
    const { method } = request
    const expected = Option.match(body, { onNone: () => 0, onSome: (sent) => Web.requestIds(sent).length })
    const delivered = (eventId: string) =>
      server.runFork(
        Effect.catchTag(
          server.store.drop(entry.id, eventId),
          "EventStoreError",
          (error) => Effect.logDebug(`MCP answered stream kept: ${error.message}`)
        )
      )
    const answer = method === "POST" ? yield* HttpResponse.settle(web, expected, delivered) : web
    // A request that lost its session on the way is answered as one naming an unknown session.
    if (method === "POST" && endedUnder(entry, answer)) {
      yield* Effect.promise(() => answer.body?.cancel() ?? Promise.resolve())
      return yield* notFound()
    }
    return HttpEffect.scopeTransferToStream(
      yield* Web.toResponse(answer, method === "POST", method === "GET" ? unread(server, request, entry) : undefined)
    )
  })

// A plain call takes the direct road (`httpDirect`) at the instance it reached: its answer is the
// JSON body, with nothing stored (in Redis neither, for a shared session: its replica here serves
// it); one that produced something else first is answered with the SDK's stream, as every other
// POST is. Anything else is not taken (`undefined`).
const direct = (
  server: Server,
  request: HttpServerRequest.HttpServerRequest,
  admitted: Admitted,
  authInfo: AuthInfo | undefined
): Effect.Effect<HttpServerResponse.HttpServerResponse, HttpChecks.Refusal> | undefined => {
  const { body, dropped, entry, opening } = admitted
  if (opening || dropped.length > 0 || Option.isNone(body)) return undefined
  const headers = Web.headersFor(request.headers, Ref.getUnsafe(entry.version))
  const url = urlOf(server, request)
  const taken = entry.direct.post(
    body.value,
    headers,
    url,
    () => Web.toWebRequest(request.method, url, headers),
    authInfo
  )
  if (taken === undefined) return undefined
  return Effect.flatMap(taken, (outcome) =>
    outcome._tag === "Answer"
      ? Effect.succeed(
        HttpServerResponse.text(outcome.json, {
          contentType: "application/json",
          headers: { "mcp-session-id": entry.id }
        })
      )
      : written(server, request, entry, outcome.response, body))
}

// A GET stream past its buffer is closed with its connection (the transport has stored every
// event it held), and the client resumes with `Last-Event-ID`.
const unread = (
  server: Server,
  request: HttpServerRequest.HttpServerRequest,
  entry: HttpSessions.Entry
): Web.Unread => ({
  maxBytes: server.maxStreamBuffer,
  connection: NodeHttpServerRequest.toServerResponse(request),
  overflow: () => {
    NodeHttpServerRequest.toServerResponse(request).destroy()
    server.runFork(
      Effect.logWarning(`MCP GET stream closed: its client left more than ${server.maxStreamBuffer} bytes unread`).pipe(
        Effect.annotateLogs("session", entry.id)
      )
    )
  }
})

/**
 * Answer one request of a session (a POST, a GET or a DELETE), counted on `ledger`; `read` is its
 * body when the endpoint read it to learn its revision; `caller`, who a resource server found sent it.
 */
export const serve = (
  server: Server,
  request: HttpServerRequest.HttpServerRequest,
  ledger: HttpDrain.Ledger,
  read: Option.Option<unknown>,
  caller?: Identity.Principal
): Effect.Effect<HttpServerResponse.HttpServerResponse, HttpChecks.Refusal | HttpSessions.Unavailable, Scope.Scope> =>
  Effect.gen(function*() {
    const holder = caller === undefined ? undefined : Path.holderOf(caller)
    const admitted = yield* admit(server, request, ledger, read, holder)
    if (admitted.dropped.length > 0 && Option.isSome(admitted.body) && Web.isEmpty(admitted.body.value)) {
      return answerDropped(admitted.entry, admitted.dropped)
    }
    const authInfo = caller === undefined ? undefined : Path.authInfoOf(caller)
    return yield* (direct(server, request, admitted, authInfo) ?? respond(server, request, admitted, authInfo))
  })
