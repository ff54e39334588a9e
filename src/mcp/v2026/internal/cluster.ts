/**
 * Instances serving 2026-07-28 clients together, on the Redis they share: what one instance asks of
 * another.
 *
 * A stateless request lands on any instance, and almost nothing needs another: but a call parked at
 * a question lives on the instance that started it, and its retry may land elsewhere; and a listen
 * stream held by one instance must hear a list move made through another. So each instance has an
 * inbox and a heartbeat key, and all share one channel. A retry for a call parked elsewhere is sent
 * to that instance's inbox with the answers and the retry's envelope; the owner drives the call and
 * sends back each notice and the round's outcome, and a retry whose client goes away cancels it
 * there. A list move is announced on the shared channel, and each instance tells its own listeners
 * (unless its own list moved in the same second: then they heard it already). Every message is
 * decoded before it is acted on; one that does not decode is logged and dropped.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Redis from "effect/persistence/Redis"
import * as Crypto from "node:crypto"
import type * as Json from "../../../core/Json.ts"
import type * as Broadcast from "../../face/Broadcast.ts"
import * as Identity from "../../../core/Identity.ts"
import * as RedisCall from "../../transport/redisCall.ts"
import * as Logging from "../../face/Logging.ts"
import type * as Asking from "./asking.ts"
import type * as Calls from "./calls.ts"
import type * as RequestState from "../RequestState.ts"
import type * as Wire from "../../../protocol/v2026/Messages.ts"

/** Where the instances meet and how long they wait on Redis and on each other. */
export interface Config {
  readonly prefix: string
  readonly heartbeat: Duration.Duration
  readonly timeout: Duration.Duration
}

/** Local listeners of list moves made through other instances. */
export interface Relay {
  readonly join: (member: Broadcast.Member) => Effect.Effect<void>
  readonly leave: (member: Broadcast.Member) => Effect.Effect<void>
}

/** This instance's part among the others. */
export interface Cluster {
  readonly instance: string
  /** The key the instances agreed on in Redis, for states when none was given. */
  readonly key: string
  readonly elsewhere: Calls.Elsewhere
  readonly relay: Relay
  /** Announce this instance's list moves to the others, for the scope's life (once the face is known). */
  readonly announce: (broadcaster: Broadcast.Broadcaster) => Effect.Effect<void, never, Scope.Scope>
  /** Hand retries for calls parked here to them (once the calls table is known). */
  readonly serve: (calls: Calls.Calls) => void
}

const Envelope = Schema.Struct({
  protocolVersion: Schema.String,
  capabilities: Schema.Struct({
    elicitation: Schema.Boolean,
    sampling: Schema.Boolean,
    roots: Schema.Boolean,
    tasks: Schema.Boolean,
    raw: Schema.Record(Schema.String, Schema.Unknown)
  }),
  clientInfo: Schema.optionalKey(Schema.Struct({ name: Schema.String, version: Schema.String })),
  logLevel: Schema.optionalKey(Schema.Literals(Logging.levels)),
  progressToken: Schema.optionalKey(Schema.Union([Schema.String, Schema.Finite]))
})

const ticket = Schema.String

const JsonObject = Schema.Record(Schema.String, Schema.Unknown)

const Outcome = Schema.Union([
  Schema.Struct({ _tag: Schema.Literal("Complete"), result: JsonObject }),
  Schema.Struct({
    _tag: Schema.Literal("Error"),
    error: Schema.Struct({ code: Schema.Int, message: Schema.String, data: Schema.optionalKey(JsonObject) }),
    status: Schema.optionalKey(Schema.Int)
  }),
  Schema.Struct({
    _tag: Schema.Literal("InputRequired"),
    inputRequests: Schema.Record(Schema.String, Schema.Struct({ method: Schema.String, params: JsonObject })),
    requestState: Schema.String
  }),
  Schema.Struct({ _tag: Schema.Literal("Lost"), reason: Schema.String }),
  Schema.Struct({ _tag: Schema.Literal("Task"), task: JsonObject })
])

const Message = Schema.Union([
  Schema.Struct({
    kind: Schema.Literal("continue"),
    ticket,
    from: Schema.String,
    call: Schema.String,
    round: Schema.Int,
    target: Schema.String,
    expires: Schema.Int,
    responses: Schema.Record(Schema.String, Schema.Unknown),
    envelope: Envelope,
    /** Who sent the retry (`Identity.holder`): only the caller that started a call continues it. */
    holder: Schema.String
  }),
  Schema.Struct({ kind: Schema.Literal("accepted"), ticket }),
  Schema.Struct({ kind: Schema.Literal("notice"), ticket, message: JsonObject }),
  Schema.Struct({ kind: Schema.Literal("outcome"), ticket, outcome: Outcome }),
  Schema.Struct({ kind: Schema.Literal("cancel"), ticket }),
  Schema.Struct({
    kind: Schema.Literal("moved"),
    list: Schema.Literals(["tools", "resources", "prompts"]),
    from: Schema.String
  })
])

type Message = typeof Message.Type

const decode = Schema.decodeUnknownResult(Schema.fromJsonString(Message))

interface Waiting {
  readonly notify: Asking.Notify
  readonly accepted: Deferred.Deferred<void>
  readonly outcome: Deferred.Deferred<Calls.Outcome>
}

interface State {
  readonly config: Config
  readonly instance: string
  readonly redis: Redis.Redis["Service"]
  readonly waiting: Map<string, Waiting>
  /** Continuations this instance drives for a retry that landed elsewhere. */
  readonly driving: Map<string, Fiber.Fiber<void>>
  readonly relayed: Set<Broadcast.Member>
  /** When each list last moved here (not merely began). */
  readonly movedHere: Partial<Record<Broadcast.List, number>>
  readonly runFork: <A, E>(effect: Effect.Effect<A, E>) => Fiber.Fiber<A, E>
  readonly now: () => number
  calls: Calls.Calls | undefined
}

const inboxOf = (config: Config, instance: string) => `${config.prefix}m:inbox:${instance}`
const keyKey = (config: Config) => `${config.prefix}m:key`
/** The key an instance keeps alive while it lives: others read its absence as its death. */
export const liveKey = (config: Config, instance: string) => `${config.prefix}m:i:${instance}`

const publish = (state: State, channel: string, message: Message) =>
  RedisCall.bounded(
    state.redis.send("PUBLISH", channel, JSON.stringify(message)),
    state.config.timeout,
    (reason) => new Error(reason)
  ).pipe(Effect.asVoid)

const tell = (state: State, instance: string, message: Message) =>
  Effect.catch(
    publish(state, inboxOf(state.config, instance), message),
    (error) => Effect.logWarning(`MCP instance ${instance} not told of ${message.kind}: ${error.message}`)
  )

const lost = (reason: string): Calls.Outcome => ({ _tag: "Lost", reason })

// The owner's side: drive a call parked here for a retry that landed elsewhere.
const continueHere = (state: State, message: Extract<Message, { readonly kind: "continue" }>) =>
  Effect.suspend(() => {
    const calls = state.calls
    if (calls === undefined) return Effect.void
    const { envelope: sent, from } = message
    const envelope: Wire.Envelope = {
      ...sent,
      clientInfo: sent.clientInfo,
      logLevel: sent.logLevel,
      progressToken: sent.progressToken
    }
    const payload: RequestState.Payload = {
      call: message.call,
      instance: state.instance,
      round: message.round,
      target: message.target,
      expires: message.expires,
      answers: undefined
    }
    const round: Asking.Round = {
      envelope,
      holder: message.holder,
      notify: (notice) => {
        state.runFork(tell(state, from, { kind: "notice", ticket: message.ticket, message: notice }))
      }
    }
    const fiber = state.runFork(
      calls.resumeHere(payload, message.responses, round).pipe(
        Effect.flatMap((outcome) =>
          tell(state, from, { kind: "outcome", ticket: message.ticket, outcome: outcome as never })
        ),
        Effect.ensuring(Effect.sync(() => state.driving.delete(message.ticket)))
      )
    )
    state.driving.set(message.ticket, fiber)
    return tell(state, from, { kind: "accepted", ticket: message.ticket })
  })

const receive = (state: State, message: Message): Effect.Effect<void> => {
  switch (message.kind) {
    case "continue":
      return continueHere(state, message)
    case "accepted":
      return Effect.suspend(() => {
        const waiting = state.waiting.get(message.ticket)
        return waiting === undefined ? Effect.void : Deferred.succeed(waiting.accepted, undefined)
      })
    case "notice":
      return Effect.sync(() => state.waiting.get(message.ticket)?.notify(message.message as Json.JsonObject))
    case "outcome":
      return Effect.suspend(() => {
        const waiting = state.waiting.get(message.ticket)
        return waiting === undefined ? Effect.void : Deferred.succeed(waiting.outcome, message.outcome as Calls.Outcome)
      })
    case "cancel":
      return Effect.suspend(() => {
        const fiber = state.driving.get(message.ticket)
        return fiber === undefined ? Effect.void : Fiber.interrupt(fiber)
      })
    case "moved":
      return Effect.sync(() => {
        if (message.from === state.instance) return
        // This instance's own list moved within the second: its listeners heard that already.
        const own = state.movedHere[message.list]
        if (own !== undefined && state.now() - own < 1000) return
        for (const member of state.relayed) member.listChanged(message.list)
      })
  }
}

const alive = (state: State, instance: string) =>
  RedisCall.bounded(
    state.redis.send<number>("EXISTS", liveKey(state.config, instance)),
    state.config.timeout,
    (reason) => new Error(reason)
  ).pipe(Effect.map((exists) => exists === 1))

// The retry's side: send the answers to the call's instance and relay what comes back.
const continueElsewhere = (state: State) =>
(
  payload: RequestState.Payload,
  responses: { readonly [key: string]: unknown },
  round: Asking.Round
): Effect.Effect<Calls.Outcome> =>
  Effect.gen(function*() {
    const there = payload.instance
    const living = yield* Effect.result(alive(state, there))
    if (Result.isFailure(living)) return lost(`the instances' Redis could not be asked (${living.failure.message})`)
    if (!living.success) return lost(`the call it continues ran on instance ${there}, which has gone`)
    const id = Crypto.randomBytes(12).toString("base64url")
    const waiting: Waiting = {
      notify: round.notify,
      accepted: yield* Deferred.make<void>(),
      outcome: yield* Deferred.make<Calls.Outcome>()
    }
    state.waiting.set(id, waiting)
    const { envelope } = round
    const sent = yield* Effect.result(publish(state, inboxOf(state.config, there), {
      kind: "continue",
      ticket: id,
      from: state.instance,
      call: payload.call,
      round: payload.round,
      target: payload.target,
      expires: payload.expires,
      responses: { ...responses },
      holder: Identity.holder(round.caller ?? Identity.local),
      envelope: {
        protocolVersion: envelope.protocolVersion,
        capabilities: envelope.capabilities,
        ...(envelope.clientInfo === undefined ? {} : { clientInfo: envelope.clientInfo }),
        ...(envelope.logLevel === undefined ? {} : { logLevel: envelope.logLevel }),
        ...(envelope.progressToken === undefined ? {} : { progressToken: envelope.progressToken })
      }
    }))
    if (Result.isFailure(sent)) return lost(`the instances' Redis could not carry it (${sent.failure.message})`)
    const accepted = yield* Deferred.await(waiting.accepted).pipe(
      Effect.timeoutOrElse({ duration: state.config.timeout, orElse: () => Effect.succeed(false as const) })
    )
    if (accepted === false) {
      return lost(`instance ${there} did not take it within ${Duration.format(state.config.timeout)}`)
    }
    return yield* Deferred.await(waiting.outcome).pipe(
      Effect.onInterrupt(() => Effect.asVoid(tell(state, there, { kind: "cancel", ticket: id })))
    )
  }).pipe(Effect.ensuring(Effect.sync(() => {
    for (const [id, waiting] of state.waiting) if (waiting.notify === round.notify) state.waiting.delete(id)
  })))

/**
 * Join the instances sharing `config.prefix` for the scope's life: listening on this instance's
 * inbox and the shared channel, and saying it lives every heartbeat.
 */
export const make = (config: Config): Effect.Effect<Cluster, never, Scope.Scope | Redis.Redis> =>
  Effect.gen(function*() {
    const redis = yield* Redis.Redis
    const runFork = Effect.runForkWith(yield* Effect.context<never>())
    const clock = yield* Clock.Clock
    const state: State = {
      now: () => clock.currentTimeMillisUnsafe(),
      config,
      instance: Crypto.randomBytes(8).toString("hex"),
      redis,
      waiting: new Map(),
      driving: new Map(),
      relayed: new Set(),
      movedHere: {},
      runFork,
      calls: undefined
    }
    const onText = (text: string) =>
      Result.match(decode(text), {
        onFailure: (issue) => Effect.logWarning(`MCP instance message dropped: ${String(issue)}`),
        onSuccess: (message) => receive(state, message)
      })
    const everyone = `${config.prefix}m:bus`
    yield* RedisCall.subscribeText(redis, inboxOf(config, state.instance), onText)
    yield* RedisCall.subscribeText(redis, everyone, onText)
    // The first instance's key is everyone's; each beat puts it back should Redis have lost it.
    const proposed = Crypto.randomBytes(32).toString("base64url")
    const agree = (key: string) =>
      RedisCall.bounded(
        Effect.andThen(redis.send("SET", keyKey(config), key, "NX"), redis.send<string | null>("GET", keyKey(config))),
        config.timeout,
        (reason) => new Error(reason)
      )
    const key = yield* agree(proposed).pipe(
      Effect.map((agreed) => agreed ?? proposed),
      Effect.catch((error) =>
        Effect.as(Effect.logWarning(`MCP instances' requestState key not agreed in Redis: ${error.message}`), proposed)
      )
    )
    const beat = RedisCall.bounded(
      redis.send("SET", liveKey(config, state.instance), "1", "PX", String(3 * Duration.toMillis(config.heartbeat))),
      config.timeout,
      (reason) => new Error(reason)
    ).pipe(
      Effect.andThen(agree(key)),
      // Redis away and back is said once each way by the instance's session heartbeat, beside this one.
      Effect.catch((error) => Effect.logDebug(`MCP instance heartbeat not written: ${error.message}`))
    )
    yield* beat
    yield* beat.pipe(Effect.repeat(Schedule.spaced(config.heartbeat)), Effect.forkScoped)
    yield* Effect.addFinalizer(() =>
      Effect.ignore(
        RedisCall.bounded(redis.send("DEL", liveKey(config, state.instance)), config.timeout, (reason) =>
          new Error(reason))
      )
    )
    const announcer: Broadcast.Member = {
      listChanged: (list) => {
        state.movedHere[list] = state.now()
        runFork(Effect.ignore(publish(state, everyone, { kind: "moved", list, from: state.instance })))
      },
      updated: () => {},
      dropped: () => {}
    }
    return {
      instance: state.instance,
      key,
      elsewhere: { continue: continueElsewhere(state) },
      relay: {
        join: (member) => Effect.sync(() => state.relayed.add(member)),
        leave: (member) => Effect.sync(() => state.relayed.delete(member))
      },
      announce: (broadcaster) => Effect.acquireRelease(broadcaster.join(announcer), () => broadcaster.leave(announcer)),
      serve: (calls) => {
        state.calls = calls
      }
    }
  })
