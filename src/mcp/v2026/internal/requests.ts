/**
 * The 2026-07-28 request path: one stateless request in, one answer out, whatever carried it.
 *
 * With no session, a request is whole in itself: its envelope says which revision it speaks and
 * what its client can be asked, and the answer says what kind of result it is and who gave it. This
 * module is that path over the shared face — discovery, the lists with their caching hints, calls,
 * reads, prompts, completion and tasks — so HTTP and stdio (and a test) serve 2026 clients the same
 * way. A call, a read or a prompt may end its round `input_required` (`Calls`), and a call may go on
 * as a task (`Tasks`); every other method answers at once. Transports add only what is theirs:
 * headers, streams, cancellation.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import * as Crypto from "node:crypto"
import type * as Json from "../../../core/Json.ts"
import * as Identity from "../../../core/Identity.ts"
import * as Face from "../../face/Face.ts"
import type * as Broadcast from "../../face/Broadcast.ts"
import * as RpcError from "../../face/RpcError.ts"
import type * as Scopes from "../../face/Scopes.ts"
import * as Caching from "../Caching.ts"
import type * as Asking from "./asking.ts"
import * as Calls from "./calls.ts"
import type * as RequestState from "../RequestState.ts"
import type * as Stateless from "../Stateless.ts"
import * as Wire from "../../../protocol/v2026/Messages.ts"
import * as Replies from "./replies.ts"
import { type Answer, failed, isRecord, ok, refused, type Request } from "./replies.ts"
import { roundTrip } from "./roundTrip.ts"
import * as Tasks from "./tasks.ts"
import * as Views from "../../views/Views.ts"

/**
 * What a face serves 2026 clients with: the face, its parked calls, its caching hints.
 */
export interface Modern {
  readonly face: Face.Face
  readonly calls: Calls.Calls
  /** The calls that went on as tasks. */
  readonly tasks: Tasks.Table
  readonly caching: Caching.Caching
  /** List moves made through other instances, for this one's listeners (with instances on Redis). */
  readonly relay: Relay | undefined
  /** The `_meta` every result carries: who answered. */
  readonly resultMeta: Json.JsonObject
  /** How listen requests are bounded, and the streams each holder has open. */
  readonly listening: ListenLimits
}

/** The most listen streams one holder may hold open at once. */
export const defaultMaxListenStreams = 16

/**
 * The most listen streams one endpoint holds open at once, whoever holds them. Each holds a
 * connection (a file descriptor, under the usual soft limit of 1024) and up to 1024 queued notices;
 * 256 keeps them to a quarter of that limit while sixteen holders may each keep their sixteen.
 */
export const defaultMaxListenStreamsTotal = 256

/**
 * How listen requests are bounded: URIs one request may name (default the cap of a 2025 session's
 * subscriptions, `Face.defaultMaxSubscriptions`), streams one holder may hold open, and streams
 * open at once in all.
 */
export interface ListenOptions {
  readonly maxUris?: number | undefined
  readonly maxStreams?: number | undefined
  readonly maxTotal?: number | undefined
}

/** The bounds of one endpoint's listen requests, and the streams open (by holder, and in all). */
export interface ListenLimits {
  readonly maxUris: number
  readonly maxStreams: number
  readonly maxTotal: number
  readonly open: Map<string, number>
  total: number
}

/** The bounds `options` set, with no stream open yet. */
export const listenLimits = (options: ListenOptions = {}): ListenLimits => ({
  maxUris: options.maxUris ?? Face.defaultMaxSubscriptions,
  maxStreams: options.maxStreams ?? defaultMaxListenStreams,
  maxTotal: options.maxTotal ?? defaultMaxListenStreamsTotal,
  open: new Map(),
  total: 0
})

/**
 * Where list moves made through other instances are heard: a listener joins it beside the face's
 * broadcaster.
 */
export interface Relay {
  readonly join: (member: Broadcast.Member) => Effect.Effect<void>
  readonly leave: (member: Broadcast.Member) => Effect.Effect<void>
}

export type { Answer, Request } from "./replies.ts"

/**
 * Serve 2026 clients from `face` for the scope's life; `elsewhere` continues calls parked on other
 * instances (the cluster layer's), `instance` names this one in the states it signs.
 */
export const make = (
  face: Face.Face,
  stateless: Stateless.Stateless,
  options: {
    readonly elsewhere?: Calls.Elsewhere | undefined
    readonly instance?: string | undefined
    readonly relay?: Relay | undefined
    /** Signs this path's states: the server's own unless given (instances on Redis agree on one). */
    readonly codec?: RequestState.Codec | undefined
    /** Where tasks are shared with the other instances. */
    readonly store?: Tasks.Store | undefined
    /** How listen requests are bounded. */
    readonly listen?: ListenOptions | undefined
  } = {}
): Effect.Effect<Modern, never, Scope.Scope> =>
  Effect.gen(function*() {
    const instance = options.instance ?? Crypto.randomBytes(8).toString("hex")
    const tasks = yield* Tasks.make({ settings: stateless.tasks, instance, store: options.store })
    const calls = yield* Calls.make({
      codec: options.codec ?? stateless.requestState,
      limits: stateless.requestState.limits,
      instance,
      tasking: tasks.tasking,
      ...(options.elsewhere === undefined ? {} : { elsewhere: options.elsewhere })
    })
    const caching = yield* Caching.make(face.broadcaster, stateless.caching)
    const { name, title, version } = face.serverInfo
    const serverInfo = title === undefined ? { name, version } : { name, version, title }
    return {
      face,
      calls,
      tasks,
      caching,
      relay: options.relay,
      resultMeta: { [Wire.meta.serverInfo]: serverInfo },
      listening: listenLimits(options.listen)
    }
  })

/**
 * The capabilities a 2026 client is told of in `server/discover`.
 */
export const capabilities: Json.JsonObject = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
  logging: {},
  extensions: { [Wire.tasksExtension]: {} }
}

const discover = (modern: Modern, id: Wire.Id) =>
  Effect.map(
    modern.face.instructions._tag === "Static"
      ? Effect.succeed(modern.face.instructions.text)
      : modern.face.instructions.read,
    (instructions) =>
      ok(modern, id, {
        supportedVersions: [...Wire.supported],
        capabilities,
        ...(instructions === undefined ? {} : { instructions }),
        ...modern.caching.discover()
      })
  )

// Each list method: the key its items answer under, whose caching hints it carries, and its items
// in what the caller is shown.
const lists = {
  "tools/list": { key: "tools", caching: "tools", items: (shown: Scopes.View) => shown.tools },
  "resources/list": { key: "resources", caching: "resources", items: (shown: Scopes.View) => shown.resources },
  "resources/templates/list": {
    key: "resourceTemplates",
    caching: "resources",
    items: (shown: Scopes.View) => shown.templates
  },
  "prompts/list": { key: "prompts", caching: "prompts", items: (shown: Scopes.View) => shown.prompts }
} as const

// A list is what the request's caller may see (everything, for a caller not authenticated).
// Views are linked only for a client whose envelope declares it renders them.
const listed = (modern: Modern, request: Request, method: keyof typeof lists, envelope: Wire.Envelope) => {
  const { caching, items, key } = lists[method]
  const caller = callerOf(request)
  return Effect.map(
    Effect.map(modern.face.view(caller), (shown) => Views.present(shown, Views.declares(envelope.capabilities.raw))),
    (shown) =>
      ok(modern, request.id, {
        [key]: items(shown) as Array<Json.JsonObject>,
        ...Caching.forCaller(modern.caching, caller).list(caching)
      })
  )
}

// The tasks methods, for a client that follows tasks only (asked before the task is looked up).
const taskMethod = (modern: Modern, request: Request, envelope: Wire.Envelope): Effect.Effect<Answer> => {
  const { id, method, params } = request
  if (!envelope.capabilities.tasks) return Effect.succeed(Replies.tasksRequired(id, method))
  const taskId = params["taskId"]
  if (typeof taskId !== "string") {
    return Effect.succeed(refused(id, `"params.taskId" must be the task's id, a string`))
  }
  if (method === "tasks/get") {
    return Effect.map(
      modern.tasks.get(taskId, callerOf(request)),
      Result.match({ onFailure: (error) => failed(id, error), onSuccess: (view) => ok(modern, id, view) })
    )
  }
  const responses = params["inputResponses"]
  if (method === "tasks/update" && !isRecord(responses)) {
    return Effect.succeed(refused(id, `"params.inputResponses" must be an object of answers by key`))
  }
  const op: Tasks.Op = method === "tasks/update"
    ? { _tag: "Update", responses: responses as Json.JsonObject }
    : { _tag: "Cancel" }
  return Effect.map(
    modern.tasks.apply(taskId, op, callerOf(request)),
    (reply) => reply._tag === "Ack" ? ok(modern, id, {}) : failed(id, reply.error)
  )
}

const complete = (modern: Modern, id: Wire.Id, params: Json.JsonObject) => {
  const { argument, context, ref } = params
  const refOk = isRecord(ref) &&
    ((ref["type"] === "ref/prompt" && typeof ref["name"] === "string") ||
      (ref["type"] === "ref/resource" && typeof ref["uri"] === "string"))
  const argumentOk = isRecord(argument) && typeof argument["name"] === "string" &&
    typeof argument["value"] === "string"
  if (!refOk || !argumentOk) {
    return Effect.succeed(
      refused(
        id,
        `"params" must name a "ref" (ref/prompt with a name, or ref/resource with a uri) and an "argument" { name, value }`
      )
    )
  }
  return modern.face.complete({ ref, argument, context } as unknown as Face.CompleteRequest).pipe(
    Effect.match({
      onFailure: (refusal) => failed(id, RpcError.toRpcError(refusal)),
      onSuccess: (completion) => ok(modern, id, { completion: completion as unknown as Json.JsonObject })
    })
  )
}

/**
 * The methods a 2026 request may name on this path (`subscriptions/listen` is the transport's, as it
 * answers with a stream).
 */
export const methods: ReadonlySet<string> = new Set([
  "server/discover",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "subscriptions/listen",
  "tasks/get",
  "tasks/update",
  "tasks/cancel"
])

/**
 * Check a request before it is answered, in the order the revision ranks the faults: its `_meta`
 * (-32602), what its transport carried beside the body (an HTTP binding's header checks, -32020),
 * its version (-32022), its method (-32601, HTTP 404). The envelope, or the answer refusing it.
 */
export const check = (
  request: Request,
  transport?: (envelope: Wire.Envelope) => Wire.Refused | undefined
): Result.Result<Wire.Envelope, Answer> => {
  const envelope = Wire.envelope(request.params)
  if (Result.isFailure(envelope)) return Result.fail(failed(request.id, envelope.failure))
  const refusal = transport?.(envelope.success) ?? Wire.supports(envelope.success.protocolVersion)
  if (refusal !== undefined) return Result.fail(failed(request.id, refusal))
  if (!methods.has(request.method)) {
    return Result.fail(
      failed(
        request.id,
        new Wire.Refused({
          status: 404,
          code: Wire.codes.methodNotFound,
          message: `Method not found: ${request.method} is not a ${Wire.version} method`
        })
      )
    )
  }
  return Result.succeed(envelope.success)
}

const callerOf = (request: Request) => request.caller ?? Identity.local

/**
 * Answer one request whose envelope `check` accepted; `notify` takes the notifications that belong
 * to it (progress, log lines), sent before the answer.
 */
export const answer = (
  modern: Modern,
  request: Request,
  envelope: Wire.Envelope,
  notify: Asking.Notify
): Effect.Effect<Answer> => {
  const { id, method, params } = request
  switch (method) {
    case "server/discover":
      return discover(modern, id)
    case "tools/list":
    case "resources/list":
    case "resources/templates/list":
    case "prompts/list":
      return listed(modern, request, method, envelope)
    case "completion/complete":
      return complete(modern, id, params as Json.JsonObject)
    case "tools/call":
    case "prompts/get":
      return roundTrip(modern, request, envelope, notify)
    case "resources/read": {
      // A read's hint is the caller's: private behind a resource server.
      const caching = Caching.forCaller(modern.caching, callerOf(request))
      return roundTrip(caching === modern.caching ? modern : { ...modern, caching }, request, envelope, notify)
    }
    case "tasks/get":
    case "tasks/update":
    case "tasks/cancel":
      return taskMethod(modern, request, envelope)
    default:
      return Effect.succeed(
        failed(
          id,
          new Wire.Refused({ status: 404, code: Wire.codes.methodNotFound, message: `Method not found: ${method}` })
        )
      )
  }
}
