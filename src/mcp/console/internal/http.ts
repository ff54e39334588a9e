/**
 * The console over HTTP: who is let in, the page, its event stream and its one action.
 *
 * A page that can approve an agent's calls is worth attacking: from another machine, from a site the
 * operator happens to have open (a cross-site POST, a DNS-rebound name), from a frame over it, and
 * from the agent itself, which may run a shell on this very machine, fetch anything the server
 * serves and set any header it likes, and from a server the agent runs on another port of this host,
 * which the operator may open in the same browser. So what lets a browser in is something the server
 * never serves: the key in the link it printed to the operator's terminal when it started. The key
 * rides in the link's `#fragment`, which a browser sends to no server; the page keeps it in its tab's
 * `sessionStorage` and sends it, as a header, with its stream and each decision. Both are bound to
 * the page's scheme, host and port: a cookie is not (a browser sends the cookies of 127.0.0.1 to
 * every port of it, so a server on another port could collect one by sending the browser to its own
 * `/console`). The page itself is an empty shell that anyone on this machine may fetch. Every request
 * passes `admit`, the one place the console decides who may see or act: a loopback peer under a
 * loopback `Host` (unless remote clients are allowed), the key for the stream and the action, and for
 * the action also the token the page's stream issued and the page's own origin. The page forbids
 * framing and loads nothing from elsewhere.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as HttpEffect from "effect/http/HttpEffect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Crypto from "node:crypto"
import * as Identity from "../../../core/Identity.ts"
import type * as Auth from "../../auth/Auth.ts"
import * as Page from "./page.ts"
import type * as State from "./state.ts"

// Compared as digests, so neither the length nor the first differing character shows in the time taken.
const same = (given: string | undefined, expected: string) =>
  given !== undefined &&
  Crypto.timingSafeEqual(
    Crypto.createHash("sha256").update(given).digest(),
    Crypto.createHash("sha256").update(expected).digest()
  )

/** The tokens of the streams opened lately: each stream issues its page one; the oldest are forgotten. */
export interface Tokens {
  readonly issue: Effect.Effect<string>
  readonly valid: (token: string | undefined) => Effect.Effect<boolean>
}

const keptTokens = 64

/** A fresh token table. */
export const tokens: Effect.Effect<Tokens> = Effect.map(Ref.make<ReadonlyArray<string>>([]), (ref) => ({
  issue: Effect.flatMap(
    Effect.sync(() => Crypto.randomBytes(24).toString("base64url")),
    (token) => Effect.as(Ref.update(ref, (all) => [...all, token].slice(-keptTokens)), token)
  ),
  valid: (token) =>
    token === undefined || token === ""
      ? Effect.succeed(false)
      : Effect.map(Ref.get(ref), (all) => all.some((issued) => same(token, issued)))
}))

/** The shortest key a console accepts: 32 characters (a random one is 43). */
export const minimumKeyLength = 32

/** A fresh random key (256 bits). */
export const freshKey: Effect.Effect<string> = Effect.sync(() => Crypto.randomBytes(32).toString("base64url"))

/** What the console's handler is given. */
export interface Config {
  readonly path: string
  readonly allowRemote: boolean
  /** The endpoint's resource server, when authorization is on: every request then needs `scope`. */
  readonly auth: Auth.Protected | undefined
  readonly scope: string
  readonly tokens: Tokens
  /** The console's key: the stream and every decision carry it in `x-console-key`. */
  readonly key: string
  readonly title: Effect.Effect<string>
  readonly state: State.State
  readonly decide: (id: string, decision: "allow" | "deny", by: string) => Effect.Effect<boolean>
}

/** What a request asks of the console: its page (a shell holding nothing), its stream, or a decision. */
export type Ask = "page" | "events" | "decide"

/** Who was admitted, as the decisions they make are recorded. */
export interface Admitted {
  readonly who: string
}

/** A refusal: the status, the sentence the requester reads, and the resource server's challenge. */
export interface Refused {
  readonly status: number
  readonly message: string
  readonly challenge?: string | undefined
}

const loopbackAddresses = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"])
const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]"])

const hostName = (host: string) =>
  host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0] ?? ""

// With authorization on, the request's bearer token must reach the console's own scope.
const authorized = (request: HttpServerRequest.HttpServerRequest, config: Config) =>
  Effect.gen(function*() {
    if (config.auth === undefined) return undefined
    const auth = config.auth
    const principal = yield* auth.authenticate(request.headers["authorization"]).pipe(
      Effect.mapError((refused): Refused => ({
        status: refused.status,
        message: refused.message,
        challenge: refused.challenge
      }))
    )
    if (!Identity.allows(principal, config.scope)) {
      const refused = auth.insufficientScope(config.scope, "the console", principal.scopes)
      return yield* Effect.fail<Refused>({
        status: refused.status,
        message: refused.message,
        challenge: refused.challenge
      })
    }
    return `${principal.subject} via ${principal.clientId}`
  })

/** What a page without the console's key is told, in place of the console. */
export const withoutKey =
  "this console opens from the link the server printed when it started (the address with #key=): open that link in this tab"

const fromPage = "the console's stream and decisions answer its own page only"

/**
 * The one place a console request is admitted, or refused with the reason. Loopback only unless
 * `allowRemote`; with authorization on, a bearer token reaching the console's scope; the stream and
 * the action need the console's key, sent by its page from its own origin; the action also needs a
 * token this console's stream issued and the page's `Origin`.
 */
export const admit = (
  request: HttpServerRequest.HttpServerRequest,
  config: Config,
  ask: Ask
): Effect.Effect<Admitted, Refused> =>
  Effect.gen(function*() {
    const address = Option.getOrElse(request.remoteAddress, () => "")
    const host = request.headers["host"] ?? ""
    if (!config.allowRemote) {
      if (!loopbackAddresses.has(address)) {
        return yield* Effect.fail({ status: 403, message: "the console answers this machine only" })
      }
      if (!loopbackHosts.has(hostName(host).toLowerCase())) {
        return yield* Effect.fail({ status: 403, message: `the console is not served under the name ${host}` })
      }
    }
    const who = (yield* authorized(request, config)) ?? `operator at ${address}`
    if (ask === "page") return { who }
    if (!same(request.headers["x-console-key"], config.key)) {
      return yield* Effect.fail({ status: 403, message: withoutKey })
    }
    const site = request.headers["sec-fetch-site"]
    if (site !== undefined && site !== "same-origin") return yield* Effect.fail({ status: 403, message: fromPage })
    if (ask === "events") return { who }
    if (!(yield* config.tokens.valid(request.headers["x-console-token"]))) {
      return yield* Effect.fail({ status: 403, message: "this request does not carry the token of a console page" })
    }
    const origin = request.headers["origin"]
    if (origin === undefined || (origin !== `http://${host}` && origin !== `https://${host}`)) {
      return yield* Effect.fail({ status: 403, message: fromPage })
    }
    return { who }
  })

const pageHeaders = {
  "cache-control": "no-store",
  "content-security-policy":
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff"
}

const refusal = (refused: Refused) =>
  HttpServerResponse.text(refused.message, {
    status: refused.status,
    headers: {
      "cache-control": "no-store",
      ...(refused.challenge === undefined ? {} : { "www-authenticate": refused.challenge })
    }
  })

const encoder = new TextEncoder()
const sse = (event: string, data: unknown) => encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
const keepAlive = encoder.encode(": keep-alive\n\n")

const Decision = Schema.Struct({ id: Schema.String, decision: Schema.Literals(["allow", "deny"]) })
const decodeDecision = Schema.decodeUnknownEffect(Decision)

// The stream opens with the page's token and the console's title, then the state whole, then each move.
const events = (config: Config) =>
  Effect.map(
    Effect.all({ follow: config.state.follow, token: config.tokens.issue, title: config.title }),
    ({ follow: { moves, snapshot }, title, token }) =>
      HttpEffect.scopeTransferToStream(
        HttpServerResponse.stream(
          Stream.concat(
            Stream.make(sse("page", { token, title }), sse("snapshot", snapshot)),
            Stream.merge(
              Stream.map(Stream.fromSubscription(moves), (move) => sse("move", move)),
              Stream.map(Stream.fromSchedule(Schedule.spaced("15 seconds")), () => keepAlive)
            )
          ),
          { contentType: "text/event-stream", headers: { "cache-control": "no-store", "x-accel-buffering": "no" } }
        )
      )
  )

const decision = (request: HttpServerRequest.HttpServerRequest, config: Config, who: string) =>
  Effect.gen(function*() {
    const body = yield* request.json
    const { decision, id } = yield* decodeDecision(body)
    const found = yield* config.decide(id, decision, who)
    return found
      ? HttpServerResponse.text("decided", { headers: { "cache-control": "no-store" } })
      : refusal({
        status: 404,
        message: `no call waits under ${JSON.stringify(id)}: it was decided, timed out or cancelled`
      })
  }).pipe(
    Effect.catch(() =>
      Effect.succeed(
        refusal({ status: 400, message: `a decision is a JSON object {"id": string, "decision": "allow" | "deny"}` })
      )
    )
  )

/** The console's routes: the page, `events` and `decide` under its path. */
export const handler = (config: Config) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const url = new URL(request.url, "http://console.invalid")
    const route = url.pathname === config.path || url.pathname === `${config.path}/`
      ? "page" as const
      : url.pathname === `${config.path}/events`
      ? "events" as const
      : url.pathname === `${config.path}/decide`
      ? "decide" as const
      : undefined
    if (route === undefined) return refusal({ status: 404, message: "the console has no such page" })
    const method = route === "decide" ? "POST" : "GET"
    if (request.method !== method) {
      return HttpServerResponse.setHeader(refusal({ status: 405, message: `use ${method} here` }), "allow", method)
    }
    const admitted = yield* Effect.result(admit(request, config, route))
    if (admitted._tag === "Failure") return refusal(admitted.failure)
    switch (route) {
      case "page":
        return HttpServerResponse.text(Page.render({ base: config.path, withoutKey }), {
          contentType: "text/html; charset=utf-8",
          headers: pageHeaders
        })
      case "events":
        return yield* events(config)
      case "decide":
        return yield* decision(request, config, admitted.success.who)
    }
  })
