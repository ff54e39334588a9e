/**
 * `subscriptions/listen`: the one long-lived request of 2026-07-28, carrying the change notices a
 * client opted in to.
 *
 * With no session there is nowhere else for the server to speak unprompted: a client that wants to
 * hear list moves or resource changes opens a listen request and keeps its response open. Each
 * stream is a member of the face's broadcaster, so a thousand listeners cost a thousand sends per
 * move, not a thousand followers, and a URI many of them hold is followed once. The stream opens
 * with the acknowledgement of what the server agreed to (a URI nothing serves is left out), every
 * notice carries the stream's subscription id, nothing is sent that was not asked for, and a server
 * that shuts down ends the stream with its response rather than a dropped connection.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Json from "../../../core/Json.ts"
import type * as Broadcast from "../../internal/broadcast.ts"
import * as Replies from "./replies.ts"
import type * as Requests from "./requests.ts"
import * as Identity from "../../../core/Identity.ts"
import * as Wire from "../Wire.ts"

/**
 * What a listener asked to hear, and (in the acknowledgement) what it will.
 */
export interface Filter {
  readonly toolsListChanged?: boolean
  readonly promptsListChanged?: boolean
  readonly resourcesListChanged?: boolean
  readonly resourceSubscriptions?: ReadonlyArray<string>
  /** Tasks whose every move is told (`notifications/tasks`), for a client that follows tasks. */
  readonly taskIds?: ReadonlyArray<string>
}

const FilterSchema = Schema.Struct({
  toolsListChanged: Schema.optionalKey(Schema.Boolean),
  promptsListChanged: Schema.optionalKey(Schema.Boolean),
  resourcesListChanged: Schema.optionalKey(Schema.Boolean),
  resourceSubscriptions: Schema.optionalKey(Schema.Array(Schema.String)),
  taskIds: Schema.optionalKey(Schema.Array(Schema.String))
})

const decodeFilter = Schema.decodeUnknownResult(FilterSchema)

/** A listen request read and ready to stream. */
export interface Prepared {
  readonly id: Wire.Id
  readonly asked: Filter
  /** Who listens: only its own tasks are followed. */
  readonly caller: Identity.Principal
}

/**
 * Read a listen request's filter: the request ready to stream, or the answer refusing it (-32602,
 * or -32021 for tasks asked by a client that does not follow them).
 */
export const prepare = (
  request: Requests.Request,
  envelope: Wire.Envelope
): Result.Result<Prepared, Requests.Answer> => {
  const decoded = decodeFilter(request.params["notifications"] ?? {})
  if (Result.isSuccess(decoded) && decoded.success.taskIds !== undefined && !envelope.capabilities.tasks) {
    return Result.fail(Replies.tasksRequired(request.id, "listening to tasks"))
  }
  return Result.isSuccess(decoded)
    ? Result.succeed({ id: request.id, asked: decoded.success, caller: request.caller ?? Identity.local })
    : Result.fail({
      status: 200,
      body: Wire.errorOf(request.id, {
        code: Wire.codes.invalidParams,
        message: `"params.notifications" is not a valid filter: ${
          Wire.sentence(decoded.failure.issue, ["notifications"])
        }`
      })
    })
}

const listKey: Record<Broadcast.List, keyof Filter> = {
  tools: "toolsListChanged",
  prompts: "promptsListChanged",
  resources: "resourcesListChanged"
}

// How long the acknowledgement waits for the URIs it agreed to follow to go live, so a change made
// right after it is heard; a source that is down is followed from then on.
const openWait = Duration.seconds(1)

/**
 * Stream one listener until `closing` completes (then answer the request, ending it gracefully) or
 * the fiber is interrupted (the client went away): the acknowledgement first, then every notice it
 * asked for, each tagged with its subscription id, through `send`.
 */
export const run = (
  modern: Requests.Modern,
  prepared: Prepared,
  send: (message: Json.JsonObject) => void,
  closing: Effect.Effect<void>
): Effect.Effect<void> =>
  Effect.gen(function*() {
    const { face } = modern
    const { asked, id } = prepared
    const meta = { [Wire.meta.subscriptionId]: id }
    const served: Array<string> = []
    for (const uri of asked.resourceSubscriptions ?? []) {
      if (Exit.isSuccess(yield* Effect.exit(face.checkUri(uri))) && !served.includes(uri)) served.push(uri)
    }
    // Quiet until the acknowledgement has gone: nothing may precede it.
    let acknowledged = false
    const notice = (method: string, params: Json.JsonObject = {}) =>
      send({ jsonrpc: "2.0", method, params: { ...params, _meta: meta } })
    const followed: Array<string> = []
    const standing: Array<Effect.Effect<void>> = []
    for (const taskId of asked.taskIds ?? []) {
      if (followed.includes(taskId)) continue
      const tell = yield* modern.tasks.watch(taskId, (task) => {
        if (acknowledged) notice("notifications/tasks", task)
      }, prepared.caller)
      if (tell === undefined) continue
      followed.push(taskId)
      standing.push(tell)
    }
    const honored: Filter = {
      ...(asked.toolsListChanged === true ? { toolsListChanged: true } : {}),
      ...(asked.promptsListChanged === true ? { promptsListChanged: true } : {}),
      ...(asked.resourcesListChanged === true ? { resourcesListChanged: true } : {}),
      ...(asked.resourceSubscriptions === undefined ? {} : { resourceSubscriptions: served }),
      ...(asked.taskIds === undefined ? {} : { taskIds: followed })
    }
    const uris = new Set(served)
    const member: Broadcast.Member = {
      listChanged: (list) => {
        if (acknowledged && honored[listKey[list]] === true) notice(`notifications/${list}/list_changed`)
      },
      updated: (uri) => {
        if (acknowledged && uris.has(uri)) notice("notifications/resources/updated", { uri })
      },
      dropped: (uri) => {
        uris.delete(uri)
      }
    }
    const { broadcaster } = face
    yield* Effect.acquireRelease(broadcaster.join(member), () => broadcaster.leave(member))
    const { relay } = modern
    if (relay !== undefined) yield* Effect.acquireRelease(relay.join(member), () => relay.leave(member))
    const live = yield* Effect.forEach(served, (uri) =>
      Effect.acquireRelease(broadcaster.subscribe(uri, member), () => broadcaster.unsubscribe(uri, member)))
    yield* Effect.forEach(live, Deferred.await, { discard: true, concurrency: "unbounded" }).pipe(
      Effect.timeoutOrElse({
        duration: openWait,
        orElse: () =>
          Effect.void
      })
    )
    notice("notifications/subscriptions/acknowledged", { notifications: honored as Json.JsonObject })
    acknowledged = true
    // A task may have moved, or ended, before the client listened: each is told as it stands now.
    yield* Effect.all(standing, { discard: true })
    yield* closing
    send({ jsonrpc: "2.0", id, result: { resultType: "complete", _meta: { ...modern.resultMeta, ...meta } } })
  }).pipe(Effect.scoped)
