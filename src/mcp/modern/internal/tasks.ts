/**
 * Calls that go on as tasks: the `io.modelcontextprotocol/tasks` extension of 2026-07-28.
 *
 * A call that outlasts its request — a build, an export — is answered with a task instead of a
 * result; the client polls `tasks/get` for its status and, at the end, its result, answers the
 * questions it asks with `tasks/update`, and may cancel it. A task here is the call's own fiber,
 * owned by the face and not by the request that started it: a dropped connection does not end it,
 * and `tasks/cancel` ends it through its finalizers. Its status is read off the call as it stands
 * (a question waiting is `input_required`, its progress the status message); it and its result
 * (bounded in size) are kept for the task's time to live. With a store (instances on Redis) every
 * move is written where every instance reads it, updates and cancels asked of another instance
 * reach this one, and a task whose instance died is reported failed.
 *
 * @internal
 */
import { Cause, Clock, Effect, Exit, Fiber, FiberSet, Result } from "effect"
import type { Scope } from "effect"
import * as Crypto from "node:crypto"
import * as Identity from "../../../core/Identity.ts"
import type * as Json from "../../../core/Json.ts"
import type * as Progress from "../../../core/Progress.ts"
import type * as RpcError from "../../RpcError.ts"
import type * as Tasks from "../Tasks.ts"
import * as Wire from "../Wire.ts"
import * as Asking from "./asking.ts"
import * as Calls from "./calls.ts"

/** How a task ended. */
type End =
  | { readonly _tag: "Completed"; readonly result: Json.JsonObject }
  | { readonly _tag: "Failed"; readonly error: RpcError.Rpc }
  | { readonly _tag: "Cancelled" }

interface Task {
  readonly id: string
  readonly call: Asking.Call
  readonly createdAt: number
  lastUpdatedAt: number
  statusMessage: string | undefined
  end: End | undefined
  /** Counts the moves, so the newest is what the instances keep. */
  version: number
  readonly watchers: Set<Watcher>
  saving: boolean
  dirty: boolean
}

/** A task as `tasks/get` shows it, less its `resultType`: what `notifications/tasks` carries too. */
export type View = Json.JsonObject

/** Someone following a task's moves (a listen stream). */
export type Watcher = (view: View) => void

/** A task as the instances share it: who runs it, its move, and how it stands. */
export interface Stored {
  readonly owner: string
  /** Whose task it is (`holderOf` the caller that started it): only that caller is shown it. */
  readonly caller: string
  readonly version: number
  readonly view: View
}

/**
 * The key a task is held by: the caller that started it. A task is shown, updated and cancelled
 * for that caller only; to anyone else it does not exist.
 */
export const holderOf: (caller: Identity.Principal) => string = Identity.holder

/** What a client asks of a task: answers to its questions, or its end. */
export type Op =
  | { readonly _tag: "Update"; readonly responses: { readonly [key: string]: unknown } }
  | { readonly _tag: "Cancel" }

/** How an update or a cancel went. */
export type Reply = { readonly _tag: "Ack" } | { readonly _tag: "Refused"; readonly error: RpcError.Rpc }

/** Where tasks are shared between instances (Redis). */
export interface Store {
  /** Write a task's state for `ttlMs`, unless a newer move of it is there already. */
  readonly save: (stored: Stored, ttlMs: number) => Effect.Effect<void, Error>
  readonly load: (taskId: string) => Effect.Effect<Stored | undefined, Error>
  /** Hand an op to the instance running the task, and its reply back. */
  readonly forward: (owner: string, taskId: string, op: Op) => Effect.Effect<Reply, Error>
  readonly alive: (owner: string) => Effect.Effect<boolean, Error>
  /** Hear each move of a task run elsewhere, for the scope's life. */
  readonly follow: (taskId: string, moved: () => void) => Effect.Effect<void, never, Scope.Scope>
}

/** A face's tasks. */
export interface Table {
  readonly settings: Tasks.Settings
  /** What the calls table makes tasks with. */
  readonly tasking: Calls.Tasking
  /**
   * A task as `tasks/get` shows it to `caller`, wherever it runs, or the error saying why there is
   * none (a task another caller started is, to this one, unknown).
   */
  readonly get: (taskId: string, caller?: Identity.Principal) => Effect.Effect<Result.Result<View, RpcError.Rpc>>
  /** Update or cancel a task of `caller`'s, wherever it runs. */
  readonly apply: (taskId: string, op: Op, caller?: Identity.Principal) => Effect.Effect<Reply>
  /** Update or cancel a task run here (what another instance forwards). */
  readonly applyHere: (taskId: string, op: Op) => Effect.Effect<Reply>
  /** Follow a task of `caller`'s for the scope's life; `false` when it knows no such task. */
  readonly watch: (
    taskId: string,
    watcher: Watcher,
    caller?: Identity.Principal
  ) => Effect.Effect<boolean, never, Scope.Scope>
  /** How many tasks are kept here. */
  readonly size: Effect.Effect<number>
}

interface State {
  readonly settings: Tasks.Settings
  readonly instance: string
  readonly store: Store | undefined
  readonly tasks: Map<string, Task>
  readonly fibers: FiberSet.FiberSet<unknown, unknown>
  readonly runFork: <A, E>(effect: Effect.Effect<A, E>) => Fiber.Fiber<A, E>
  readonly now: () => number
}

const terminal: ReadonlySet<unknown> = new Set(["completed", "failed", "cancelled"])

const statusOf = (task: Task): string =>
  task.end === undefined
    ? task.call.pending.size > 0 ? "input_required" : "working"
    : task.end._tag === "Completed"
    ? "completed"
    : task.end._tag === "Failed"
    ? "failed"
    : "cancelled"

// What every form of the task carries: the create result, tasks/get and its notifications.
const head = (state: State, task: Task): Json.JsonObject => ({
  taskId: task.id,
  status: statusOf(task),
  ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
  createdAt: new Date(task.createdAt).toISOString(),
  lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
  ttlMs: state.settings.ttlMs,
  pollIntervalMs: state.settings.pollIntervalMs
})

const view = (state: State, task: Task): View => {
  const { end } = task
  if (end?._tag === "Completed") return { ...head(state, task), result: end.result }
  if (end?._tag === "Failed") return { ...head(state, task), error: { ...end.error } as Json.JsonObject }
  if (end !== undefined || task.call.pending.size === 0) return head(state, task)
  const inputRequests: Record<string, Json.JsonObject> = {}
  for (const [key, question] of task.call.pending) inputRequests[key] = question.request as unknown as Json.JsonObject
  return { ...head(state, task), inputRequests }
}

const track = <A, E>(state: State, effect: Effect.Effect<A, E>) => {
  const fiber = state.runFork(effect)
  FiberSet.addUnsafe(state.fibers, fiber)
  return fiber
}

// --- moves ----------------------------------------------------------------------------------------

const save = (state: State, task: Task): Effect.Effect<void> => {
  const { store } = state
  if (store === undefined) return Effect.void
  const left = task.createdAt + state.settings.ttlMs - state.now()
  const stored = {
    owner: state.instance,
    caller: holderOf(task.call.caller),
    version: task.version,
    view: view(state, task)
  }
  return store.save(stored, Math.max(1, left)).pipe(
    Effect.catch((error) =>
      Effect.logWarning(`MCP task ${task.id} not written to the instances' store: ${error.message}`)
    )
  )
}

// Moves come in bursts (progress): one write at a time, the last always written.
const persist = (state: State, task: Task) => {
  if (state.store === undefined) return
  if (task.saving) {
    task.dirty = true
    return
  }
  task.saving = true
  const loop: Effect.Effect<void> = Effect.andThen(
    Effect.suspend(() => save(state, task)),
    Effect.suspend(() => {
      if (!task.dirty) {
        task.saving = false
        return Effect.void
      }
      task.dirty = false
      return loop
    })
  )
  track(state, loop)
}

const changed = (state: State, task: Task) => {
  task.version++
  task.lastUpdatedAt = Math.max(task.lastUpdatedAt, state.now())
  const current = view(state, task)
  for (const watcher of task.watchers) watcher(current)
  persist(state, task)
}

const progressMessage = (update: Progress.Update) =>
  update.message ??
    (update.total === undefined ? `${update.progress} done` : `${update.progress} of ${update.total} done`)

// A call over is completed (a tool's error included) or failed (a JSON-RPC error); one stopped
// by anything but a cancel or its time running out was stopped by its server going away.
const ended = (state: State, task: Task, exit: Exit.Exit<Json.JsonObject, RpcError.Refusal>) => {
  if (task.end !== undefined) return
  if (Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)) {
    return fail(state, task, "the task was stopped before it finished: its server is shutting down")
  }
  const outcome = Calls.outcomeOf(task.call, exit)
  if (outcome._tag === "Complete") {
    const result: Json.JsonObject = { ...outcome.result, resultType: "complete" }
    const bytes = Buffer.byteLength(JSON.stringify(result))
    if (bytes > state.settings.maxResultBytes) {
      return fail(
        state,
        task,
        `the task's result is ${bytes} bytes, over the ${state.settings.maxResultBytes} bytes this server keeps`
      )
    }
    task.end = { _tag: "Completed", result }
  } else {
    const error = outcome._tag === "Error"
      ? outcome.error
      : { code: Wire.codes.internalError, message: "the task ended without a result" }
    task.end = { _tag: "Failed", error }
    task.statusMessage = error.message
  }
  changed(state, task)
}

const fail = (state: State, task: Task, message: string) => {
  task.end = { _tag: "Failed", error: { code: Wire.codes.internalError, message } }
  task.statusMessage = message
  changed(state, task)
}

// Ends the call's fiber through its finalizers, without holding up whoever ended it.
const stop = (state: State, task: Task) => {
  const fiber = task.call.fiber
  if (fiber !== undefined) track(state, Fiber.interrupt(fiber))
}

// Kept for its time to live from its creation; one still running then is stopped, saying why.
const expire = (state: State, task: Task) =>
  Effect.sync(() => {
    if (task.end === undefined) {
      fail(state, task, `the task outlived its time to live (${state.settings.ttlMs} ms) and was stopped`)
      stop(state, task)
    }
    state.tasks.delete(task.id)
    task.watchers.clear()
  })

const become = (state: State) => (call: Asking.Call) => {
  const now = state.now()
  const task: Task = {
    id: Crypto.randomUUID(),
    call,
    createdAt: now,
    lastUpdatedAt: now,
    statusMessage: undefined,
    end: undefined,
    version: 0,
    watchers: new Set(),
    saving: false,
    dirty: false
  }
  state.tasks.set(task.id, task)
  call.task = {
    changed: () => changed(state, task),
    progress: (update) => {
      task.statusMessage = progressMessage(update)
      changed(state, task)
    }
  }
  if (call.ended !== undefined) ended(state, task, call.ended)
  else call.fiber?.addObserver((exit) => ended(state, task, exit))
  track(state, Effect.andThen(Effect.sleep(state.settings.ttlMs), expire(state, task)))
  return { created: { resultType: "task", ...head(state, task) }, saved: save(state, task) }
}

// --- what clients ask ---------------------------------------------------------------------------

const unknown = (taskId: string): RpcError.Rpc => ({
  code: Wire.codes.invalidParams,
  message: `Failed to retrieve task: no task "${taskId}" (it never was, or its time to live has passed)`
})

const unreadable = (error: Error): RpcError.Rpc => ({
  code: Wire.codes.internalError,
  message: `the task could not be read from the instances' store: ${error.message}`
})

const applyHere = (state: State) => (taskId: string, op: Op): Effect.Effect<Reply> =>
  Effect.suspend(() => {
    const task = state.tasks.get(taskId)
    if (task === undefined) return Effect.succeed<Reply>({ _tag: "Refused", error: unknown(taskId) })
    // A task that has ended takes nothing more, and says so by acknowledging.
    if (task.end !== undefined) return Effect.succeed<Reply>({ _tag: "Ack" })
    if (op._tag === "Cancel") {
      task.end = { _tag: "Cancelled" }
      task.statusMessage = "cancelled at the client's request"
      changed(state, task)
      stop(state, task)
      return Effect.as(save(state, task), { _tag: "Ack" } as const)
    }
    const delivery = Asking.deliver(task.call, op.responses)
    if (Result.isFailure(delivery)) {
      return Effect.succeed<Reply>({
        _tag: "Refused",
        error: { code: Wire.codes.invalidParams, message: delivery.failure }
      })
    }
    // The answers leave the task's questions before the acknowledgement, here and in the store.
    return delivery.success.pipe(Effect.andThen(save(state, task)), Effect.as({ _tag: "Ack" } as const))
  })

// A task run by an instance that has gone is over: failed, saying so, for every instance that asks.
const orphaned = (state: State, store: Store, stored: Stored): Effect.Effect<View> => {
  const message = `the task was lost: instance ${stored.owner}, which ran it, stopped before it finished`
  const { inputRequests: _, ...rest } = stored.view
  const failed: View = {
    ...rest,
    status: "failed",
    statusMessage: message,
    lastUpdatedAt: new Date(state.now()).toISOString(),
    error: { code: Wire.codes.internalError, message }
  }
  const ttl = typeof stored.view["ttlMs"] === "number" ? stored.view["ttlMs"] : state.settings.ttlMs
  const created = Date.parse(String(stored.view["createdAt"]))
  return store.save({ ...stored, version: stored.version + 1, view: failed }, Math.max(1, created + ttl - state.now()))
    .pipe(Effect.ignore, Effect.as(failed))
}

// A task stored by another instance, as it stands now.
const shared = (
  state: State,
  store: Store,
  taskId: string,
  caller: Identity.Principal
): Effect.Effect<Result.Result<Stored, RpcError.Rpc>, Error> =>
  Effect.gen(function*() {
    const stored = yield* store.load(taskId)
    if (stored === undefined || stored.caller !== holderOf(caller)) return Result.fail(unknown(taskId))
    if (terminal.has(stored.view["status"]) || stored.owner === state.instance) return Result.succeed(stored)
    const living = yield* store.alive(stored.owner)
    if (living) return Result.succeed(stored)
    return Result.succeed({ ...stored, view: yield* orphaned(state, store, stored) })
  })

// A task run here, when it is `caller`'s; another caller's is not there for this one.
const ownTask = (state: State, taskId: string, caller: Identity.Principal) => {
  const task = state.tasks.get(taskId)
  return task !== undefined && holderOf(task.call.caller) === holderOf(caller) ? task : undefined
}

const get = (state: State) =>
(
  taskId: string,
  caller: Identity.Principal = Identity.local
): Effect.Effect<Result.Result<View, RpcError.Rpc>> =>
  Effect.suspend(() => {
    const task = ownTask(state, taskId, caller)
    if (task !== undefined) return Effect.succeed(Result.succeed(view(state, task)))
    const { store } = state
    if (store === undefined || state.tasks.has(taskId)) return Effect.succeed(Result.fail(unknown(taskId)))
    return shared(state, store, taskId, caller).pipe(
      Effect.map(Result.map((stored) => stored.view)),
      Effect.catch((error) => Effect.succeed(Result.fail(unreadable(error))))
    )
  })

const apply = (state: State) =>
(
  taskId: string,
  op: Op,
  caller: Identity.Principal = Identity.local
): Effect.Effect<Reply> =>
  Effect.suspend(() => {
    const { store } = state
    if (ownTask(state, taskId, caller) !== undefined) return applyHere(state)(taskId, op)
    if (state.tasks.has(taskId) || store === undefined) {
      return Effect.succeed<Reply>({ _tag: "Refused", error: unknown(taskId) })
    }
    return shared(state, store, taskId, caller).pipe(
      Effect.flatMap((found): Effect.Effect<Reply, Error> => {
        if (Result.isFailure(found)) return Effect.succeed({ _tag: "Refused", error: found.failure })
        const stored = found.success
        if (terminal.has(stored.view["status"])) return Effect.succeed({ _tag: "Ack" })
        return store.forward(stored.owner, taskId, op)
      }),
      Effect.catch((error) =>
        Effect.succeed<Reply>({
          _tag: "Refused",
          error: {
            code: Wire.codes.internalError,
            message: `the instance running the task could not be reached: ${error.message}`
          }
        })
      )
    )
  })

const watch = (state: State) =>
(
  taskId: string,
  watcher: Watcher,
  caller: Identity.Principal = Identity.local
): Effect.Effect<boolean, never, Scope.Scope> =>
  Effect.suspend(() => {
    const task = ownTask(state, taskId, caller)
    if (task !== undefined) {
      return Effect.as(
        Effect.acquireRelease(
          Effect.sync(() => task.watchers.add(watcher)),
          () => Effect.sync(() => task.watchers.delete(watcher))
        ),
        true
      )
    }
    const { store } = state
    if (store === undefined || state.tasks.has(taskId)) return Effect.succeed(false)
    const hear = Effect.flatMap(Effect.result(shared(state, store, taskId, caller)), (found) =>
      Effect.sync(() => {
        if (Result.isSuccess(found) && Result.isSuccess(found.success)) watcher(found.success.success.view)
      }))
    return Effect.flatMap(
      Effect.result(store.load(taskId)),
      (found) =>
        Result.isFailure(found) || found.success === undefined || found.success.caller !== holderOf(caller)
          ? Effect.succeed(false)
          : Effect.as(store.follow(taskId, () => state.runFork(hear)), true)
    )
  })

/**
 * The tasks of one face, for the scope's life: closing it stops every task still running (each
 * reported failed, saying why). `instance` names this one to the others sharing `store`.
 */
export const make = (options: {
  readonly settings: Tasks.Settings
  readonly instance: string
  readonly store?: Store | undefined
}): Effect.Effect<Table, never, Scope.Scope> =>
  Effect.gen(function*() {
    const clock = yield* Clock.Clock
    const state: State = {
      settings: options.settings,
      instance: options.instance,
      store: options.store,
      tasks: new Map(),
      fibers: yield* FiberSet.make(),
      runFork: Effect.runForkWith(yield* Effect.context<never>()),
      now: () => clock.currentTimeMillisUnsafe()
    }
    return {
      settings: options.settings,
      tasking: { after: options.settings.after, become: become(state) },
      get: get(state),
      apply: apply(state),
      applyHere: applyHere(state),
      watch: watch(state),
      size: Effect.sync(() => state.tasks.size)
    }
  })
