/**
 * Tasks as the instances on one store share them: the vocabulary they exchange, and how one
 * instance reads, asks and follows a task that another runs.
 *
 * A task runs on the instance that started its call; a client polling it may land on any other.
 * That instance finds the task's last move in the store, forwards an update or a cancel to the
 * runner, and tells its listeners the moves it hears announced, newest only. A task whose runner
 * stopped beating is over: whoever reads it first records it failed, saying so, for all the others.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import * as Identity from "../../../core/Identity.ts"
import type * as Json from "../../../core/Json.ts"
import type * as RpcError from "../../face/RpcError.ts"
import * as Wire from "../../../protocol/v2026/Messages.ts"

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

/** What reading another instance's task needs of this one. */
export interface Elsewhere {
  readonly store: Store
  readonly instance: string
  /** This face's time to live, for a stored task that does not say its own. */
  readonly ttlMs: number
  readonly now: () => number
  readonly runFork: <A, E>(effect: Effect.Effect<A, E>) => unknown
}

/** The statuses a task never leaves. */
export const terminal: ReadonlySet<unknown> = new Set(["completed", "failed", "cancelled"])

/** What a client is told of a task no instance knows. */
export const unknown = (taskId: string): RpcError.Rpc => ({
  code: Wire.codes.invalidParams,
  message: `Failed to retrieve task: no task "${taskId}" (it never was, or its time to live has passed)`
})

// A task run by an instance that has gone is over: failed, saying so, for every instance that asks.
const orphaned = (here: Elsewhere, stored: Stored): Effect.Effect<View> => {
  const message = `the task was lost: instance ${stored.owner}, which ran it, stopped before it finished`
  const { inputRequests: _, ...rest } = stored.view
  const failed: View = {
    ...rest,
    status: "failed",
    statusMessage: message,
    lastUpdatedAt: new Date(here.now()).toISOString(),
    error: { code: Wire.codes.internalError, message }
  }
  const ttl = typeof stored.view["ttlMs"] === "number" ? stored.view["ttlMs"] : here.ttlMs
  const created = Date.parse(String(stored.view["createdAt"]))
  return here.store.save(
    { ...stored, version: stored.version + 1, view: failed },
    Math.max(1, created + ttl - here.now())
  )
    .pipe(Effect.ignore, Effect.as(failed))
}

// A task of `holder`'s stored by another instance, as it stands now; another caller's is unknown.
const read = (
  here: Elsewhere,
  taskId: string,
  holder: string
): Effect.Effect<Result.Result<Stored, RpcError.Rpc>, Error> =>
  Effect.gen(function*() {
    const stored = yield* here.store.load(taskId)
    if (stored === undefined || stored.caller !== holder) return Result.fail(unknown(taskId))
    if (terminal.has(stored.view["status"]) || stored.owner === here.instance) return Result.succeed(stored)
    const living = yield* here.store.alive(stored.owner)
    if (living) return Result.succeed(stored)
    return Result.succeed({ ...stored, version: stored.version + 1, view: yield* orphaned(here, stored) })
  })

/** A task of `holder`'s run elsewhere as `tasks/get` shows it, or the error saying why there is none. */
export const get = (
  here: Elsewhere,
  taskId: string,
  holder: string
): Effect.Effect<Result.Result<View, RpcError.Rpc>> =>
  read(here, taskId, holder).pipe(
    Effect.map(Result.map((stored) => stored.view)),
    Effect.catch((error) =>
      Effect.succeed(Result.fail({
        code: Wire.codes.internalError,
        message: `the task could not be read from the instances' store: ${error.message}`
      }))
    )
  )

/** Update or cancel a task of `holder`'s run elsewhere: forwarded to its runner, unless it has ended. */
export const apply = (here: Elsewhere, taskId: string, op: Op, holder: string): Effect.Effect<Reply> =>
  read(here, taskId, holder).pipe(
    Effect.flatMap((found): Effect.Effect<Reply, Error> => {
      if (Result.isFailure(found)) return Effect.succeed({ _tag: "Refused", error: found.failure })
      const stored = found.success
      // A task that has ended takes nothing more, and says so by acknowledging.
      if (terminal.has(stored.view["status"])) return Effect.succeed({ _tag: "Ack" })
      return here.store.forward(stored.owner, taskId, op)
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

/**
 * Follow a task of `holder`'s run elsewhere for the scope's life: the effect telling the watcher how
 * it stands now, or `undefined` when the store has no such task of theirs.
 */
export const follow = (
  here: Elsewhere,
  taskId: string,
  watcher: Watcher,
  holder: string
): Effect.Effect<Effect.Effect<void> | undefined, never, Scope.Scope> => {
  // Reads of announced moves may finish out of order: the watcher hears only newer ones.
  let told = -1
  const hear = Effect.flatMap(Effect.result(read(here, taskId, holder)), (found) =>
    Effect.sync(() => {
      if (Result.isFailure(found) || Result.isFailure(found.success)) return
      const stored = found.success.success
      if (stored.version <= told) return
      told = stored.version
      watcher(stored.view)
    }))
  return Effect.flatMap(
    Effect.result(here.store.load(taskId)),
    (found) =>
      Result.isFailure(found) || found.success === undefined || found.success.caller !== holder
        ? Effect.succeed(undefined)
        : Effect.as(here.store.follow(taskId, () => here.runFork(hear)), hear)
  )
}
