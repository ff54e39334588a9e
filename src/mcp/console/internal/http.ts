/**
 * The console over HTTP: who is let in, the page, its event stream and its one action.
 *
 * A page that can approve an agent's calls is worth attacking: from another machine, from a site the
 * operator happens to have open (a cross-site POST, a DNS-rebound name), from a frame over it, and
 * from the agent itself, which may run a shell on this very machine, fetch anything the server
 * serves and set any header it likes. So what lets a browser in is something the server never
 * serves: the key in the link it printed to the operator's terminal when it started. Opening that
 * link trades the key for an HttpOnly, SameSite=Strict cookie and lands on the plain page. Every
 * request passes `admit`, the one place the console decides who may see or act: a loopback peer under
 * a loopback `Host` (unless remote clients are allowed), that cookie, and for the stream and the
 * action the token written into the page when it was served; an action must also come from the
 * page's own origin. The page forbids framing and loads nothing from elsewhere.
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

/** The tokens of the pages served lately: each page load gets its own; the oldest are forgotten. */
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
    token === undefined || token === "" ? Effect.succeed(false) : Effect.map(Ref.get(ref), (all) => all.includes(token))
}))

/**
 * The console's key and what a browser holds once it opened the link: a cookie derived from the key
 * (so instances sharing a key accept one another's), named after it (so two consoles on one host,
 * whose cookies a browser keeps together whatever their ports, do not overwrite each other's).
 */
export interface Key {
  readonly secret: string
  readonly cookie: string
  readonly pass: string
}

/** The shortest key a console accepts: 32 characters (a random one is 43). */
export const minimumKeyLength = 32

const derive = (secret: string, label: string) => Crypto.createHmac("sha256", secret).update(label).digest("base64url")

/** The key `secret` and the cookie it is traded for. */
export const keyOf = (secret: string): Key => ({
  secret,
  cookie: `console_${derive(secret, "cookie name").slice(0, 12)}`,
  pass: derive(secret, "pass")
})

/** A fresh random key (256 bits). */
export const freshKey: Effect.Effect<Key> = Effect.sync(() => keyOf(Crypto.randomBytes(32).toString("base64url")))

// Compared as digests, so neither the length nor the first differing character shows in the time taken.
const same = (given: string | undefined, expected: string) =>
  given !== undefined &&
  Crypto.timingSafeEqual(
    Crypto.createHash("sha256").update(given).digest(),
    Crypto.createHash("sha256").update(expected).digest()
  )

/** What the console's handler is given. */
export interface Config {
  readonly path: string
  readonly allowRemote: boolean
  /** The endpoint's resource server, when authorization is on: every request then needs `scope`. */
  readonly auth: Auth.Guard | undefined
  readonly scope: string
  readonly tokens: Tokens
  readonly key: Key
  readonly title: Effect.Effect<string>
  readonly state: State.State
  readonly decide: (id: string, decision: "allow" | "deny", by: string) => Effect.Effect<boolean>
}

/** What a request asks of the console: `enter` is the page's address with the key. */
export type Ask = "enter" | "page" | "events" | "decide"

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

/** What a browser without the console's cookie is told, in place of the page. */
export const withoutKey =
  "this console opens from the link the server printed when it started (the address with ?key=): open that link in this browser"

/**
 * The one place a console request is admitted, or refused with the reason. Loopback only unless
 * `allowRemote`; with authorization on, a bearer token reaching the console's scope; entering needs
 * the console's key, and everything else the cookie entering gave; the stream and the action need
 * a token this console issued; the action needs the page's own origin.
 */
export const admit = (
  request: HttpServerRequest.HttpServerRequest,
  config: Config,
  ask: Ask,
  presented: string | undefined
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
    if (ask === "enter") {
      if (!same(presented, config.key.secret)) {
        return yield* Effect.fail({ status: 403, message: `this is not the console's key: ${withoutKey}` })
      }
      return { who }
    }
    if (!same(request.cookies[config.key.cookie], config.key.pass)) {
      return yield* Effect.fail({ status: 403, message: withoutKey })
    }
    if (ask === "page") return { who }
    if (!(yield* config.tokens.valid(presented))) {
      return yield* Effect.fail({ status: 403, message: "this request does not carry the token of a console page" })
    }
    if (ask === "decide") {
      const origin = request.headers["origin"]
      const site = request.headers["sec-fetch-site"]
      if (origin === undefined || (origin !== `http://${host}` && origin !== `https://${host}`)) {
        return yield* Effect.fail({ status: 403, message: "a decision must come from the console's own page" })
      }
      if (site !== undefined && site !== "same-origin") {
        return yield* Effect.fail({ status: 403, message: "a decision must come from the console's own page" })
      }
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

const events = (config: Config) =>
  Effect.map(config.state.follow, ({ moves, snapshot }) =>
    HttpEffect.scopeTransferToStream(
      HttpServerResponse.stream(
        Stream.concat(
          Stream.succeed(sse("snapshot", snapshot)),
          Stream.merge(
            Stream.map(Stream.fromSubscription(moves), (move) => sse("move", move)),
            Stream.map(Stream.fromSchedule(Schedule.spaced("15 seconds")), () => keepAlive)
          )
        ),
        { contentType: "text/event-stream", headers: { "cache-control": "no-store", "x-accel-buffering": "no" } }
      )
    ))

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

// The key traded for the cookie, and the browser sent on to the plain page, so the key leaves its
// address bar. The cookie lasts while the browser runs; reopening the link lets it in again.
const entered = (config: Config) =>
  HttpServerResponse.setCookieUnsafe(
    HttpServerResponse.redirect(config.path, {
      status: 303,
      headers: { "cache-control": "no-store", "referrer-policy": "no-referrer" }
    }),
    config.key.cookie,
    config.key.pass,
    { path: config.path, httpOnly: true, sameSite: "strict" }
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
    const key = route === "page" ? url.searchParams.get("key") ?? undefined : undefined
    const ask = key === undefined ? route : "enter"
    const presented = route === "events"
      ? url.searchParams.get("token") ?? undefined
      : route === "decide"
      ? request.headers["x-console-token"]
      : key
    const admitted = yield* Effect.result(admit(request, config, ask, presented))
    if (admitted._tag === "Failure") return refusal(admitted.failure)
    if (ask === "enter") return entered(config)
    switch (route) {
      case "page": {
        const token = yield* config.tokens.issue
        const title = yield* config.title
        return HttpServerResponse.text(Page.render({ token, base: config.path, title }), {
          contentType: "text/html; charset=utf-8",
          headers: pageHeaders
        })
      }
      case "events":
        return yield* events(config)
      case "decide":
        return yield* decision(request, config, admitted.success.who)
    }
  })
