/**
 * What instances tell each other, over Redis pub/sub: one channel every instance listens on, and
 * an inbox of its own each. Only what must reach another instance travels here — a client's answer
 * to a request another instance sent, a cancellation, a session ended, a log level set, a
 * subscription to follow, and (published by the event store's own script) the events of a stream
 * this instance holds for a client. Every message is decoded before it is acted on; one that does
 * not decode is logged and dropped. Each subscription is one connection, so an instance holds two
 * whatever the number of sessions.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Redis from "effect/persistence/Redis"
import * as Logging from "../../face/Logging.ts"
import * as RedisCall from "../../transport/redisCall.ts"
import * as Registry from "./redisSessions.ts"

const session = Schema.String

/** A message between instances. */
export const Message = Schema.Union([
  // Published by the event store to the holder of a stream: `message` is the event's JSON text.
  Schema.Struct({
    kind: Schema.Literal("event"),
    session,
    stream: Schema.String,
    id: Schema.String,
    message: Schema.String
  }),
  // A client's answer to a request the receiving instance sent it.
  Schema.Struct({ kind: Schema.Literal("answer"), session, message: Schema.Unknown }),
  // A client's `notifications/cancelled`, for whichever instance serves the request it names.
  Schema.Struct({ kind: Schema.Literal("cancelled"), session, from: Schema.String, message: Schema.Unknown }),
  // The session was deleted: each instance ends its replica, then says `live` (with the token, when
  // there is one: an instance of an earlier release sends none) to `from`.
  Schema.Struct({
    kind: Schema.Literal("ended"),
    session,
    from: Schema.String,
    token: Schema.optionalKey(Schema.String)
  }),
  Schema.Struct({
    kind: Schema.Literal("level"),
    session,
    from: Schema.String,
    level: Schema.Literals(Logging.levels)
  }),
  // To a session's leader: follow this URI, and say `live` (with the token) once it is.
  Schema.Struct({
    kind: Schema.Literal("follow"),
    session,
    uri: Schema.String,
    reply: Schema.String,
    token: Schema.String
  }),
  Schema.Struct({ kind: Schema.Literal("unfollow"), session, uri: Schema.String }),
  // What was asked with the token is done: the URI is followed, or the session has ended here.
  Schema.Struct({ kind: Schema.Literal("live"), token: Schema.String }),
  // To a stream's previous holder: another instance serves it now.
  Schema.Struct({ kind: Schema.Literal("superseded"), session, stream: Schema.String, holder: Schema.String })
])

export type Message = typeof Message.Type

const decode = Schema.decodeUnknownResult(Schema.fromJsonString(Message))

/** Sending to one instance, or to all. */
export interface Bus {
  /** This instance's inbox: the channel the event store publishes its held streams to. */
  readonly inbox: string
  readonly send: (instance: string, message: Message) => Effect.Effect<void, Registry.Failed>
  /** Send to every instance listening; answers how many listeners Redis handed it to, this one's own included. */
  readonly broadcast: (message: Message) => Effect.Effect<number, Registry.Failed>
}

export interface Config {
  readonly prefix: string
  readonly instance: string
  readonly timeout: Duration.Duration
}

/** The inbox channel of an instance. */
export const inboxOf = (prefix: string, instance: string): string => `${prefix}inbox:${instance}`

/**
 * Listen on the shared channel and this instance's inbox for the scope's life, handing each
 * message to `handle` in the order it arrived; both are subscribed before this answers.
 */
export const make = (
  config: Config,
  handle: (message: Message) => Effect.Effect<void>
): Effect.Effect<Bus, never, Scope.Scope | Redis.Redis> =>
  Effect.gen(function*() {
    const redis = yield* Redis.Redis
    const inbox = inboxOf(config.prefix, config.instance)
    const everyone = `${config.prefix}bus`
    const onText = (text: string) => dispatch(text, handle)
    yield* Effect.forEach([inbox, everyone], (channel) => RedisCall.subscribeText(redis, channel, onText), {
      discard: true
    })
    const publish = (channel: string, message: Message) =>
      RedisCall.bounded(redis.send<number>("PUBLISH", channel, JSON.stringify(message)), config.timeout, (reason) =>
        new Registry.Failed({ reason }))
    return {
      inbox,
      send: (instance, message) =>
        Effect.asVoid(publish(inboxOf(config.prefix, instance), message)),
      broadcast: (message) =>
        publish(everyone, message)
    } satisfies Bus
  })

const dispatch = (text: string, handle: (message: Message) => Effect.Effect<void>) =>
  Result.match(decode(text), {
    onFailure: (issue) => Effect.logWarning(`MCP bus message dropped: ${String(issue)}`),
    onSuccess: handle
  })
