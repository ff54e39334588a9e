/**
 * 2026-07-28 over one message channel (stdio, or an in-memory pair in a test): every request is
 * answered on the channel they all share.
 *
 * A stdio server is one process per host, and one channel carries every request, every notice and
 * every answer, so what HTTP gives each request for free has to be said here: each request runs in
 * a fiber of its own, a request's notices go out before its answer, `notifications/cancelled`
 * interrupts the request it names (a listen stream included), and the answers of requests running
 * side by side leave in whatever order they finish. When the channel closes, or the connection's
 * scope does, every request still running is interrupted and every listen stream ends with its
 * response.
 *
 * @internal
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberMap from "effect/FiberMap"
import * as FiberSet from "effect/FiberSet"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import type * as Json from "../../../core/Json.ts"
import * as Listen from "./listen.ts"
import * as Requests from "./requests.ts"
import * as Eras from "../../../protocol/Eras.ts"
import * as Wire from "../../../protocol/v2026/Messages.ts"

interface Channel {
  readonly modern: Requests.Modern
  readonly transport: Transport
  readonly running: FiberMap.FiberMap<string, unknown>
  /** The listen streams, answered before the channel's requests are interrupted. */
  readonly listening: FiberSet.FiberSet<void>
  readonly closing: Deferred.Deferred<void>
  readonly runFork: <A, E>(effect: Effect.Effect<A, E>) => void
}

const keyOf = (id: Wire.Id) => `${typeof id}:${id}`

// The channel keeps its order: a request's notices were sent before its answer is.
const write = (transport: Transport, message: Json.JsonObject) => {
  void transport.send(message as unknown as JSONRPCMessage).catch(() => undefined)
}

const send = (channel: Channel, message: Json.JsonObject) => write(channel.transport, message)

const request = (channel: Channel, incoming: Requests.Request) => {
  if (incoming.method === "initialize") return send(channel, wrongEra(incoming.id))
  const checked = Requests.check(incoming)
  if (Result.isFailure(checked)) return send(channel, checked.failure.body)
  const key = keyOf(incoming.id)
  const run = incoming.method === "subscriptions/listen"
    ? Result.match(Listen.prepare(incoming, checked.success, channel.modern.listening.maxUris), {
      onFailure: (refused) => Effect.sync(() => send(channel, refused.body)),
      onSuccess: (prepared) => listen(channel, prepared)
    })
    : Effect.suspend(() => {
      // Set as the answer is handed over: an interruption landing just after it answers nothing more.
      let answered = false
      return Effect.map(
        Requests.answer(channel.modern, incoming, checked.success, (message) => send(channel, message)),
        (answer) => {
          answered = true
          send(channel, answer.body)
        }
      ).pipe(Effect.onInterrupt(() => answered ? Effect.void : stopped(channel, incoming.id)))
    })
  channel.runFork(FiberMap.run(channel.running, key, run))
}

// A request still running when the channel closes is told the server stopped (the transport is
// still open then); one its client cancelled gets nothing, as the protocol asks.
const stopped = (channel: Channel, id: Wire.Id) =>
  Effect.flatMap(Deferred.isDone(channel.closing), (closing) =>
    closing
      ? Effect.sync(() =>
        send(
          channel,
          Wire.errorOf(id, {
            code: Wire.codes.internalError,
            message: "the server stopped before this request finished"
          })
        )
      )
      : Effect.void)

// An `initialize` after the channel chose 2026-07-28: said in a sentence that names the era the
// channel speaks and every version this server serves, so the client knows where it stands.
const wrongEra = (id: Wire.Id): Json.JsonObject =>
  Wire.errorOf(id, {
    code: Wire.codes.invalidRequest,
    message: `Invalid Request: this connection speaks ${Wire.version} (its first request chose it), so it ` +
      `takes no initialize; a 2025-11-25 session opens only with a connection's first request, or after ` +
      `server/discover alone. Versions served: ${[...Wire.supported, ...Eras.sessionVersions].join(", ")}`,
    data: { era: Wire.version, supportedVersions: [...Wire.supported, ...Eras.sessionVersions] }
  })

// A listen on this channel, counted against the channel (its one peer) while it streams.
const listen = (channel: Channel, prepared: Listen.Prepared) =>
  FiberSet.run(
    channel.listening,
    Effect.scoped(Effect.flatMap(
      Listen.admit(channel.modern, prepared, Listen.holderOf(prepared.caller, "channel")),
      (refused) =>
        refused === undefined
          ? Listen.run(channel.modern, prepared, (message) => send(channel, message), Deferred.await(channel.closing))
          : Effect.sync(() => send(channel, refused.body))
    ))
  ).pipe(Effect.flatMap((fiber) => Fiber.join(fiber).pipe(Effect.onInterrupt(() => Fiber.interrupt(fiber)))))

const cancelled = (channel: Channel, params: { readonly [key: string]: unknown }) => {
  const id = params["requestId"]
  if (typeof id === "string" || typeof id === "number") channel.runFork(FiberMap.remove(channel.running, keyOf(id)))
}

/**
 * Serve 2026 requests on `transport` until it closes or the scope does; it is started here, and
 * delivers first the message that decided the channel's revision. Answers what completes once the
 * channel has closed.
 */
export const serve = (
  modern: Requests.Modern,
  transport: Transport
): Effect.Effect<Deferred.Deferred<void>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const closed = yield* Deferred.make<void>()
    const closing = yield* Deferred.make<void>()
    const runFork = Effect.runForkWith(yield* Effect.context<never>())
    const channel: Channel = {
      modern,
      transport,
      running: yield* FiberMap.make<string>(),
      listening: yield* FiberSet.make<void>(),
      closing,
      runFork: (effect) => {
        runFork(effect)
      }
    }
    // Before the requests are interrupted (finalizers run in reverse), listen streams answer.
    yield* Effect.addFinalizer(() =>
      Deferred.succeed(closing, undefined).pipe(
        Effect.andThen(FiberSet.awaitEmpty(channel.listening)),
        Effect.timeoutOrElse({ duration: "1 second", orElse: () => Effect.void })
      )
    )
    const receive = (message: JSONRPCMessage) => {
      const incoming = Wire.classify(message)
      switch (incoming._tag) {
        case "Request":
          return request(channel, incoming)
        case "Notification":
          return incoming.method === "notifications/cancelled" ? cancelled(channel, incoming.params) : undefined
        case "Invalid":
          return send(
            channel,
            Wire.errorOf(incoming.id, {
              code: Wire.codes.invalidRequest,
              message: `Invalid Request: ${incoming.reason}`
            })
          )
        case "Response":
          return undefined
      }
    }
    transport.onmessage = receive
    transport.onclose = () => {
      runFork(Deferred.succeed(closed, undefined))
    }
    yield* Effect.promise(() => transport.start())
    return closed
  })

/**
 * Answer one request on `transport` before a path is chosen for the channel: a `server/discover`,
 * which a client sends to learn what the server speaks and which chooses nothing by itself.
 */
export const answerOne = (
  modern: Requests.Modern,
  transport: Transport,
  message: unknown
): Effect.Effect<void> => {
  const incoming = Wire.classify(message)
  if (incoming._tag !== "Request") return Effect.void
  const checked = Requests.check(incoming)
  if (Result.isFailure(checked)) return Effect.sync(() => write(transport, checked.failure.body))
  return Effect.map(
    Requests.answer(modern, incoming, checked.success, (notice) => write(transport, notice)),
    (answer) => write(transport, answer.body)
  )
}
