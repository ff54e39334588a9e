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
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import * as Crypto from "node:crypto"
import * as Identity from "../../../core/Identity.ts"
import type * as Json from "../../../core/Json.ts"
import type * as Progress from "../../../core/Progress.ts"
import type * as RpcError from "../../face/RpcError.ts"
import type * as Tasks from "../Tasks.ts"
import * as Wire from "../../../protocol/v2026/Messages.ts"
import * as Asking from "./asking.ts"
import * as Calls from "./calls.ts"
import * as Shared from "./sharedTasks.ts"
import type { Op, Reply, Store, View, Watcher } from "./sharedTasks.ts"

/** How a task ended. */
type End =
  | { readonly _tag: "Completed"; readonly result: Json.JsonObject }
  | { readonly _tag: "Failed"; readonly error: RpcError.Rpc }
  | { readonly _tag: "Cancelled" }

interface Task {
  readonly id: string
  /** Whose task it is (`holderOf` the caller that started it): only that caller is shown it. */
  readonly holder: string
  /** The call while it runs; let go once it has ended, so only what the task shows is kept. */
  call: Asking.Call | undefined
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

export { holderOf } from "./sharedTasks.ts"
export type { Op, Reply, Store, Stored, View, Watcher } from "./sharedTasks.ts"

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
  /**
   * Follow a task of `caller`'s for the scope's life: the effect that tells the watcher how the task
   * stands now (in order with its moves), or `undefined` when it knows no such task.
   */
  readonly watch: (
    taskId: string,
    watcher: Watcher,
    caller?: Identity.Principal
  ) => Effect.Effect<Effect.Effect<void> | undefined, never, Scope.Scope>
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

const statusOf = (task: Task): string =>
  task.end === undefined
    ? (task.call?.pending.size ?? 0) > 0 ? "input_required" : "working"
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
  const pending = task.call?.pending
  if (end !== undefined || pending === undefined || pending.size === 0) return head(state, task)
  const inputRequests: Record<string, Json.JsonObject> = {}
  for (const [key, question] of pending) inputRequests[key] = question.request as unknown as Json.JsonObject
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
  const stored = { owner: state.instance, caller: task.holder, version: task.version, view: view(state, task) }
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
const ended = (state: State, task: Task, exit: Exit.Exit<Json.JsonObject, RpcError.Refusal>): void => {
  const call = task.call
  if (task.end !== undefined || call === undefined) return
  if (Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)) {
    fail(state, task, "the task was stopped before it finished: its server is shutting down")
    return
  }
  const outcome = Calls.outcomeOf(call, exit)
  if (outcome._tag !== "Complete") {
    const error = outcome._tag === "Error"
      ? outcome.error
      : { code: Wire.codes.internalError, message: "the task ended without a result" }
    close(state, task, { _tag: "Failed", error }, error.message)
    return
  }
  const result: Json.JsonObject = { ...outcome.result, resultType: "complete" }
  const bytes = Buffer.byteLength(JSON.stringify(result))
  if (bytes > state.settings.maxResultBytes) {
    fail(
      state,
      task,
      `the task's result is ${bytes} bytes, over the ${state.settings.maxResultBytes} bytes this server keeps`
    )
    return
  }
  close(state, task, { _tag: "Completed", result })
}

// The task's end: told, and its call let go. What the call still runs (a cancelled or expired
// task's fiber) is returned for `stop`.
const close = (state: State, task: Task, end: End, message?: string) => {
  const fiber = task.call?.fiber
  task.end = end
  task.call = undefined
  if (message !== undefined) task.statusMessage = message
  changed(state, task)
  return fiber
}

const fail = (state: State, task: Task, message: string) =>
  close(state, task, { _tag: "Failed", error: { code: Wire.codes.internalError, message } }, message)

// Ends the call's fiber through its finalizers, without holding up whoever ended it.
const stop = (state: State, fiber: Fiber.Fiber<unknown, unknown> | undefined) => {
  if (fiber !== undefined) track(state, Fiber.interrupt(fiber))
}

// Kept for its time to live from its creation; one still running then is stopped, saying why.
const expire = (state: State, task: Task) =>
  Effect.sync(() => {
    if (task.end === undefined) {
      stop(state, fail(state, task, `the task outlived its time to live (${state.settings.ttlMs} ms) and was stopped`))
    }
    state.tasks.delete(task.id)
    task.watchers.clear()
  })

const become = (state: State) => (call: Asking.Call) => {
  const now = state.now()
  const task: Task = {
    id: Crypto.randomUUID(),
    holder: Shared.holderOf(call.caller),
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

const applyHere = (state: State) => (taskId: string, op: Op): Effect.Effect<Reply> =>
  Effect.suspend(() => {
    const task = state.tasks.get(taskId)
    if (task === undefined) return Effect.succeed<Reply>({ _tag: "Refused", error: Shared.unknown(taskId) })
    // A task that has ended takes nothing more, and says so by acknowledging.
    if (task.end !== undefined) return Effect.succeed<Reply>({ _tag: "Ack" })
    const call = task.call
    if (call === undefined) return Effect.succeed<Reply>({ _tag: "Ack" })
    if (op._tag === "Cancel") {
      stop(state, close(state, task, { _tag: "Cancelled" }, "cancelled at the client's request"))
      return Effect.as(save(state, task), { _tag: "Ack" } as const)
    }
    const delivery = Asking.deliver(call, op.responses)
    if (Result.isFailure(delivery)) {
      return Effect.succeed<Reply>({
        _tag: "Refused",
        error: { code: Wire.codes.invalidParams, message: delivery.failure }
      })
    }
    // The answers leave the task's questions before the acknowledgement, here and in the store.
    return delivery.success.pipe(Effect.andThen(save(state, task)), Effect.as({ _tag: "Ack" } as const))
  })

// A task run here, when it is `caller`'s; another caller's is not there for this one.
const ownTask = (state: State, taskId: string, caller: Identity.Principal) => {
  const task = state.tasks.get(taskId)
  return task !== undefined && task.holder === Shared.holderOf(caller) ? task : undefined
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
    if (store === undefined || state.tasks.has(taskId)) return Effect.succeed(Result.fail(Shared.unknown(taskId)))
    return Shared.get(elsewhere(state, store), taskId, Shared.holderOf(caller))
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
    if (store === undefined || state.tasks.has(taskId)) {
      return Effect.succeed<Reply>({ _tag: "Refused", error: Shared.unknown(taskId) })
    }
    return Shared.apply(elsewhere(state, store), taskId, op, Shared.holderOf(caller))
  })

const watch = (state: State) =>
(
  taskId: string,
  watcher: Watcher,
  caller: Identity.Principal = Identity.local
): Effect.Effect<Effect.Effect<void> | undefined, never, Scope.Scope> =>
  Effect.suspend(() => {
    const task = ownTask(state, taskId, caller)
    if (task !== undefined) {
      return Effect.as(
        Effect.acquireRelease(
          Effect.sync(() => task.watchers.add(watcher)),
          () => Effect.sync(() => task.watchers.delete(watcher))
        ),
        Effect.sync(() => watcher(view(state, task)))
      )
    }
    const { store } = state
    if (store === undefined || state.tasks.has(taskId)) return Effect.succeed(undefined)
    return Shared.follow(elsewhere(state, store), taskId, watcher, Shared.holderOf(caller))
  })

// What reading a task run by another instance needs of this one.
const elsewhere = (state: State, store: Shared.Store): Shared.Elsewhere => ({
  store,
  instance: state.instance,
  ttlMs: state.settings.ttlMs,
  now: state.now,
  runFork: state.runFork
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
