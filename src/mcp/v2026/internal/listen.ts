/**
 * `subscriptions/listen`: the one long-lived request of 2026-07-28, carrying the change notices a
 * client opted in to.
 *
 * With no session there is nowhere else for the server to speak unprompted: a client that wants to
 * hear list moves or resource changes opens a listen request and keeps its response open. Each
 * stream is a member of the face's broadcaster, so a thousand listeners cost a thousand sends per
 * move, not a thousand followers, and a URI many of them hold is followed once. The stream opens
 * with the acknowledgement of what the server agreed to, every notice carries the stream's
 * subscription id, nothing is sent that was not asked for, and a server that shuts down ends the
 * stream with its response rather than a dropped connection.
 *
 * A listen is held to what the same caller may do otherwise. Each URI needs the scope a 2025
 * `resources/subscribe` of it needs (checked where every request's scope is, before this path is
 * reached). A caller with a token is told a list moved only when what it is shown of that list moved,
 * so a move of what it cannot see is not heard. A request names at most `maxUris` URIs (the cap of
 * one 2025 session's subscriptions), each naming something served — an unknown URI or an item its
 * collection does not hold is refused, naming it — and one holder (a token's subject, or without
 * authorization the transport's peer) holds at most `maxStreams` streams open at once.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Identity from "../../../core/Identity.ts"
import * as ItemUri from "../../../core/ItemUri.ts"
import type * as Json from "../../../core/Json.ts"
import * as AppResources from "../../face/AppResources.ts"
import type * as Broadcast from "../../face/Broadcast.ts"
import * as RpcError from "../../face/RpcError.ts"
import type * as Scopes from "../../face/Scopes.ts"
import * as Wire from "../../../protocol/v2026/Messages.ts"
import * as Replies from "./replies.ts"
import type * as Requests from "./requests.ts"

/**
 * Who a stream counts against: a token's subject, else `peer` (who the transport says is there).
 * An IPv6 peer counts by its /64 prefix, the block one host is usually handed whole, so a caller
 * cannot step past its cap by moving to another address of its own; an IPv4-mapped one by its IPv4.
 */
export const holderOf = (caller: Identity.Principal, peer: string): string =>
  caller._tag === "Token" ? `subject ${caller.subject}` : `peer ${peerBlock(peer)}`

// The /64 an IPv6 address lies in (its first four groups, written out); any other peer as it is.
const peerBlock = (peer: string): string => {
  const address = peer.replace(/%.*$/, "").toLowerCase()
  if (!address.includes(":")) return peer
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address)
  if (mapped?.[1] !== undefined) return mapped[1]
  const [head = "", tail] = address.split("::")
  const front = head === "" ? [] : head.split(":")
  const back = tail === undefined || tail === "" ? [] : tail.split(":")
  const groups = [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill("0"), ...back]
  return `${groups.slice(0, 4).map((group) => Number.parseInt(group, 16).toString(16)).join(":")}::/64`
}

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

// The distinct URIs a listen request names, however it is formed (a malformed filter is refused later).
const distinctUris = (params: { readonly [key: string]: unknown }): number => {
  const filter = params["notifications"]
  const uris = typeof filter === "object" && filter !== null
    ? (filter as { readonly [key: string]: unknown })["resourceSubscriptions"]
    : undefined
  return Array.isArray(uris) ? new Set(uris).size : 0
}

/**
 * The answer refusing a listen that names more distinct URIs than `maxUris` (-32602 in a sentence),
 * if it does: looked at before anything is looked up for its URIs (their scopes among them), so a
 * request of a great many URIs costs no more than reading them once.
 */
export const overCap = (request: Requests.Request, maxUris: number): Requests.Answer | undefined => {
  const uris = distinctUris(request.params)
  return uris <= maxUris ? undefined : Replies.refused(
    request.id,
    `"params.notifications.resourceSubscriptions" names ${uris} URIs; one listen request may follow at most ${maxUris}: follow fewer, or split them across listen requests`
  )
}

/**
 * Read a listen request's filter: the request ready to stream, or the answer refusing it (-32602,
 * or -32021 for tasks asked by a client that does not follow them).
 */
export const prepare = (
  request: Requests.Request,
  envelope: Wire.Envelope,
  maxUris: number
): Result.Result<Prepared, Requests.Answer> => {
  const decoded = decodeFilter(request.params["notifications"] ?? {})
  if (Result.isSuccess(decoded) && decoded.success.taskIds !== undefined && !envelope.capabilities.tasks) {
    return Result.fail(Replies.tasksRequired(request.id, "listening to tasks"))
  }
  const over = overCap(request, maxUris)
  if (over !== undefined) return Result.fail(over)
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

// Whether `uri` names something served now: anything the face serves, and for an item its
// collection's holding it (an item no collection holds is followed by nobody).
const named = (modern: Requests.Modern, uri: string): Effect.Effect<void, RpcError.Refusal> =>
  Effect.gen(function*() {
    const { face } = modern
    yield* face.checkUri(uri)
    if (!AppResources.isSurfaceUri(uri) || ItemUri.parseItemUri(yield* face.roster.current, uri) === undefined) return
    // Only an item known missing is refused: one whose source is down now is followed from then on.
    yield* face.readResource(uri).pipe(
      Effect.asVoid,
      Effect.catch((refusal) => refusal._tag === "NoSuchItem" ? Effect.fail(refusal) : Effect.void)
    )
  })

/**
 * Admit a prepared listen request: every URI it names must name something (else -32602 naming the
 * first that does not), fewer than `maxTotal` streams may be open (else 503, saying so), and its
 * holder must hold fewer than `maxStreams` open (else 429, saying so). The stream is counted, in all
 * and against its holder, for the scope's life.
 */
export const admit = (
  modern: Requests.Modern,
  prepared: Prepared,
  holder: string
): Effect.Effect<Requests.Answer | undefined, never, Scope.Scope> =>
  Effect.gen(function*() {
    const uris = [...new Set(prepared.asked.resourceSubscriptions ?? [])]
    const unknown = yield* Effect.forEach(uris, (uri) => named(modern, uri), { concurrency: 8, discard: true }).pipe(
      Effect.flip,
      Effect.option
    )
    if (unknown._tag === "Some") return Replies.failed(prepared.id, RpcError.toRpcError(unknown.value))
    const { listening } = modern
    // One step each way, so no other stream is let in between the look at the counts and their change.
    const held = yield* Effect.acquireRelease(
      Effect.sync(() => {
        if (listening.total >= listening.maxTotal) return "server" as const
        const open = listening.open.get(holder) ?? 0
        if (open >= listening.maxStreams) return "holder" as const
        listening.open.set(holder, open + 1)
        listening.total++
        return undefined
      }),
      (refused) =>
        Effect.sync(() => {
          if (refused !== undefined) return
          listening.total--
          const open = (listening.open.get(holder) ?? 1) - 1
          if (open === 0) listening.open.delete(holder)
          else listening.open.set(holder, open)
        })
    )
    return held === undefined ? undefined : held === "server"
      ? {
        status: 503,
        body: Wire.errorOf(prepared.id, {
          code: -32000,
          message:
            `Too many listen streams: the server holds ${listening.maxTotal} open, the most it keeps (maxListenStreams); retry shortly`
        })
      }
      : {
        status: 429,
        body: Wire.errorOf(prepared.id, {
          code: -32000,
          message:
            `Too many listen streams: this caller holds ${listening.maxStreams} open, the most one may; end one before listening again`
        })
      }
  })

// What a caller is shown of each list, kept per view (one per scope set and tables) so a move is
// compared once per scope set, not once per listener.
const shownOf = new WeakMap<Scopes.View, Record<Broadcast.List, string>>()

const shown = (view: Scopes.View): Record<Broadcast.List, string> => {
  let known = shownOf.get(view)
  if (known === undefined) {
    known = {
      tools: JSON.stringify(view.tools),
      resources: JSON.stringify([view.resources, view.templates]),
      prompts: JSON.stringify(view.prompts)
    }
    shownOf.set(view, known)
  }
  return known
}

/**
 * Tell a narrowed caller of the moves of what it is shown: `moved` marks a list as moved, and the
 * fiber this forks (for the scope's life) compares the caller's view with what it was last told of
 * and tells `changed` each list whose part of it moved.
 */
const narrowed = (
  modern: Requests.Modern,
  caller: Identity.Principal,
  changed: (list: Broadcast.List) => void
): Effect.Effect<(list: Broadcast.List) => void, never, Scope.Scope> =>
  Effect.gen(function*() {
    const pending = new Set<Broadcast.List>()
    const poke = yield* Queue.sliding<void>(1)
    let told = shown(yield* modern.face.view(caller))
    const compare = Effect.flatMap(modern.face.view(caller), (view) =>
      Effect.sync(() => {
        const now = shown(view)
        for (const list of pending) if (now[list] !== told[list]) changed(list)
        pending.clear()
        told = now
      }))
    yield* Effect.forkScoped(Effect.forever(Effect.andThen(Queue.take(poke), compare)))
    return (list) => {
      pending.add(list)
      Queue.offerUnsafe(poke, undefined)
    }
  })

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
 * the fiber is interrupted (the client went away): the acknowledgement first (`then` runs once it is
 * sent), then every notice it asked for, each tagged with its subscription id, through `send`.
 */
export const run = (
  modern: Requests.Modern,
  prepared: Prepared,
  send: (message: Json.JsonObject) => void,
  closing: Effect.Effect<void>,
  then: Effect.Effect<void> = Effect.void
): Effect.Effect<void> =>
  Effect.gen(function*() {
    const { face } = modern
    const { asked, id } = prepared
    const meta = { [Wire.meta.subscriptionId]: id }
    // Each URI names something: `admit` refused the request otherwise.
    const served = [...new Set(asked.resourceSubscriptions ?? [])]
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
    const tell = (list: Broadcast.List) => notice(`notifications/${list}/list_changed`)
    // The local caller is shown every list whole: each move is its own.
    const moved = prepared.caller._tag === "Local" ? tell : yield* narrowed(modern, prepared.caller, tell)
    const member: Broadcast.Member = {
      listChanged: (list) => {
        if (acknowledged && honored[listKey[list]] === true) moved(list)
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
    yield* then
    // A task may have moved, or ended, before the client listened: each is told as it stands now.
    yield* Effect.all(standing, { discard: true })
    yield* closing
    send({ jsonrpc: "2.0", id, result: { resultType: "complete", _meta: { ...modern.resultMeta, ...meta } } })
  }).pipe(Effect.scoped)
