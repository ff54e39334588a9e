// Where the board keeps what it knows: in this process (the default), or in Redis, so that every
// instance of the server behind a load balancer serves one board. Either way each member is an
// Effect value the surface implementation takes as it is — a `SubscriptionRef` for a cell, a
// `Store` for the tasks, a `Log` for the activity, a stream for the completed pulses — and every
// write goes through the functions here. In Redis each write is one script that stores the value
// and publishes it with a version; every instance mirrors what is published into its own values
// (applying a version once, and only a newer one), so a change made through any instance reaches a
// subscriber on any other.
import { Effect, Option, PubSub, Result, Schema, Stream, SubscriptionRef } from "effect"
import type { Scope } from "effect"
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

// What one write published: the member, its version, and its new value.
const Change = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("focus"), v: Schema.Number, value: Schema.String }),
  Schema.Struct({ kind: Schema.Literal("laps"), v: Schema.Number, value: Schema.Number }),
  Schema.Struct({ kind: Schema.Literal("task"), v: Schema.Number, id: Schema.String, value: Schema.String }),
  Schema.Struct({ kind: Schema.Literal("cleared"), v: Schema.Number }),
  Schema.Struct({ kind: Schema.Literal("activity"), v: Schema.Number, value: Schema.String }),
  Schema.Struct({ kind: Schema.Literal("completed"), v: Schema.Number, id: Schema.String })
])
type Change = typeof Change.Type
const decodeChange = Schema.decodeUnknownResult(Schema.fromJsonString(Change))

const TaskJson = Schema.fromJsonString(Schema.toCodecJson(Task))
const encodeTask = Schema.encodeSync(TaskJson)
const decodeTask = Schema.decodeUnknownResult(TaskJson)

// KEYS: none (one Redis); ARGV[1] the prefix, ARGV[2] the kind, then the kind's arguments. Stores
// the change, gives it the next version, publishes it, and answers the version (and for a lap the
// count).
const write = Redis.script((prefix: string, kind: string, ...args: ReadonlyArray<string>) => [prefix, kind, ...args], {
  numberOfKeys: 0,
  lua: `
local p, kind = ARGV[1], ARGV[2]
local v = redis.call('INCR', p .. 'version')
local change = { kind = kind, v = v }
if kind == 'focus' then redis.call('SET', p .. 'focus', ARGV[3]) change.value = ARGV[3]
elseif kind == 'laps' then change.value = redis.call('INCR', p .. 'laps')
elseif kind == 'task' then redis.call('HSET', p .. 'tasks', ARGV[3], ARGV[4]) change.id = ARGV[3] change.value = ARGV[4]
elseif kind == 'cleared' then redis.call('DEL', p .. 'tasks')
elseif kind == 'activity' then
  redis.call('RPUSH', p .. 'activity', ARGV[3])
  redis.call('LTRIM', p .. 'activity', -${capacity}, -1)
  change.value = ARGV[3]
elseif kind == 'completed' then change.id = ARGV[3] end
redis.call('PUBLISH', p .. 'changes', cjson.encode(change))
return { v, change.value or 0 }
`
}).withReturnType<readonly [number, string | number]>()

const snapshot = Redis.script((prefix: string) => [prefix], {
  numberOfKeys: 0,
  lua: `
local p = ARGV[1]
return {
  tonumber(redis.call('GET', p .. 'version') or '0'),
  redis.call('GET', p .. 'focus') or false,
  tonumber(redis.call('GET', p .. 'laps') or '0'),
  redis.call('HGETALL', p .. 'tasks'),
  redis.call('LRANGE', p .. 'activity', 0, -1)
}
`
}).withReturnType<readonly [number, string | null, number, ReadonlyArray<string>, ReadonlyArray<string>]>()

/**
 * The board in Redis (keys under `prefix`), mirrored here for the scope's life. A Redis that fails
 * a write fails the procedure that made it (a defect the tool answers as an error).
 */
export const redis = (
  prefix = "effect-surface:board:"
): Effect.Effect<BoardState, Redis.RedisError, Scope.Scope | Redis.Redis> =>
  Effect.gen(function*() {
    const client = yield* Redis.Redis
    const local = yield* memory
    const completed = yield* PubSub.unbounded<{ readonly id: string }>()
    // Subscribed before the snapshot is read, so nothing written in between is missed.
    const changes = yield* client.subscribe(`${prefix}changes`)
    const [version, focus, laps, tasks, activity] = yield* client.eval(snapshot)(prefix)
    const seen = new Map<string, number>()
    const mirror = {
      local,
      completed,
      // One version per member (a task per id), applied once and only forward; the oldest
      // remembered go first past a bound.
      fresh: (member: string, v: number) => {
        if (v <= version || (seen.get(member) ?? 0) >= v) return false
        seen.delete(member)
        seen.set(member, v)
        for (const key of seen.keys()) {
          if (seen.size <= 4096) break
          seen.delete(key)
        }
        return true
      }
    }
    yield* SubscriptionRef.set(local.focus, focus ?? "nothing yet")
    yield* SubscriptionRef.set(local.laps, laps)
    const loaded: Array<readonly [string, Task]> = []
    for (let i = 0; i + 1 < tasks.length; i += 2) {
      const task = decodeTask(tasks[i + 1])
      if (Result.isSuccess(task)) loaded.push([tasks[i]!, task.success])
    }
    yield* local.tasks.replace(loaded)
    yield* local.activity.append(...activity)
    yield* Stream.fromQueue(changes).pipe(
      Stream.runForEach((message) =>
        Result.match(decodeChange(message.message), {
          onFailure: (issue) => Effect.logWarning(`board change dropped: ${String(issue)}`),
          onSuccess: (change) => apply(mirror, change)
        })
      ),
      Effect.catch((error) => Effect.logWarning(`board changes stopped: ${String(error.cause)}`)),
      Effect.forkScoped
    )
    const run = (kind: string, ...args: ReadonlyArray<string>) =>
      Effect.flatMap(Effect.orDie(client.eval(write)(prefix, kind, ...args)), ([v, value]) => {
        // Applied here at once, so a read right after the write sees it.
        const change = Option.getOrUndefined(
          Result.getSuccess(decodeChange(JSON.stringify(changeOf(kind, v, value, args))))
        )
        return Effect.as(change === undefined ? Effect.void : apply(mirror, change), value)
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
        Effect.map(Effect.orDie(client.send<string | null>("HGET", `${prefix}tasks`, id)), (json) =>
          json === null ? Option.none() : Result.getSuccess(decodeTask(json))),
      nextId: Effect.orDie(client.send<number>("INCR", `${prefix}ids`)),
      lap: Effect.map(run("laps"), Number)
    }
  })

const changeOf = (kind: string, v: number, value: string | number, args: ReadonlyArray<string>) => {
  switch (kind) {
    case "task":
      return { kind, v, id: args[0], value: args[1] }
    case "completed":
      return { kind, v, id: args[0] }
    case "cleared":
      return { kind, v }
    default:
      return { kind, v, value }
  }
}

interface Mirror {
  readonly local: BoardState
  readonly completed: PubSub.PubSub<{ readonly id: string }>
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
      return mirror.fresh(`task ${change.id}`, change.v) && Result.isSuccess(task)
        ? local.tasks.set(change.id, task.success) : Effect.void
    }
    case "cleared":
      return mirror.fresh("tasks", change.v) ? local.tasks.replace([]) : Effect.void
    case "activity":
      return mirror.fresh(`activity ${change.v}`, change.v) ? local.activity.append(change.value) : Effect.void
    case "completed":
      return mirror.fresh(`completed ${change.v}`, change.v)
        ? Effect.asVoid(PubSub.publish(mirror.completed, { id: change.id })) : Effect.void
  }
}
