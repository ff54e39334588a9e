/**
 * Tasks shared by the instances on one Redis: any instance answers for any task.
 *
 * A task runs on the instance that started its call, but the client polling it may land on any.
 * So the instance running a task writes each move of it to Redis (the newest move wins; kept for
 * the task's time to live) and announces it; another instance reads the task there, hands an update
 * or a cancel to the runner's inbox and waits for its reply, and tells its listeners of the moves
 * it hears announced. A task whose runner no longer beats (its heartbeat key gone) is reported
 * failed by whoever reads it. Every message is decoded before it is acted on; one that does not
 * decode is logged and dropped.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Redis from "effect/persistence/Redis"
import * as Crypto from "node:crypto"
import * as RedisCall from "../../transport/redisCall.ts"
import * as Cluster from "./cluster.ts"
import type * as Tasks from "./tasks.ts"

/** The store, and where forwarded ops are applied (once the tasks table is known). */
export interface TaskStore extends Tasks.Store {
  readonly serve: (tasks: Tasks.Table) => void
  /** How many forwarded ops wait for their reply now. */
  readonly waiting: Effect.Effect<number>
}

const JsonObject = Schema.Record(Schema.String, Schema.Unknown)

const Stored = Schema.Struct({ owner: Schema.String, caller: Schema.String, version: Schema.Int, view: JsonObject })

const decodeStored = Schema.decodeUnknownResult(Schema.fromJsonString(Stored))

const Op = Schema.Union([
  Schema.Struct({ _tag: Schema.Literal("Update"), responses: JsonObject }),
  Schema.Struct({ _tag: Schema.Literal("Cancel") })
])

const Reply = Schema.Union([
  Schema.Struct({ _tag: Schema.Literal("Ack") }),
  Schema.Struct({
    _tag: Schema.Literal("Refused"),
    error: Schema.Struct({ code: Schema.Int, message: Schema.String, data: Schema.optionalKey(JsonObject) })
  })
])

const Message = Schema.Union([
  Schema.Struct({
    kind: Schema.Literal("op"),
    ticket: Schema.String,
    from: Schema.String,
    taskId: Schema.String,
    op: Op
  }),
  Schema.Struct({ kind: Schema.Literal("reply"), ticket: Schema.String, reply: Reply }),
  Schema.Struct({ kind: Schema.Literal("moved"), taskId: Schema.String })
])

type Message = typeof Message.Type

// A reply as it travels: an error's data only when it has some.
const toWire = (reply: Tasks.Reply): typeof Reply.Type => {
  if (reply._tag === "Ack") return reply
  const { code, data, message } = reply.error
  return { _tag: "Refused", error: data === undefined ? { code, message } : { code, message, data } }
}

const decode = Schema.decodeUnknownResult(Schema.fromJsonString(Message))

// Write unless a newer move is there, and announce the move written.
const saveScript = `
local current = redis.call('GET', KEYS[1])
if current then
  local ok, decoded = pcall(cjson.decode, current)
  if ok and type(decoded) == 'table' and tonumber(decoded.version) ~= nil and tonumber(decoded.version) >= tonumber(ARGV[2]) then
    return 0
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
`

interface State {
  readonly config: Cluster.Config
  readonly instance: string
  readonly redis: Redis.Redis["Service"]
  readonly waiting: Map<string, Deferred.Deferred<Tasks.Reply>>
  readonly followers: Map<string, Set<() => void>>
  readonly runFork: <A, E>(effect: Effect.Effect<A, E>) => unknown
  tasks: Tasks.Table | undefined
}

const taskKey = (config: Cluster.Config, taskId: string) => `${config.prefix}m:task:${taskId}`
const inboxOf = (config: Cluster.Config, instance: string) => `${config.prefix}m:tasks:${instance}`
const movesOf = (config: Cluster.Config) => `${config.prefix}m:tasks`

const call = <A>(state: State, effect: Effect.Effect<A, Redis.RedisError>) =>
  RedisCall.bounded(effect, state.config.timeout, (reason) => new Error(reason))

const publish = (state: State, channel: string, message: Message) =>
  Effect.asVoid(call(state, state.redis.send("PUBLISH", channel, JSON.stringify(message))))

const receive = (state: State, message: Message): Effect.Effect<void> => {
  switch (message.kind) {
    case "op":
      return Effect.suspend(() => {
        const tasks = state.tasks
        if (tasks === undefined) return Effect.void
        return Effect.flatMap(
          tasks.applyHere(message.taskId, message.op),
          (reply) =>
            Effect.catch(
              publish(state, inboxOf(state.config, message.from), {
                kind: "reply",
                ticket: message.ticket,
                reply: toWire(reply)
              }),
              (error) => Effect.logWarning(`MCP task reply to instance ${message.from} not sent: ${error.message}`)
            )
        )
      })
    case "reply":
      return Effect.suspend(() => {
        const waiting = state.waiting.get(message.ticket)
        return waiting === undefined ? Effect.void : Deferred.succeed(waiting, message.reply as Tasks.Reply)
      })
    case "moved":
      return Effect.sync(() => {
        for (const moved of state.followers.get(message.taskId) ?? []) moved()
      })
  }
}

const save = (state: State) => (stored: Tasks.Stored, ttlMs: number) =>
  Effect.asVoid(call(
    state,
    state.redis.send(
      "EVAL",
      saveScript,
      "1",
      taskKey(state.config, String(stored.view["taskId"])),
      JSON.stringify(stored),
      String(stored.version),
      String(Math.max(1, Math.round(ttlMs))),
      movesOf(state.config),
      JSON.stringify({ kind: "moved", taskId: String(stored.view["taskId"]) } satisfies Message)
    )
  ))

const load = (state: State) => (taskId: string) =>
  Effect.flatMap(call(state, state.redis.send<string | null>("GET", taskKey(state.config, taskId))), (text) => {
    if (text === null) return Effect.succeed(undefined)
    const stored = decodeStored(text)
    return Result.isSuccess(stored)
      ? Effect.succeed(stored.success as Tasks.Stored)
      : Effect.fail(new Error(`task ${taskId} is stored in a shape this instance cannot read`))
  })

// The ticket is dropped however the wait ends (a reply, its time running out, an interrupt).
const forward = (state: State) => (owner: string, taskId: string, op: Tasks.Op) => {
  const ticket = Crypto.randomBytes(12).toString("base64url")
  return Effect.gen(function*() {
    const reply = yield* Deferred.make<Tasks.Reply>()
    state.waiting.set(ticket, reply)
    yield* publish(state, inboxOf(state.config, owner), {
      kind: "op",
      ticket,
      from: state.instance,
      taskId,
      op: op._tag === "Update" ? { _tag: "Update", responses: { ...op.responses } } : op
    })
    return yield* Deferred.await(reply).pipe(
      Effect.timeoutOrElse({
        duration: state.config.timeout,
        orElse: () =>
          Effect.fail(
            new Error(`instance ${owner} did not answer within ${Duration.format(state.config.timeout)}`)
          )
      })
    )
  }).pipe(Effect.ensuring(Effect.sync(() => state.waiting.delete(ticket))))
}

const follow = (state: State) => (taskId: string, moved: () => void): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const followers = state.followers.get(taskId) ?? new Set()
      followers.add(moved)
      state.followers.set(taskId, followers)
    }),
    () =>
      Effect.sync(() => {
        const followers = state.followers.get(taskId)
        followers?.delete(moved)
        if (followers?.size === 0) state.followers.delete(taskId)
      })
  )

/**
 * Share this instance's tasks with the others on `config.prefix`, for the scope's life: listening
 * on its task inbox and the channel where moves are announced.
 */
export const make = (
  config: Cluster.Config,
  instance: string
): Effect.Effect<TaskStore, never, Scope.Scope | Redis.Redis> =>
  Effect.gen(function*() {
    const redis = yield* Redis.Redis
    const state: State = {
      config,
      instance,
      redis,
      waiting: new Map(),
      followers: new Map(),
      runFork: Effect.runForkWith(yield* Effect.context<never>()),
      tasks: undefined
    }
    const onText = (text: string) =>
      Result.match(decode(text), {
        onFailure: (issue) => Effect.logWarning(`MCP task message dropped: ${String(issue)}`),
        onSuccess: (message) => receive(state, message)
      })
    yield* RedisCall.subscribeText(redis, inboxOf(config, instance), onText)
    yield* RedisCall.subscribeText(redis, movesOf(config), onText)
    return {
      save: save(state),
      load: load(state),
      forward: forward(state),
      alive: (owner) =>
        Effect.map(
          call(state, redis.send<number>("EXISTS", Cluster.liveKey(config, owner))),
          (exists) => exists === 1
        ),
      follow: follow(state),
      serve: (tasks) => {
        state.tasks = tasks
      },
      waiting: Effect.sync(() => state.waiting.size)
    }
  })
