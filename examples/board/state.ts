// Where the board keeps what it knows: in this process (the default), or in Redis, so that every
// instance of the server behind a load balancer serves one board. Either way each member is an
// Effect value the surface implementation takes as it is — a `SubscriptionRef` for a cell, a
// `Store` for the tasks, a `Log` for the activity, a stream for the completed pulses — and every
// write goes through the functions here. In Redis each write is one script that stores the value
// and publishes it with a version; every instance mirrors what is published into its own values
// (applying a version once, and only a newer one), so a change made through any instance reaches a
// subscriber on any other. The mirror follows the store: a Redis that comes back without the board
// is noticed by the store's epoch, and the board is read from it again rather than kept from memory.
import { Effect, Option, PubSub, Result, Schedule, Schema, Stream, SubscriptionRef } from "effect"
import type { Queue, Scope } from "effect"
import * as Redis from "effect/persistence/Redis"
import { Log, Store } from "effect-surface"

export const Task = Schema.Struct({
  title: Schema.String,
  done: Schema.Boolean,
  createdAt: Schema.Date
})

export type Task = typeof Task.Type

/** The board's members, and the writes the procedures make. */
export interface BoardState {
  readonly focus: SubscriptionRef.SubscriptionRef<string>
  readonly setFocus: (text: string) => Effect.Effect<void>
  readonly tasks: Store.Store<string, Task>
  /** A task as the board has it now (in Redis, read there: another instance may have just added it). */
  readonly getTask: (id: string) => Effect.Effect<Option.Option<Task>>
  readonly setTask: (id: string, task: Task) => Effect.Effect<void>
  readonly clearTasks: Effect.Effect<void>
  readonly activity: Log.Log<string>
  readonly record: (line: string) => Effect.Effect<void>
  readonly completed: Stream.Stream<{ readonly id: string }>
  readonly complete: (id: string) => Effect.Effect<void>
  /** The next task number, never handed out twice. */
  readonly nextId: Effect.Effect<number>
  readonly laps: SubscriptionRef.SubscriptionRef<number>
  readonly lap: Effect.Effect<number>
}

const capacity = 200

/** The board in this process's memory. */
export const memory: Effect.Effect<BoardState> = Effect.gen(function*() {
  const focus = yield* SubscriptionRef.make("nothing yet")
  const tasks = yield* Store.make<string, Task>()
  const activity = yield* Log.make<string>({ capacity })
  const completed = yield* PubSub.unbounded<{ readonly id: string }>()
  const ids = yield* SubscriptionRef.make(0)
  const laps = yield* SubscriptionRef.make(0)
  return {
    focus,
    setFocus: (text) => SubscriptionRef.set(focus, text),
    tasks,
    getTask: tasks.get,
    setTask: tasks.set,
    clearTasks: tasks.replace([]),
    activity,
    record: (line) => activity.append(line),
    completed: Stream.fromPubSub(completed),
    complete: (id) => Effect.asVoid(PubSub.publish(completed, { id })),
    nextId: SubscriptionRef.updateAndGet(ids, (n) => n + 1),
    laps,
    lap: SubscriptionRef.updateAndGet(laps, (n) => n + 1)
  }
})

// What one write published: the store's epoch (see `redis`), the member, its version, its new value.
const Change = Schema.Union([
  Schema.Struct({ e: Schema.String, kind: Schema.Literal("focus"), v: Schema.Number, value: Schema.String }),
  Schema.Struct({ e: Schema.String, kind: Schema.Literal("laps"), v: Schema.Number, value: Schema.Number }),
  Schema.Struct({
    e: Schema.String,
    kind: Schema.Literal("task"),
    v: Schema.Number,
    id: Schema.String,
    value: Schema.String
  }),
  Schema.Struct({ e: Schema.String, kind: Schema.Literal("cleared"), v: Schema.Number }),
  Schema.Struct({ e: Schema.String, kind: Schema.Literal("activity"), v: Schema.Number, value: Schema.String }),
  Schema.Struct({ e: Schema.String, kind: Schema.Literal("completed"), v: Schema.Number, id: Schema.String })
])
type Change = typeof Change.Type
const decodeChange = Schema.decodeUnknownResult(Schema.fromJsonString(Change))
const decodeEntry = Schema.decodeUnknownResult(
  Schema.fromJsonString(Schema.Struct({ v: Schema.Number, value: Schema.String }))
)

const TaskJson = Schema.fromJsonString(Schema.toCodecJson(Task))
const encodeTask = Schema.encodeSync(TaskJson)
const decodeTask = Schema.decodeUnknownResult(TaskJson)

// The store's epoch: made by the first script that finds none (a new Redis, or one that came back
// empty), so a board that outlived its store can tell. ARGV[2] is the epoch to make.
const epoch = `
local p = ARGV[1]
local e = redis.call('GET', p .. 'epoch')
if not e then e = ARGV[2] redis.call('SET', p .. 'epoch', e) end
`

// ARGV[1] the prefix, ARGV[2] an epoch, ARGV[3] the kind, then the kind's arguments. Stores the
// change, gives it the next version, publishes it, and answers the epoch, the version (and for a
// lap the count).
const write = Redis.script(
  (prefix: string, fresh: string, kind: string, ...args: ReadonlyArray<string>) => [prefix, fresh, kind, ...args],
  {
    numberOfKeys: 0,
    lua: `${epoch}
local kind = ARGV[3]
local v = redis.call('INCR', p .. 'version')
local change = { e = e, kind = kind, v = v }
if kind == 'focus' then redis.call('SET', p .. 'focus', ARGV[4]) change.value = ARGV[4]
elseif kind == 'laps' then change.value = redis.call('INCR', p .. 'laps')
elseif kind == 'task' then redis.call('HSET', p .. 'tasks', ARGV[4], ARGV[5]) change.id = ARGV[4] change.value = ARGV[5]
elseif kind == 'cleared' then redis.call('DEL', p .. 'tasks')
elseif kind == 'activity' then
  redis.call('RPUSH', p .. 'activity', cjson.encode({ v = v, value = ARGV[4] }))
  redis.call('LTRIM', p .. 'activity', -${capacity}, -1)
  change.value = ARGV[4]
elseif kind == 'completed' then change.id = ARGV[4] end
redis.call('PUBLISH', p .. 'changes', cjson.encode(change))
return { e, v, change.value or 0 }
`
  }
).withReturnType<readonly [string, number, string | number]>()

const snapshot = Redis.script((prefix: string, fresh: string) => [prefix, fresh], {
  numberOfKeys: 0,
  lua: `${epoch}
return {
  e,
  tonumber(redis.call('GET', p .. 'version') or '0'),
  redis.call('GET', p .. 'focus') or false,
  tonumber(redis.call('GET', p .. 'laps') or '0'),
  redis.call('HGETALL', p .. 'tasks'),
  redis.call('LRANGE', p .. 'activity', 0, -1)
}
`
}).withReturnType<readonly [string, number, string | null, number, ReadonlyArray<string>, ReadonlyArray<string>]>()

// The next task number, above every number this instance has seen (ARGV[2]): a Redis that came back
// empty starts its count again, and an id a client still holds must not name another task.
const nextId = Redis.script((prefix: string, floor: number) => [prefix, String(floor)], {
  numberOfKeys: 0,
  lua: `
local key = ARGV[1] .. 'ids'
local floor = tonumber(ARGV[2])
if tonumber(redis.call('GET', key) or '0') < floor then redis.call('SET', key, floor) end
return redis.call('INCR', key)
`
}).withReturnType<number>()

const numberOf = (id: string): number => Number(/^t(\d+)$/.exec(id)?.[1] ?? 0)

/**
 * The board in Redis (keys under `prefix`), mirrored here for the scope's life, and following the
 * store: should Redis come back without the board (restarted empty), the store's epoch differs, and
 * the mirror is read again from what Redis holds instead of serving a board that no longer exists.
 * A Redis that fails a write fails the procedure that made it (a defect the tool answers as an error).
 */
export const redis = (
  prefix = "effect-surface:board:"
): Effect.Effect<BoardState, Redis.RedisError, Scope.Scope | Redis.Redis> =>
  Effect.gen(function*() {
    const client = yield* Redis.Redis
    const local = yield* memory
    const completed = yield* PubSub.unbounded<{ readonly id: string }>()
    const mirror: Mirror = {
      local,
      completed,
      epoch: undefined,
      version: 0,
      seen: new Map(),
      logged: 0,
      highest: 0,
      // One version per member (a task per id), applied once and only forward; the oldest
      // remembered go first past a bound.
      fresh: (member, v) => {
        if (v <= mirror.version || (mirror.seen.get(member) ?? 0) >= v) return false
        mirror.seen.delete(member)
        mirror.seen.set(member, v)
        for (const key of mirror.seen.keys()) {
          if (mirror.seen.size <= 4096) break
          mirror.seen.delete(key)
        }
        return true
      }
    }
    // The whole board read again, and the mirror set to it.
    const reread: Effect.Effect<void, Redis.RedisError> = Effect.gen(function*() {
      const [e, version, focus, laps, tasks, activity] = yield* client.eval(snapshot)(prefix, crypto.randomUUID())
      const restarted = mirror.epoch !== undefined && mirror.epoch !== e
      if (restarted) {
        yield* Effect.logWarning(
          "the board in Redis is gone (Redis came back without it): serving what Redis holds now"
        )
      }
      if (mirror.epoch !== e) mirror.logged = 0
      mirror.epoch = e
      mirror.version = version
      mirror.seen.clear()
      yield* SubscriptionRef.set(local.focus, focus ?? "nothing yet")
      yield* SubscriptionRef.set(local.laps, laps)
      const loaded: Array<readonly [string, Task]> = []
      for (let i = 0; i + 1 < tasks.length; i += 2) {
        const task = decodeTask(tasks[i + 1])
        if (Result.isSuccess(task)) loaded.push([tasks[i]!, task.success])
        mirror.highest = Math.max(mirror.highest, numberOf(tasks[i]!))
      }
      yield* local.tasks.replace(loaded)
      // The activity is a log: what it showed stays, and what Redis has that it has not is appended.
      const lines = activity.flatMap((json) =>
        Result.match(decodeEntry(json), {
          onFailure: () => [],
          onSuccess: (entry) => entry.v > mirror.logged ? [entry] : []
        })
      )
      mirror.logged = Math.max(mirror.logged, ...lines.map((entry) => entry.v))
      yield* local.activity.append(...lines.map((entry) => entry.value))
    })
    const follow = (change: Change) => change.e === mirror.epoch ? apply(mirror, change) : Effect.ignore(reread)
    // Subscribed before the board is read, so nothing written in between is missed; should the
    // subscription fail, it is opened again (and the board read again) each second until it holds.
    const following = (changes: Queue.Dequeue<Redis.RedisMessage, Redis.RedisError>) =>
      Stream.fromQueue(changes).pipe(
        Stream.runForEach((message) =>
          Result.match(decodeChange(message.message), {
            onFailure: (issue) => Effect.logWarning(`board change dropped: ${String(issue)}`),
            onSuccess: follow
          })
        )
      )
    const first = yield* client.subscribe(`${prefix}changes`)
    yield* reread
    const again = Effect.scoped(
      Effect.flatMap(client.subscribe(`${prefix}changes`), (changes) => Effect.andThen(reread, following(changes)))
    ).pipe(Effect.ignore, Effect.repeat(Schedule.spaced("1 second")))
    yield* following(first).pipe(Effect.ignore, Effect.andThen(again), Effect.forkScoped)
    // A Redis that restarted empty publishes nothing: its epoch, looked at every two seconds, says so.
    yield* client.send<string | null>("GET", `${prefix}epoch`).pipe(
      Effect.flatMap((e) => e === mirror.epoch ? Effect.void : reread),
      Effect.ignore,
      Effect.repeat(Schedule.spaced("2 seconds")),
      Effect.forkScoped
    )
    const run = (kind: string, ...args: ReadonlyArray<string>) =>
      Effect.flatMap(Effect.orDie(client.eval(write)(prefix, crypto.randomUUID(), kind, ...args)), ([e, v, value]) => {
        // Applied here at once, so a read right after the write sees it.
        const change = Option.getOrUndefined(
          Result.getSuccess(decodeChange(JSON.stringify(changeOf(e, kind, v, value, args))))
        )
        return Effect.as(change === undefined ? Effect.void : follow(change), value)
      })
    return {
      ...local,
      completed: Stream.fromPubSub(completed),
      setFocus: (text) => Effect.asVoid(run("focus", text)),
      setTask: (id, task) => Effect.asVoid(run("task", id, encodeTask(task))),
      clearTasks: Effect.asVoid(run("cleared")),
      record: (line) => Effect.asVoid(run("activity", line)),
      complete: (id) => Effect.asVoid(run("completed", id)),
      getTask: (id) =>
        Effect.map(
          Effect.orDie(client.send<string | null>("HGET", `${prefix}tasks`, id)),
          (json) => json === null ? Option.none() : Result.getSuccess(decodeTask(json))
        ),
      // Suspended: the floor is the highest number seen when an id is asked for, not when this was built.
      nextId: Effect.tap(Effect.orDie(Effect.suspend(() => client.eval(nextId)(prefix, mirror.highest))), (n) =>
        Effect.sync(() => {
          mirror.highest = Math.max(mirror.highest, n)
        })),
      lap: Effect.map(run("laps"), Number)
    }
  })

const changeOf = (e: string, kind: string, v: number, value: string | number, args: ReadonlyArray<string>) => {
  switch (kind) {
    case "task":
      return { e, kind, v, id: args[0], value: args[1] }
    case "completed":
      return { e, kind, v, id: args[0] }
    case "cleared":
      return { e, kind, v }
    default:
      return { e, kind, v, value }
  }
}

interface Mirror {
  readonly local: BoardState
  readonly completed: PubSub.PubSub<{ readonly id: string }>
  /** The store's epoch the mirror follows, and the version its last reading of the board was at. */
  epoch: string | undefined
  version: number
  readonly seen: Map<string, number>
  /** The version of the last activity line appended. */
  logged: number
  /** The highest task number seen. */
  highest: number
  readonly fresh: (member: string, v: number) => boolean
}

const apply = (mirror: Mirror, change: Change): Effect.Effect<void> => {
  const { local } = mirror
  switch (change.kind) {
    case "focus":
      return mirror.fresh("focus", change.v) ? SubscriptionRef.set(local.focus, change.value) : Effect.void
    case "laps":
      return mirror.fresh("laps", change.v) ? SubscriptionRef.set(local.laps, change.value) : Effect.void
    case "task": {
      const task = decodeTask(change.value)
      mirror.highest = Math.max(mirror.highest, numberOf(change.id))
      return mirror.fresh(`task ${change.id}`, change.v) && Result.isSuccess(task)
        ? local.tasks.set(change.id, task.success) : Effect.void
    }
    case "cleared":
      return mirror.fresh("tasks", change.v) ? local.tasks.replace([]) : Effect.void
    case "activity": {
      if (!mirror.fresh(`activity ${change.v}`, change.v)) return Effect.void
      mirror.logged = Math.max(mirror.logged, change.v)
      return local.activity.append(change.value)
    }
    case "completed":
      return mirror.fresh(`completed ${change.v}`, change.v)
        ? Effect.asVoid(PubSub.publish(mirror.completed, { id: change.id })) : Effect.void
  }
}
