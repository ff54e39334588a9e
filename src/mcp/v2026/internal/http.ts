/**
 * A 2026-07-28 request over Streamable HTTP: one POST, one answer, no session.
 *
 * What HTTP adds to the request path is its own: the headers checked against the body, a POST per
 * message (a notification is accepted with 202, GET and DELETE are 405), and the answer's form —
 * one JSON body when the request produced nothing but its answer, an SSE stream when it sent a
 * notice first (progress, a log line), and always for `subscriptions/listen`. A stream the client
 * drops cancels its request. The endpoint's shutdown ends listen streams with their response and
 * lets calls in flight answer.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import type * as Scope from "effect/Scope"
import * as HttpEffect from "effect/http/HttpEffect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Redis from "effect/persistence/Redis"
import type * as Json from "../../../core/Json.ts"
import type * as Face from "../../face/Face.ts"
import type * as Identity from "../../../core/Identity.ts"
import * as HttpChecks from "../../transport/HttpChecks.ts"
import * as HttpDrain from "../../transport/drain.ts"
import * as RequestState from "../RequestState.ts"
import * as Instances from "./cluster.ts"
import * as Headers from "../../../protocol/v2026/Headers.ts"
import * as Listen from "./listen.ts"
import type * as Stateless from "../Stateless.ts"
import * as Requests from "./requests.ts"
import * as TaskStore from "./taskStore.ts"
import * as Wire from "../../../protocol/v2026/Messages.ts"

/** What every 2026 request of one endpoint shares. */
export interface Endpoint {
  readonly modern: Requests.Modern
  readonly drain: HttpDrain.Drain
  /** Completes when the endpoint begins to shut down: listen streams end then. */
  readonly closing: Deferred.Deferred<void>
  readonly maxBodyBytes: number
  readonly maxInFlight: number
  /** How long a quiet listen stream waits before a keep-alive comment. */
  readonly keepAlive: number
  /** Names each request's place among those awaited by a shutdown. */
  sequence: number
}

/** The Redis the instances share, and how they meet there. */
export interface Cluster extends Instances.Config {
  readonly redis: Redis.Redis["Service"]
}

/**
 * The endpoint's 2026 path over `face`, for the scope's life; with `cluster`, joined to the other
 * instances so a call parked on one is continued from any, a list moved through one is heard by
 * every listener, and (unless a key was given) the instances sign with the key they agree on.
 */
export const make = (
  face: Face.Face,
  stateless: Stateless.Stateless,
  options: {
    readonly drain: HttpDrain.Drain
    readonly maxBodyBytes: number
    readonly maxInFlight: number
    readonly keepAlive: Duration.Duration
    readonly cluster: Cluster | undefined
    /** How listen requests are bounded (URIs per request, streams per holder). */
    readonly listen?: Requests.ListenOptions | undefined
  }
): Effect.Effect<Endpoint, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { cluster, listen } = options
    const modern = cluster === undefined ? yield* Requests.make(face, stateless, { listen })
      : yield* joined(face, stateless, cluster, listen)
    return {
      modern,
      drain: options.drain,
      closing: yield* Deferred.make<void>(),
      maxBodyBytes: options.maxBodyBytes,
      maxInFlight: options.maxInFlight,
      keepAlive: Duration.toMillis(options.keepAlive),
      sequence: 0
    }
  })

const joined = (
  face: Face.Face,
  stateless: Stateless.Stateless,
  { redis, ...config }: Cluster,
  listen: Requests.ListenOptions | undefined
) =>
  Effect.gen(function*() {
    const cluster = yield* Instances.make(config).pipe(Effect.provideService(Redis.Redis, redis))
    yield* cluster.announce(face.broadcaster)
    const store = yield* TaskStore.make(config, cluster.instance).pipe(Effect.provideService(Redis.Redis, redis))
    const modern = yield* Requests.make(face, stateless, {
      elsewhere: cluster.elsewhere,
      instance: cluster.instance,
      relay: cluster.relay,
      store,
      listen,
      codec: stateless.requestState.given
        ? stateless.requestState
        : RequestState.make({ key: cluster.key, ttl: stateless.requestState.ttl })
    })
    cluster.serve(modern.calls)
    store.serve(modern.tasks)
    return modern
  })

const encoder = new TextEncoder()

const event = (message: Json.JsonObject): Uint8Array =>
  encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`)

const keepAliveComment = encoder.encode(": keep-alive\n\n")
const opening = encoder.encode(": stream open\n\n")

const sseHeaders = { "cache-control": "no-cache", "x-accel-buffering": "no" }

const json = (answer: Requests.Answer) =>
  HttpServerResponse.text(JSON.stringify(answer.body), { status: answer.status, contentType: "application/json" })

// The most notices a listen stream holds for a client that is not reading; past it the stream ends
// and the client listens again.
const maxQueued = 1024

const stream = (queue: Queue.Dequeue<Uint8Array, Cause.Done>, first?: Uint8Array) =>
  HttpEffect.scopeTransferToStream(
    HttpServerResponse.stream(
      first === undefined ? Stream.fromQueue(queue) : Stream.concat(Stream.succeed(first), Stream.fromQueue(queue)),
      { contentType: "text/event-stream", headers: sseHeaders }
    )
  )

/**
 * GET and DELETE have no meaning without a session: 405, naming the one method served.
 */
export const methodNotAllowed = (): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.setHeader(
    HttpChecks.respond(
      new HttpChecks.Refusal({
        status: 405,
        code: -32000,
        message: `Method Not Allowed: a ${Wire.version} client sends every message as a POST`
      })
    ),
    "allow",
    "POST"
  )

// The request's answer as one JSON body, or, once it sends a notice before its answer, as a stream
// of its notices ending with the answer. The answer runs in the request's scope, so a client that
// goes away (from the wait or from the stream) interrupts it.
const answered = (
  endpoint: Endpoint,
  request: Requests.Request,
  envelope: Wire.Envelope
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, Scope.Scope> =>
  Effect.gen(function*() {
    let queue: Queue.Queue<Uint8Array, Cause.Done> | undefined
    let opened: (() => void) | undefined
    const notify = (message: Json.JsonObject) => {
      if (queue === undefined) {
        queue = Effect.runSync(Queue.unbounded<Uint8Array, Cause.Done>())
        opened?.()
      }
      Queue.offerUnsafe(queue, event(message))
    }
    const fiber = yield* Effect.forkIn(Requests.answer(endpoint.modern, request, envelope, notify), yield* Effect.scope)
    const streaming = yield* Effect.callback<boolean>((resume) => {
      if (queue !== undefined) return resume(Effect.succeed(true))
      const unobserve = fiber.addObserver(() => resume(Effect.succeed(queue !== undefined)))
      opened = () => {
        unobserve()
        resume(Effect.succeed(true))
      }
      return Effect.sync(() => {
        unobserve()
        opened = undefined
      })
    })
    if (!streaming || queue === undefined) return json(yield* Fiber.join(fiber))
    const open = queue
    fiber.addObserver((exit) => {
      if (exit._tag === "Success") Queue.offerUnsafe(open, event(exit.value.body))
      Queue.endUnsafe(open)
    })
    return stream(open)
  })

const listen = (
  endpoint: Endpoint,
  prepared: Listen.Prepared,
  ledger: HttpDrain.Ledger
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, Scope.Scope> =>
  Effect.gen(function*() {
    const queue = yield* Queue.bounded<Uint8Array, Cause.Done>(maxQueued)
    const send = (message: Json.JsonObject) => {
      if (!Queue.offerUnsafe(queue, event(message))) Queue.endUnsafe(queue)
    }
    const quiet = Effect.sleep(endpoint.keepAlive).pipe(
      Effect.andThen(Effect.sync(() => Queue.offerUnsafe(queue, keepAliveComment))),
      Effect.forever
    )
    const answered = HttpDrain.answered(endpoint.drain, ledger)
    yield* Listen.run(endpoint.modern, prepared, send, Deferred.await(endpoint.closing), answered).pipe(
      Effect.raceFirst(quiet),
      Effect.ensuring(Queue.end(queue)),
      Effect.forkIn(yield* Effect.scope)
    )
    // The status and headers leave with the first bytes, so the opening comment sends them at once.
    return stream(queue, opening)
  })

// A listen is admitted as any request is, and counted in flight until its stream is acknowledged;
// then each URI must name something, the endpoint must have a stream to spare and so must its
// holder (the token's subject, else the connection's peer). An acknowledged stream counts under
// those two caps alone, so streams left open never keep other requests out.
const listenRequest = (
  endpoint: Endpoint,
  request: HttpServerRequest.HttpServerRequest,
  ledger: HttpDrain.Ledger,
  incoming: Requests.Request,
  envelope: Wire.Envelope,
  caller: Identity.Principal | undefined
): Effect.Effect<HttpServerResponse.HttpServerResponse, HttpChecks.Refusal, Scope.Scope> =>
  Effect.gen(function*() {
    const { modern } = endpoint
    const prepared = Listen.prepare(
      caller === undefined ? incoming : { ...incoming, caller },
      envelope,
      modern.listening.maxUris
    )
    if (Result.isFailure(prepared)) return json(prepared.failure)
    const admitted = yield* admitOne(endpoint, ledger, incoming.id)
    if (admitted === undefined) return yield* HttpDrain.busy(endpoint.maxInFlight)
    const peer = Option.getOrElse(request.remoteAddress, () => "unknown")
    const refused = yield* Listen.admit(modern, prepared.success, Listen.holderOf(prepared.success.caller, peer))
    return refused === undefined ? yield* listen(endpoint, prepared.success, ledger) : json(refused)
  })

// One 2026 request admitted under the endpoint's bound: a POST carries exactly one.
const admitOne = (endpoint: Endpoint, ledger: HttpDrain.Ledger, id: Wire.Id) =>
  HttpDrain.admitIds(endpoint.drain, ledger, `~${endpoint.sequence++}`, [id], [], endpoint.maxInFlight)

const refusedBody = (id: Wire.Id | null, code: number, message: string, status: number) =>
  json({ status, body: Wire.errorOf(id, { code, message }) })

// A call's mirrored arguments are checked against the tool it names, as listed now.
const paramHeaders = (
  endpoint: Endpoint,
  request: HttpServerRequest.HttpServerRequest,
  incoming: Requests.Request
): Effect.Effect<Wire.Refused | undefined> => {
  if (incoming.method !== "tools/call") return Effect.succeed(undefined)
  const name = incoming.params["name"]
  return Effect.map(endpoint.modern.face.roster.current, (resolved) => {
    const tool = resolved.advertisedTools.find((advertised) => advertised["name"] === name)
    const schema = tool?.["inputSchema"]
    if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return undefined
    return Headers.params(request.headers, String(name), schema as Json.JsonObject, incoming.params["arguments"])
  })
}

/**
 * Answer one 2026 POST whose body has been read (or read it now), counted on `ledger` while it is
 * in flight.
 */
export const post = (
  endpoint: Endpoint,
  request: HttpServerRequest.HttpServerRequest,
  ledger: HttpDrain.Ledger,
  read: unknown,
  caller?: Identity.Principal
): Effect.Effect<HttpServerResponse.HttpServerResponse, HttpChecks.Refusal, Scope.Scope> =>
  Effect.gen(function*() {
    const incoming = Wire.classify(read)
    switch (incoming._tag) {
      case "Invalid":
        return refusedBody(incoming.id, Wire.codes.invalidRequest, `Invalid Request: ${incoming.reason}`, 400)
      case "Response":
        return refusedBody(
          null,
          Wire.codes.invalidRequest,
          `Invalid Request: a ${Wire.version} client sends no responses`,
          400
        )
      case "Notification":
        // Over HTTP a stream closed is the cancellation; a notification has nothing to change.
        return HttpServerResponse.empty({ status: 202 })
      case "Request":
        break
    }
    const checked = Requests.check(
      incoming,
      (envelope) => Headers.standard(request.headers, incoming.method, incoming.params, envelope.protocolVersion)
    )
    if (Result.isFailure(checked)) return json(checked.failure)
    const mismatch = yield* paramHeaders(endpoint, request, incoming)
    if (mismatch !== undefined) return json({ status: 400, body: Wire.errorOf(incoming.id, mismatch) })
    if (incoming.method === "subscriptions/listen")
      return yield* listenRequest(endpoint, request, ledger, incoming, checked.success, caller)
    const admitted = yield* admitOne(endpoint, ledger, incoming.id)
    if (admitted === undefined)
      return yield* HttpDrain.busy(endpoint.maxInFlight)
    return yield* answered(endpoint, caller === undefined ? incoming : { ...incoming, caller }, checked.success)
  })
