/**
 * The resumability event store of a Streamable HTTP face, kept in Redis.
 *
 * The in-memory store lives and dies with one process; behind a load balancer a client that
 * resumes with `Last-Event-ID` may land on any instance, and the one that stored its events may be
 * gone. This store keeps them in Redis (through `effect/persistence`'s `Redis` service, so any
 * client adapts to it), with the in-memory store's bounds — events per stream, streams and bytes
 * per session — and a time to live, so a session no instance forgets still goes. Each operation is
 * one Lua script, so it is atomic across instances. Every key of a session carries the session in
 * a hash tag, so a session's keys share one slot. A stream's serial (the first half of its event
 * ids) is drawn at random, not counted, so an id issued to one session names nothing in another.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redis from "effect/persistence/Redis"
import * as Crypto from "node:crypto"
import type * as McpTransport from "../../protocol/Transport.ts"
import * as EventStore from "./EventStore.ts"
import * as RedisCall from "../transport/redisCall.ts"

/**
 * Bounds and naming of the Redis store.
 *
 * @example
 * ```ts
 * import type { McpEventStoreRedis } from "effect-surface/mcp"
 *
 * const options: McpEventStoreRedis.Options = { prefix: "board:events:", timeToLive: "30 minutes" }
 * ```
 *
 * @since 0.1.0
 */
export interface Options extends Omit<EventStore.MemoryOptions, "maxBytes"> {
  /** What every key begins with. Default `effect-surface:mcp:events:`. */
  readonly prefix?: string
  /** How long a session's events outlive its last write when nothing forgets them. Default 10 minutes. */
  readonly timeToLive?: Duration.Input
  /** How long an operation waits for Redis before failing with `EventStoreError`. Default 5 seconds. */
  readonly timeout?: Duration.Input
}

// The session's own keys: its streams (name → serial), their write order, and its counts.
const keysOf = (prefix: string, session: string) => {
  const base = `${prefix}{${session}}:`
  return { base, keys: [`${base}streams`, `${base}order`, `${base}meta`] as const }
}

// Shared by the scripts that drop: a whole stream, or a stream's oldest event.
const dropping = `
local base = ARGV[1]
local function dropStream(serial)
  local info = base .. 'n:' .. serial
  local name = redis.call('HGET', info, 'stream')
  local bytes = tonumber(redis.call('HGET', info, 'bytes') or '0')
  redis.call('DEL', info, base .. 'l:' .. serial)
  if name then redis.call('HDEL', KEYS[1], name) end
  redis.call('ZREM', KEYS[2], serial)
  redis.call('HINCRBY', KEYS[3], 'bytes', -bytes)
end
local function dropOldest(serial)
  local oldest = redis.call('LPOP', base .. 'l:' .. serial)
  if not oldest then return false end
  local size = #oldest - string.find(oldest, ' ', 1, true)
  redis.call('HINCRBY', base .. 'n:' .. serial, 'bytes', -size)
  redis.call('HINCRBY', KEYS[3], 'bytes', -size)
  return true
end
`

const append = Redis.script(
  (
    keys: ReadonlyArray<string>,
    base: string,
    stream: string,
    message: string,
    bounds: ReadonlyArray<number>,
    serial: number,
    session: string
  ) => [
    ...keys,
    base,
    stream,
    message,
    ...bounds.map(String),
    String(serial),
    session
  ],
  {
    numberOfKeys: 3,
    lua: dropping + `
local stream, message = ARGV[2], ARGV[3]
local maxEvents, maxStreams, maxBytes, ttl = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local serial = redis.call('HGET', KEYS[1], stream)
if not serial then
  serial = ARGV[8]
  if redis.call('EXISTS', base .. 'n:' .. serial) == 1 then serial = serial .. redis.call('HINCRBY', KEYS[3], 'serials', 1) end
  redis.call('HSET', KEYS[1], stream, serial)
  redis.call('HSET', base .. 'n:' .. serial, 'stream', stream, 'next', 0, 'bytes', 0)
end
local info, log = base .. 'n:' .. serial, base .. 'l:' .. serial
redis.call('ZADD', KEYS[2], redis.call('HINCRBY', KEYS[3], 'tick', 1), serial)
local seq = redis.call('HINCRBY', info, 'next', 1)
redis.call('RPUSH', log, seq .. ' ' .. message)
redis.call('HINCRBY', info, 'bytes', #message)
redis.call('HINCRBY', KEYS[3], 'bytes', #message)
if redis.call('LLEN', log) > maxEvents then dropOldest(serial) end
while redis.call('ZCARD', KEYS[2]) > maxStreams do dropStream(redis.call('ZRANGE', KEYS[2], 0, 0)[1]) end
while tonumber(redis.call('HGET', KEYS[3], 'bytes')) > maxBytes do
  local dropped = false
  for _, least in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
    if dropOldest(least) then dropped = true break end
  end
  if not dropped then break end
end
for _, key in ipairs({ KEYS[1], KEYS[2], KEYS[3], info, log }) do redis.call('PEXPIRE', key, ttl) end
local holder = redis.call('HGET', info, 'holder')
if holder then
  redis.call('PUBLISH', holder, cjson.encode({ kind = 'event', session = ARGV[9], stream = stream, id = serial .. '-' .. seq, message = message }))
  redis.call('HSET', info, 'sent', seq)
end
return serial .. '-' .. seq
`
  }
).withReturnType<string>()

const after = Redis.script((keys: ReadonlyArray<string>, base: string, serial: string) => [...keys, base, serial], {
  numberOfKeys: 3,
  lua: `
local base, serial = ARGV[1], ARGV[2]
local name = redis.call('HGET', base .. 'n:' .. serial, 'stream')
if not name then return false end
return { name, redis.call('LRANGE', base .. 'l:' .. serial, 0, -1) }
`
}).withReturnType<readonly [string, ReadonlyArray<string>] | null>()

const forget = Redis.script((keys: ReadonlyArray<string>, base: string) => [...keys, base], {
  numberOfKeys: 3,
  lua: `
local base = ARGV[1]
for _, serial in ipairs(redis.call('HVALS', KEYS[1])) do redis.call('DEL', base .. 'n:' .. serial, base .. 'l:' .. serial) end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
`
})

const drop = Redis.script((keys: ReadonlyArray<string>, base: string, serial: string) => [...keys, base, serial], {
  numberOfKeys: 3,
  lua: dropping + `
if redis.call('EXISTS', base .. 'n:' .. ARGV[2]) == 1 then dropStream(ARGV[2]) end
`
})

// Hold a stream for a pub/sub channel: the standalone stream (made if it has no event yet) when no
// serial is given, else the stream of that serial; answers its name, serial, the previous holder,
// its stored lines and the sequence up to which they were handed to a holder (`sent`). Every append
// to it is published to the holder from then on, and counts as handed out.
const hold = Redis.script(
  (keys: ReadonlyArray<string>, base: string, serial: string, holder: string, fresh: number, ttl: number) => [
    ...keys,
    base,
    serial,
    holder,
    String(fresh),
    String(ttl)
  ],
  {
    numberOfKeys: 3,
    lua: `
local base, serial, holder, ttl = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[5])
local name
if serial == '' then
  name = '_GET_stream'
  serial = redis.call('HGET', KEYS[1], name)
  if not serial then
    serial = ARGV[4]
    if redis.call('EXISTS', base .. 'n:' .. serial) == 1 then serial = serial .. redis.call('HINCRBY', KEYS[3], 'serials', 1) end
    redis.call('HSET', KEYS[1], name, serial)
    redis.call('HSET', base .. 'n:' .. serial, 'stream', name, 'next', 0, 'bytes', 0)
    redis.call('ZADD', KEYS[2], redis.call('HINCRBY', KEYS[3], 'tick', 1), serial)
    if not redis.call('HGET', KEYS[3], 'bytes') then redis.call('HSET', KEYS[3], 'bytes', 0) end
  end
else
  name = redis.call('HGET', base .. 'n:' .. serial, 'stream')
  if not name then return false end
end
local info, log = base .. 'n:' .. serial, base .. 'l:' .. serial
local previous = redis.call('HGET', info, 'holder') or ''
local sent = tonumber(redis.call('HGET', info, 'sent') or '0')
redis.call('HSET', info, 'holder', holder, 'sent', redis.call('HGET', info, 'next') or 0)
for _, key in ipairs({ KEYS[1], KEYS[2], KEYS[3], info, log }) do
  if redis.call('EXISTS', key) == 1 then redis.call('PEXPIRE', key, ttl) end
end
return { name, serial, previous, redis.call('LRANGE', log, 0, -1), sent }
`
  }
).withReturnType<readonly [string, string, string, ReadonlyArray<string>, number] | null>()

const release = Redis.script((base: string, serial: string, holder: string) => [base, serial, holder], {
  numberOfKeys: 0,
  lua: `
local info = ARGV[1] .. 'n:' .. ARGV[2]
if redis.call('HGET', info, 'holder') == ARGV[3] then redis.call('HDEL', info, 'holder') end
`
})

const holderOf = Redis.script((keys: ReadonlyArray<string>, base: string) => [...keys, base], {
  numberOfKeys: 3,
  lua: `
local serial = redis.call('HGET', KEYS[1], '_GET_stream')
if not serial then return false end
return redis.call('HGET', ARGV[1] .. 'n:' .. serial, 'holder')
`
}).withReturnType<string | null>()

const parseEventId = (id: string): Option.Option<{ readonly serial: string; readonly seq: number }> => {
  const match = /^(\d+)-(\d+)$/.exec(id)
  return match === null ? Option.none() : Option.some({ serial: match[1] ?? "", seq: Number(match[2]) })
}

// A stored line is `<sequence> <message>`.
const parseLine = (serial: string, line: string): EventStore.StoredEvent | undefined => {
  const space = line.indexOf(" ")
  if (space === -1) return undefined
  const message = Option.getOrUndefined(
    Option.liftThrowable((text: string): McpTransport.Message => JSON.parse(text))(line.slice(space + 1))
  )
  return message === undefined ? undefined : { id: `${serial}-${line.slice(0, space)}`, message }
}

/**
 * A store over the `Redis` service in context. A Redis that fails or stays silent past `timeout`
 * fails the operation with `EventStoreError`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpEventStoreRedis } from "effect-surface/mcp"
 *
 * const store = McpEventStoreRedis.make({ maxEventsPerStream: 256 }) // Effect<EventStore, never, Redis>
 * ```
 *
 * @since 0.1.0
 */
export const make = (options?: Options): Effect.Effect<EventStore.EventStore["Service"], never, Redis.Redis> =>
  Effect.map(makeTailable(options), (tailable) => tailable.store)

/**
 * A stream held for tailing: its name and serial, who held it before (a channel, or none), and the
 * events stored after the id it was held from — held without one, the events appended while no
 * holder had it (a notification sent before the client's stream opened, or between two of them).
 *
 * @example
 * ```ts
 * import type { McpEventStoreRedis } from "effect-surface/mcp"
 *
 * const held: McpEventStoreRedis.Held = { stream: "_GET_stream", serial: "81", previous: undefined, events: [] }
 * ```
 *
 * @since 0.1.0
 */
export interface Held {
  readonly stream: string
  readonly serial: string
  readonly previous: string | undefined
  readonly events: ReadonlyArray<EventStore.StoredEvent>
}

/**
 * The Redis store with what lets any instance serve a client's stream: a stream is *held* for a
 * pub/sub channel, and from then on every event appended to it, by any instance, is published
 * there as `{ kind: "event", session, stream, id, message }` (the message as JSON text). Holding
 * and reading what the stream kept is one script, so nothing appended around it is missed.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpEventStoreRedis } from "effect-surface/mcp"
 *
 * const program = Effect.gen(function*() {
 *   const { hold } = yield* McpEventStoreRedis.makeTailable()
 *   const held = yield* hold("session-1", undefined, "my-channel") // the standalone stream, from now on
 * })
 * ```
 *
 * @since 0.1.0
 */
export interface Tailable {
  readonly store: EventStore.EventStore["Service"]
  /**
   * Hold the stream `eventId` belongs to (the session's standalone stream when none is given) for
   * `holder`; none when the id is unknown to the session. Held without an id, its events are those
   * no holder was handed yet.
   */
  readonly hold: (
    session: string,
    eventId: string | undefined,
    holder: string
  ) => Effect.Effect<Option.Option<Held>, EventStore.EventStoreError>
  /** Stop publishing a held stream, unless another holder has taken it since. */
  readonly release: (session: string, held: Held, holder: string) => Effect.Effect<void, EventStore.EventStoreError>
  /** Who holds the session's standalone stream now. */
  readonly standaloneHolder: (session: string) => Effect.Effect<Option.Option<string>, EventStore.EventStoreError>
}

/**
 * The Redis store and its tailing operations, over the `Redis` service in context.
 *
 * @example
 * ```ts
 * import { McpEventStoreRedis } from "effect-surface/mcp"
 * const tailable = McpEventStoreRedis.makeTailable({ prefix: "board:events:" }) // Effect<Tailable, never, Redis>
 * ```
 *
 * @since 0.1.0
 */
export const makeTailable = (options?: Options): Effect.Effect<Tailable, never, Redis.Redis> =>
  Effect.map(Effect.service(Redis.Redis), (redis) => {
    const prefix = options?.prefix ?? "effect-surface:mcp:events:"
    const ttl = Math.max(1, Duration.toMillis(Duration.fromInputUnsafe(options?.timeToLive ?? "10 minutes")))
    const bounds = [
      Math.max(1, options?.maxEventsPerStream ?? 512),
      Math.max(1, options?.maxStreamsPerSession ?? 64),
      Math.max(0, options?.maxBytesPerSession ?? 4 * 1024 * 1024),
      ttl
    ]
    const timeout = Duration.fromInputUnsafe(options?.timeout ?? "5 seconds")
    const run = <A>(effect: Effect.Effect<A, Redis.RedisError>) =>
      RedisCall.bounded(effect, timeout, (reason) => new EventStore.EventStoreError({ reason }))
    const store = EventStore.EventStore.of({
      append: (session, stream, message) => {
        const { base, keys } = keysOf(prefix, session)
        return run(
          redis.eval(append)(
            keys,
            base,
            stream,
            JSON.stringify(message),
            bounds,
            Crypto.randomInt(2 ** 48 - 1),
            session
          )
        )
      },
      after: (session, id) =>
        Option.match(parseEventId(id), {
          onNone: () => Effect.succeedNone,
          onSome: ({ serial, seq }) => {
            const { base, keys } = keysOf(prefix, session)
            return Effect.map(run(redis.eval(after)(keys, base, serial)), (found) =>
              Option.map(
                Option.fromNullishOr(found),
                ([stream, lines]): EventStore.Replay => ({ stream, events: linesAfter(serial, lines, seq) })
              ))
          }
        }),
      forget: (session) => {
        const { base, keys } = keysOf(prefix, session)
        return run(redis.eval(forget)(keys, base))
      },
      drop: (session, id) =>
        Option.match(parseEventId(id), {
          onNone: () => Effect.void,
          onSome: ({ serial }) => {
            const { base, keys } = keysOf(prefix, session)
            return run(redis.eval(drop)(keys, base, serial))
          }
        })
    })
    return {
      store,
      hold: (session, eventId, holder) => {
        const parsed = eventId === undefined ? Option.some({ serial: "", seq: 0 }) : parseEventId(eventId)
        if (Option.isNone(parsed)) return Effect.succeedNone
        const { base, keys } = keysOf(prefix, session)
        return Effect.map(
          run(redis.eval(hold)(keys, base, parsed.value.serial, holder, Crypto.randomInt(2 ** 48 - 1), ttl)),
          (found) =>
            Option.map(Option.fromNullishOr(found), ([stream, serial, previous, lines, sent]): Held => ({
              stream,
              serial,
              previous: previous === "" ? undefined : previous,
              // Held without an id: what no holder was handed (appended while none held it), then
              // what comes next.
              events: linesAfter(serial, lines, eventId === undefined ? sent : parsed.value.seq)
            }))
        )
      },
      release: (session, held, holder) => run(redis.eval(release)(keysOf(prefix, session).base, held.serial, holder)),
      standaloneHolder: (session) => {
        const { base, keys } = keysOf(prefix, session)
        return Effect.map(run(redis.eval(holderOf)(keys, base)), Option.fromNullishOr)
      }
    } satisfies Tailable
  })

const linesAfter = (serial: string, lines: ReadonlyArray<string>, seq: number): ReadonlyArray<EventStore.StoredEvent> =>
  lines.flatMap((line) => {
    const event = parseLine(serial, line)
    return event !== undefined && Number(event.id.slice(serial.length + 1)) > seq ? [event] : []
  })

/**
 * The Redis store as the face's `EventStore`, over the `Redis` service in context (for example
 * `NodeRedis.layer` from `@effect/platform-node`; with `disableOfflineQueue: true` a command fails
 * at once while Redis is away instead of waiting out the timeout).
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import * as NodeRedis from "@effect/platform-node/NodeRedis"
 * import { McpEventStoreRedis } from "effect-surface/mcp"
 *
 * const store = McpEventStoreRedis.layer().pipe(Layer.provide(NodeRedis.layer({ url: "redis://127.0.0.1:6379", disableOfflineQueue: true })))
 * ```
 *
 * @since 0.1.0
 */
export const layer = (options?: Options): Layer.Layer<EventStore.EventStore, never, Redis.Redis> =>
  Layer.effect(EventStore.EventStore, make(options))
