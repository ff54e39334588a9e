/**
 * One Streamable HTTP request, from its arrival to the response handed to Effect's server: which
 * revision it speaks, and the path of that revision it takes.
 *
 * The order is the point: refused while shutting down, then by `Host`/`Origin`, then (behind a
 * resource server) by its token, checked once the check is admitted under the in-flight bound, then
 * by method, then by the bounds that need no lookup (a batch's size, a listen's URIs), then by scope;
 * then the revision is told from what the request says before its body (a 2026 version label, a
 * session id), or from its body when neither says; a 2026 request takes the stateless path
 * (`modern/internal/http`), any other the session path (`legacy/internal/http`). Kept apart from
 * `Http` so the path a request takes reads top to bottom over the server's explicit state.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Identity from "../core/Identity.ts"
import type * as Auth from "./auth/Auth.ts"
import * as HttpChecks from "./transport/HttpChecks.ts"
import * as LegacyHttp from "./v2025/internal/http.ts"
import * as ModernHttp from "./v2026/internal/http.ts"
import * as Listen from "./v2026/internal/listen.ts"
import type * as Wire from "../protocol/v2026/Messages.ts"
import * as Eras from "../protocol/Eras.ts"
import * as HttpDrain from "./transport/drain.ts"

/** What every request of one served endpoint reads and counts, and where each revision goes. */
export interface Server {
  readonly drain: HttpDrain.Drain
  readonly allow: HttpChecks.Allow
  readonly maxBodyBytes: number
  /** The most requests served at once, and the most tokens checked at once (see `HttpDrain.checking`). */
  readonly maxInFlight: number
  readonly legacy: LegacyHttp.Server
  readonly modern: ModernHttp.Endpoint
  /** The resource server every request passes, when the endpoint is served behind one. */
  readonly auth?: {
    readonly guard: Auth.Protected
    /**
     * The scope a JSON-RPC request needs, and what it is for; none for one any caller may send. One
     * naming many things (a listen) answers the first `caller` does not meet.
     */
    readonly needs: (
      method: string,
      params: unknown,
      caller: Identity.Principal
    ) => Effect.Effect<{ readonly scope: string; readonly what: string } | undefined>
  }
}

const refuse = (status: number, code: number, message: string) =>
  Effect.fail(new HttpChecks.Refusal({ status, code, message }))

// A body read before its era is known: refused as the endpoint refuses any (415, 413, -32700).
const readBody = (server: Server, request: HttpServerRequest.HttpServerRequest) =>
  HttpDrain.admitting(
    server.drain,
    HttpChecks.isJson(request.headers["content-type"])
      ? HttpChecks.readJson(request, server.maxBodyBytes)
      : refuse(415, -32000, "Unsupported Media Type: Content-Type must be application/json")
  )

const methodNotAllowed = HttpServerResponse.setHeader(
  HttpChecks.respond(new HttpChecks.Refusal({ status: 405, code: -32000, message: "Method not allowed." })),
  "allow",
  "GET, POST, DELETE"
)

// Every request a body carries (one, or a batch) must be within the caller's scopes; the first it
// is not within refuses the whole body.
const checkScopes = (auth: NonNullable<Server["auth"]>, caller: Identity.Principal, body: unknown) =>
  Array.isArray(body)
    ? Effect.forEach(body, (message) => checkScope(auth, caller, message), { discard: true })
    : checkScope(auth, caller, body)

const isRequest = (message: unknown) =>
  typeof message === "object" && message !== null && "method" in message && "id" in message

// What is refused with no lookup comes before any scope is looked up: a batch carrying more
// requests than would be admitted now (503), a 2026 listen naming more URIs than one may (-32602).
const beforeScopes = (
  server: Server,
  body: unknown,
  modern: boolean
): Effect.Effect<HttpServerResponse.HttpServerResponse | undefined, HttpChecks.Refusal> => {
  if (Array.isArray(body)) {
    const carried = body.filter(isRequest).length
    return HttpDrain.fits(server.drain, carried, server.maxInFlight)
      ? Effect.succeed(undefined)
      : Effect.fail(HttpDrain.busy(server.maxInFlight, carried))
  }
  if (!modern || !isRequest(body)) return Effect.succeed(undefined)
  const request = body as { readonly id: Wire.Id; readonly method: unknown; readonly params?: unknown }
  const params = typeof request.params === "object" && request.params !== null ? request.params : {}
  if (request.method !== "subscriptions/listen") return Effect.succeed(undefined)
  const over = Listen.overCap(
    { id: request.id, method: "subscriptions/listen", params: params as { readonly [key: string]: unknown } },
    server.modern.modern.listening.maxUris
  )
  return Effect.succeed(
    over === undefined ? undefined : HttpServerResponse.text(JSON.stringify(over.body), {
      status: over.status,
      contentType: "application/json"
    })
  )
}

const checkScope = (
  auth: NonNullable<Server["auth"]>,
  caller: Identity.Principal,
  message: unknown
): Effect.Effect<void, HttpChecks.Refusal> => {
  // The local caller may use everything: nothing to look up.
  if (caller._tag === "Local" || typeof message !== "object" || message === null) return Effect.void
  const { method, params } = message as { readonly method?: unknown; readonly params?: unknown }
  if (typeof method !== "string") return Effect.void
  return Effect.flatMap(
    auth.needs(method, params, caller),
    (needed) =>
      needed === undefined || Identity.allows(caller, needed.scope)
        ? Effect.void
        : Effect.fail(auth.guard.insufficientScope(needed.scope, needed.what, caller.scopes))
  )
}

const serve = (server: Server) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const ledger = yield* HttpDrain.openLedger(server.drain)
    if (server.drain.closing) return yield* refuse(503, -32000, "Service Unavailable: the server is shutting down")
    const refused = HttpChecks.checkHeaders(server.allow, request.headers)
    if (Option.isSome(refused)) {
      yield* Effect.logDebug(`MCP over HTTP refused: ${refused.value.message}`)
      return yield* refused.value
    }
    const auth = server.auth
    // Before anything else is read or run: a request the resource server refuses reaches nothing.
    // The check is admitted first, so no more tokens are checked at once than requests are served.
    const caller = auth === undefined ? undefined : yield* HttpDrain.checking(
      server.drain,
      server.maxInFlight,
      auth.guard.authenticate(request.headers["authorization"])
    )
    const method = request.method
    if (method !== "GET" && method !== "POST" && method !== "DELETE") return methodNotAllowed
    const era = Eras.ofHttp({
      method: request.method,
      version: request.headers["mcp-protocol-version"],
      session: request.headers["mcp-session-id"]
    })
    if (era === "2026-07-28" && method !== "POST") return ModernHttp.methodNotAllowed()
    // A POST that names no session and no revision says which it is in its body; behind a resource
    // server every POST is read here, so a request its token does not reach is refused 403.
    const read = era === undefined || (auth !== undefined && method === "POST")
      ? Option.some(yield* readBody(server, request))
      : Option.none()
    const modern = era === "2026-07-28" || (Option.isSome(read) && Eras.ofMessage(read.value) === "2026-07-28")
    if (auth !== undefined && caller !== undefined && Option.isSome(read)) {
      const refused = yield* beforeScopes(server, read.value, modern)
      if (refused !== undefined) return refused
      yield* checkScopes(auth, caller, read.value)
    }
    if (modern) {
      const body = Option.isSome(read) ? read.value : yield* readBody(server, request)
      return yield* ModernHttp.post(server.modern, request, ledger, body, caller)
    }
    return yield* LegacyHttp.serve(server.legacy, request, ledger, read, caller)
  })

// A defect while serving is a bug of ours, not the caller's: it is logged with its cause, and the
// caller is still answered with a JSON-RPC error, never an empty 500.
const defect = (cause: unknown) =>
  Effect.as(
    Effect.logError("MCP over HTTP: a request failed on a defect", cause),
    HttpChecks.respond(
      new HttpChecks.Refusal({
        status: 500,
        code: -32603,
        message: "Internal error: the server failed while serving this request (its log says why)"
      })
    )
  )

/**
 * The endpoint's handler: every refusal answered as its JSON-RPC error with its HTTP status, and a
 * defect logged and answered as an internal error.
 */
export const handler = (
  server: Server
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest | Scope.Scope> =>
  serve(server).pipe(
    Effect.catchTags({
      Refusal: (refusal) => Effect.succeed(HttpChecks.respond(refusal)),
      Unavailable: (unavailable) =>
        Effect.succeed(
          HttpChecks.respond(
            new HttpChecks.Refusal({
              status: 503,
              code: -32000,
              message: `Service Unavailable: ${unavailable.reason}`,
              retryAfter: 1
            })
          )
        )
    }),
    Effect.catchDefect(defect)
  )

/**
 * Serve `endpoint` at `path` (its query aside) and hand any other URL to `otherwise` — the router
 * with the one route, which answers the forms it also matches (`/mcp/`, `//mcp`, `/MCP`, …) and 404
 * elsewhere. The usual request is matched here, sparing the router's three copies of its context.
 * The endpoint runs interruptible, so a client that goes away stops its request.
 */
export const onPath = <E, R, E2, R2>(
  path: string,
  endpoint: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  otherwise: Effect.Effect<HttpServerResponse.HttpServerResponse, E2, R2>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E | E2, R | R2 | HttpServerRequest.HttpServerRequest> => {
  const served = Effect.interruptible(endpoint)
  const query = `${path}?`
  return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const { url } = request
    return url === path || url.startsWith(query)
      ? served as Effect.Effect<HttpServerResponse.HttpServerResponse, E | E2, R | R2>
      : otherwise
  })
}
