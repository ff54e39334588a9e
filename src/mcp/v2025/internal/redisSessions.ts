/**
 * The session registry in Redis: what any instance needs to serve a session another one opened.
 *
 * A session is a hash — the `initialize` its host sent (so a replica is initialised the way the
 * first one was), the negotiated version, the host's log level, its *holder* (the caller it belongs
 * to, `Identity.holder`: found only for that caller, so every instance refuses another alike, and
 * an empty one for a session opened without authorization), and its *leader*: the one instance
 * that follows its subscriptions and announces roster moves, so the host hears each change once —
 * and a set of the URIs it is subscribed to. Both expire together, an idle timeout after the last
 * instance that served the session said so. An instance says it lives with a key of its own that
 * expires three beats after its last; a session whose leader has gone is claimed by the next
 * instance that serves it. Every operation is one Lua script, so a claim or a capped subscribe is
 * atomic across instances. The scripts name keys they build from the prefix: this is a single
 * Redis (or a primary), not a Redis Cluster.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redis from "effect/persistence/Redis"
import type * as Logging from "../../face/Logging.ts"
import * as RedisCall from "../../transport/redisCall.ts"

/** What Redis keeps of one session. */
export interface Record {
  /** The params of the `initialize` that opened it. */
  readonly initialize: unknown
  readonly version: string
  readonly level: Logging.Level
  readonly subscriptions: ReadonlyArray<string>
  /** Whether the instance that read it leads it now (it claimed a session whose leader was gone). */
  readonly leads: boolean
  /** Who it belongs to; none when it was opened without authorization. */
  readonly holder: string | undefined
}

/** What a subscribe did: admitted (new or held already), or refused at the cap; and who follows it. */
export interface Subscribed {
  readonly admitted: boolean
  /** The leader's instance id; this instance's own when it claimed the session doing so. */
  readonly leader: string
  readonly claimed: boolean
}

/** What a beat learned: sessions gone, led elsewhere now, and claimed by this instance. */
export interface Beat {
  readonly gone: ReadonlyArray<string>
  readonly lost: ReadonlyArray<string>
  readonly claimed: ReadonlyArray<string>
}

/** Redis failed or stayed silent: the registry could not answer. */
export class Failed extends Data.TaggedError("RegistryError")<{ readonly reason: string }> {
  override get message(): string {
    return `the session registry failed: ${this.reason}`
  }
}

/** The registry's operations for one instance. */
export interface Registry {
  readonly instance: string
  readonly register: (
    session: string,
    initialize: unknown,
    version: string,
    level: Logging.Level,
    holder: string | undefined
  ) => Effect.Effect<void, Failed>
  /**
   * The session, claimed when its leader has gone; none when it has ended or expired, and none (the
   * same answer, with nothing claimed) when it belongs to another holder than `holder`.
   */
  readonly find: (session: string, holder: string | undefined) => Effect.Effect<Option.Option<Record>, Failed>
  /** Admit `uri` unless the session holds `max` others already; none when the session has gone. */
  readonly subscribe: (session: string, uri: string, max: number) => Effect.Effect<Option.Option<Subscribed>, Failed>
  /** Forget `uri`; answers the leader, which follows it. */
  readonly unsubscribe: (session: string, uri: string) => Effect.Effect<Option.Option<string>, Failed>
  readonly setLevel: (session: string, level: Logging.Level) => Effect.Effect<void, Failed>
  /** Claim the session when its leader has gone: true when this instance leads it now. */
  readonly claim: (session: string) => Effect.Effect<boolean, Failed>
  readonly remove: (session: string) => Effect.Effect<void, Failed>
  /** Whether an instance has beaten within its last three beats. */
  readonly alive: (instance: string) => Effect.Effect<boolean, Failed>
  /**
   * Say this instance lives; keep the sessions it served since the last beat alive; tell which it
   * leads have gone or are led elsewhere, and claim those it serves whose leader has gone.
   */
  readonly beat: (active: ReadonlyArray<string>, led: ReadonlyArray<string>) => Effect.Effect<Beat, Failed>
  /** Give up leading these sessions (its replicas are ending), and stop saying it lives. */
  readonly release: (sessions: ReadonlyArray<string>, last: boolean) => Effect.Effect<void, Failed>
}

export interface Config {
  readonly prefix: string
  readonly instance: string
  /** How long a session outlives its last use. */
  readonly idleTimeout: Duration.Duration
  readonly heartbeat: Duration.Duration
  readonly timeout: Duration.Duration
}

// A leader has gone when it is nobody, or its key has expired.
const leaderGone = `
local function gone(owner, live)
  return owner == false or owner == '' or redis.call('EXISTS', live .. owner) == 0
end
`

const register = Redis.script(
  (
    keys: ReadonlyArray<string>,
    init: string,
    version: string,
    level: string,
    owner: string,
    ttl: number,
    holder: string
  ) => [...keys, init, version, level, owner, String(ttl), holder],
  {
    numberOfKeys: 2,
    lua: `
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('HSET', KEYS[1], 'init', ARGV[1], 'version', ARGV[2], 'level', ARGV[3], 'owner', ARGV[4], 'holder', ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
`
  }
)

// Another holder's session is not there: found for no one else, and claimed by no one else's request.
const find = Redis.script(
  (keys: ReadonlyArray<string>, me: string, live: string, holder: string) => [...keys, me, live, holder],
  {
    numberOfKeys: 2,
    lua: leaderGone + `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local fields = redis.call('HMGET', KEYS[1], 'init', 'version', 'level', 'owner', 'holder')
if (fields[5] or '') ~= ARGV[3] then return false end
local leads = 0
if fields[4] == ARGV[1] then leads = 1
elseif gone(fields[4], ARGV[2]) then redis.call('HSET', KEYS[1], 'owner', ARGV[1]) leads = 1 end
return { fields[1], fields[2], fields[3], leads, redis.call('SMEMBERS', KEYS[2]) }
`
  }
).withReturnType<readonly [string, string, string, number, ReadonlyArray<string>] | null>()

const subscribe = Redis.script(
  (
    keys: ReadonlyArray<string>,
    uri: string,
    max: number,
    me: string,
    live: string
  ) => [...keys, uri, String(max), me, live],
  {
    numberOfKeys: 2,
    lua: leaderGone + `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local admitted = 1
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 0 then
  if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[2]) then admitted = 0
  else
    redis.call('SADD', KEYS[2], ARGV[1])
    redis.call('PEXPIRE', KEYS[2], redis.call('PTTL', KEYS[1]))
  end
end
local owner = redis.call('HGET', KEYS[1], 'owner')
local claimed = 0
if owner ~= ARGV[3] and gone(owner, ARGV[4]) then
  redis.call('HSET', KEYS[1], 'owner', ARGV[3])
  owner = ARGV[3]
  claimed = 1
end
return { admitted, owner, claimed }
`
  }
).withReturnType<readonly [number, string, number] | null>()

const unsubscribe = Redis.script((keys: ReadonlyArray<string>, uri: string) => [...keys, uri], {
  numberOfKeys: 2,
  lua: `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('SREM', KEYS[2], ARGV[1])
return redis.call('HGET', KEYS[1], 'owner')
`
}).withReturnType<string | null>()

const setLevel = Redis.script((keys: ReadonlyArray<string>, level: string) => [...keys, level], {
  numberOfKeys: 1,
  lua: `if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'level', ARGV[1]) end`
})

const claim = Redis.script((keys: ReadonlyArray<string>, me: string, live: string) => [...keys, me, live], {
  numberOfKeys: 1,
  lua: leaderGone + `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner == ARGV[1] then return 1 end
if gone(owner, ARGV[2]) then redis.call('HSET', KEYS[1], 'owner', ARGV[1]) return 1 end
return 0
`
}).withReturnType<number>()

// ARGV: me, the key prefix, the live-key prefix, this instance's live TTL, the session TTL, the
// count of active sessions, then the active and the led sessions.
const beat = Redis.script(
  (
    me: string,
    prefix: string,
    live: string,
    liveTtl: number,
    ttl: number,
    active: ReadonlyArray<string>,
    led: ReadonlyArray<string>
  ) => [
    me,
    prefix,
    live,
    String(liveTtl),
    String(ttl),
    String(active.length),
    ...active,
    ...led
  ],
  {
    numberOfKeys: 0,
    lua: leaderGone + `
local me, prefix, live = ARGV[1], ARGV[2], ARGV[3]
redis.call('SET', live .. me, '1', 'PX', ARGV[4])
local ttl, count = ARGV[5], tonumber(ARGV[6])
local gone_, lost, claimed, leads = {}, {}, {}, {}
for i = 7 + count, #ARGV do leads[ARGV[i]] = true end
for i = 7, 6 + count do
  local key = prefix .. '{' .. ARGV[i] .. '}'
  if redis.call('EXISTS', key) == 1 then
    redis.call('PEXPIRE', key, ttl)
    if redis.call('EXISTS', key .. ':subs') == 1 then redis.call('PEXPIRE', key .. ':subs', ttl) end
    if not leads[ARGV[i]] and gone(redis.call('HGET', key, 'owner'), live) then
      redis.call('HSET', key, 'owner', me)
      table.insert(claimed, ARGV[i])
    end
  else
    table.insert(gone_, ARGV[i])
  end
end
for session in pairs(leads) do
  local key = prefix .. '{' .. session .. '}'
  local owner = redis.call('HGET', key, 'owner')
  if owner == false then table.insert(gone_, session)
  elseif owner ~= me then table.insert(lost, session) end
end
return { gone_, lost, claimed }
`
  }
).withReturnType<readonly [ReadonlyArray<string>, ReadonlyArray<string>, ReadonlyArray<string>]>()

const release = Redis.script(
  (
    me: string,
    prefix: string,
    live: string,
    last: string,
    sessions: ReadonlyArray<string>
  ) => [me, prefix, live, last, ...sessions],
  {
    numberOfKeys: 0,
    lua: `
for i = 5, #ARGV do
  local key = ARGV[2] .. '{' .. ARGV[i] .. '}'
  if redis.call('HGET', key, 'owner') == ARGV[1] then redis.call('HSET', key, 'owner', '') end
end
if ARGV[4] == '1' then redis.call('DEL', ARGV[3] .. ARGV[1]) end
`
  }
)

const isLevel = (level: string): level is Logging.Level =>
  ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"].includes(level)

const parseJson = Option.liftThrowable((text: string): unknown => JSON.parse(text))

/** The registry over the `Redis` service in context, for one instance. */
export const make = (config: Config): Effect.Effect<Registry, never, Redis.Redis> =>
  Effect.map(Effect.service(Redis.Redis), (redis) => {
    const sessions = `${config.prefix}s:`
    const live = `${config.prefix}i:`
    const me = config.instance
    const ttl = Math.max(1, Duration.toMillis(config.idleTimeout))
    const keys = (session: string) => [`${sessions}{${session}}`, `${sessions}{${session}}:subs`]
    const run = <A>(effect: Effect.Effect<A, Redis.RedisError>): Effect.Effect<A, Failed> =>
      RedisCall.bounded(effect, config.timeout, (reason) => new Failed({ reason }))
    return {
      instance: me,
      register: (session, initialize, version, level, holder) =>
        run(redis.eval(register)(keys(session), JSON.stringify(initialize), version, level, me, ttl, holder ?? "")),
      find: (session, holder) =>
        Effect.map(
          run(redis.eval(find)(keys(session), me, live, holder ?? "")),
          (found) =>
            Option.flatMap(Option.fromNullishOr(found), ([init, version, level, leads, subscriptions]) =>
              Option.map(parseJson(init), (initialize): Record => ({
                initialize,
                version,
                level: isLevel(level) ? level : "info",
                subscriptions,
                leads: leads === 1,
                holder
              })))
        ),
      subscribe: (session, uri, max) =>
        Effect.map(
          run(redis.eval(subscribe)(keys(session), uri, max, me, live)),
          (found) =>
            Option.map(
              Option.fromNullishOr(found),
              ([admitted, leader, claimed]) => ({ admitted: admitted === 1, leader, claimed: claimed === 1 })
            )
        ),
      unsubscribe: (session, uri) => Effect.map(run(redis.eval(unsubscribe)(keys(session), uri)), Option.fromNullishOr),
      setLevel: (session, level) => run(redis.eval(setLevel)(keys(session).slice(0, 1), level)),
      claim: (session) => Effect.map(run(redis.eval(claim)(keys(session).slice(0, 1), me, live)), (led) => led === 1),
      remove: (session) => run(redis.send("DEL", ...keys(session))).pipe(Effect.asVoid),
      alive: (instance) => Effect.map(run(redis.send<number>("EXISTS", `${live}${instance}`)), (n) => n === 1),
      beat: (active, led) =>
        Effect.map(
          run(
            redis.eval(beat)(me, sessions, live, 3 * Math.max(1, Duration.toMillis(config.heartbeat)), ttl, active, led)
          ),
          ([gone, lost, claimed]) => ({ gone: [...new Set(gone)], lost, claimed })
        ),
      release: (led, last) => run(redis.eval(release)(me, sessions, live, last ? "1" : "0", led))
    } satisfies Registry
  })
