/**
 * The 2026-07-28 request path: one stateless request in, one answer out, whatever carried it.
 *
 * With no session, a request is whole in itself: its envelope says which revision it speaks and
 * what its client can be asked, and the answer says what kind of result it is and who gave it. This
 * module is that path over the shared face — discovery, the lists with their caching hints, calls,
 * reads, prompts and completion — so HTTP and stdio (and a test) serve 2026 clients the same way. A
 * call, a read or a prompt may end its round `input_required` (`Calls`); every other method answers
 * at once. Transports add only what is theirs: headers, streams, cancellation.
 *
 * @internal
 */
import { Effect, Result } from "effect"
import type { Scope } from "effect"
import * as Crypto from "node:crypto"
import type * as Bundle from "../../../core/Bundle.ts"
import type * as Json from "../../../core/Json.ts"
import type * as Face from "../../Face.ts"
import type * as Broadcast from "../../internal/broadcast.ts"
import * as RpcError from "../../RpcError.ts"
import * as Answers from "./answers.ts"
import * as Caching from "../Caching.ts"
import type * as Asking from "./asking.ts"
import * as Calls from "./calls.ts"
import * as RequestState from "../RequestState.ts"
import * as TaskSettings from "../Tasks.ts"
import * as Wire from "../Wire.ts"
import * as Tasks from "./tasks.ts"

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
}

/**
 * Where list moves made through other instances are heard: a listener joins it beside the face's
 * broadcaster.
 */
export interface Relay {
  readonly join: (member: Broadcast.Member) => Effect.Effect<void>
  readonly leave: (member: Broadcast.Member) => Effect.Effect<void>
}

/**
 * An answer: the JSON-RPC response, and the HTTP status the revision gives it.
 */
export interface Answer {
  readonly status: number
  readonly body: Json.JsonObject
}

/**
 * A request already sorted by `Wire.classify`.
 */
export interface Request {
  readonly id: Wire.Id
  readonly method: string
  readonly params: { readonly [key: string]: unknown }
}

/**
 * Serve 2026 clients from `face` for the scope's life; `elsewhere` continues calls parked on other
 * instances (the cluster layer's), `instance` names this one in the states it signs.
 */
export const make = (
  face: Face.Face,
  options: {
    readonly elsewhere?: Calls.Elsewhere | undefined
    readonly instance?: string | undefined
    readonly relay?: Relay | undefined
    /** Signs this path's states: the face's own unless given (instances on Redis agree on one). */
    readonly codec?: RequestState.Codec | undefined
    /** Where tasks are shared with the other instances. */
    readonly store?: Tasks.Store | undefined
  } = {}
): Effect.Effect<Modern, never, Scope.Scope> =>
  Effect.gen(function*() {
    const instance = options.instance ?? Crypto.randomBytes(8).toString("hex")
    const tasks = yield* Tasks.make({ settings: TaskSettings.resolve(face.tasks), instance, store: options.store })
    const calls = yield* Calls.make({
      codec: options.codec ?? face.requestState,
      instance,
      tasking: tasks.tasking,
      ...(options.elsewhere === undefined ? {} : { elsewhere: options.elsewhere })
    })
    const caching = yield* Caching.make(face.broadcaster, face.caching)
    const { name, title, version } = face.serverInfo
    const serverInfo = title === undefined ? { name, version } : { name, version, title }
    return { face, calls, tasks, caching, relay: options.relay, resultMeta: { [Wire.meta.serverInfo]: serverInfo } }
  })

const ok = (modern: Modern, id: Wire.Id, result: Json.JsonObject): Answer => ({
  status: 200,
  body: {
    jsonrpc: "2.0",
    id,
    result: {
      ...result,
      resultType: "complete",
      _meta: result["_meta"] === undefined ? modern.resultMeta
        : { ...(result["_meta"] as Json.JsonObject), ...modern.resultMeta }
    }
  }
})

const failed = (id: Wire.Id | null, error: RpcError.Rpc | Wire.Refused): Answer => ({
  status: error instanceof Wire.Refused ? error.status : 200,
  body: Wire.errorOf(id, error)
})

const refused = (id: Wire.Id, message: string): Answer =>
  failed(id, new Wire.Refused({ status: 200, code: Wire.codes.invalidParams, message }))

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

const listed = (
  modern: Modern,
  id: Wire.Id,
  key: string,
  list: "tools" | "resources" | "prompts",
  items: Effect.Effect<ReadonlyArray<Json.JsonObject>>
) => Effect.map(items, (all) => ok(modern, id, { [key]: all as Array<Json.JsonObject>, ...modern.caching.list(list) }))

const isRecord = (u: unknown): u is Json.JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)

// What a round-trippable request names, and its arguments: the state it may carry is bound to both.
interface Target {
  readonly name: string
  readonly args: unknown
  readonly job: Calls.Job
  readonly frame?: (result: Json.JsonObject) => Json.JsonObject
}

const targetOf = (modern: Modern, method: string, params: Json.JsonObject): Result.Result<Target, string> => {
  const { face } = modern
  switch (method) {
    case "tools/call": {
      const { arguments: args = {}, name } = params
      if (typeof name !== "string") return Result.fail(`"params.name" must be the tool's name, a string`)
      if (!isRecord(args)) return Result.fail(`"params.arguments" must be an object, got ${JSON.stringify(args)}`)
      return Result.succeed({ name, args, job: face.callTool(name, args) as Calls.Job })
    }
    case "prompts/get": {
      const { arguments: args = {}, name } = params
      if (typeof name !== "string") return Result.fail(`"params.name" must be the prompt's name, a string`)
      if (!isRecord(args)) return Result.fail(`"params.arguments" must be an object, got ${JSON.stringify(args)}`)
      return Result.succeed({ name, args, job: face.getPrompt(name, args) as unknown as Calls.Job })
    }
    default: {
      const { uri } = params
      if (typeof uri !== "string") return Result.fail(`"params.uri" must be the resource's URI, a string`)
      return Result.succeed({
        name: uri,
        args: null,
        job: Effect.map(
          face.readResource(uri),
          (contents) => ({ contents: contents as unknown as Array<Json.JsonObject> })
        ),
        frame: (result) => ({ ...result, ...modern.caching.read })
      })
    }
  }
}

const stateRefused = (message: string): Calls.Outcome => ({
  _tag: "Error",
  error: { code: Wire.codes.invalidParams, message }
})

// Whether running a request again changes nothing: a prompt, a read, or a tool that says it only reads.
const harmless = (modern: Modern, method: string, name: string): Effect.Effect<boolean> =>
  method !== "tools/call" ? Effect.succeed(true) : Effect.map(modern.face.roster.current, (resolved) => {
    const tool = resolved.advertisedTools.find((advertised) => advertised["name"] === name)
    const annotations = tool?.["annotations"]
    return isRecord(annotations) && annotations["readOnlyHint"] === true
  })

// Whether a tool's call may go on as a task: its procedure's, or its own, say.
const taskSupportOf = (tool: Bundle.Tool): "optional" | "required" | undefined =>
  tool.target._tag === "Procedure" ? tool.target.procedure.task : tool.target.tool.task

const supportOf = (modern: Modern, method: string, name: string) =>
  method !== "tools/call" ? Effect.succeed(undefined) : Effect.map(modern.face.roster.current, (resolved) => {
    const tool = resolved.toolByName.get(name)
    return tool === undefined ? undefined : taskSupportOf(tool)
  })

/**
 * The error for a request that needs the tasks extension from a client that did not declare it.
 */
export const tasksRequired = (id: Wire.Id, why: string): Answer => ({
  status: 400,
  body: Wire.errorOf(id, {
    code: Wire.codes.missingCapability,
    message: `Missing required client capability: ${why} needs the ${Wire.tasksExtension} extension`,
    data: { requiredCapabilities: { extensions: { [Wire.tasksExtension]: {} } } }
  })
})

// A call, a prompt or a read: a fresh round, or the next round of a call parked by an earlier one.
const roundTrip = (
  modern: Modern,
  request: Request,
  envelope: Wire.Envelope,
  notify: Asking.Notify
): Effect.Effect<Answer> => {
  const { id, method, params } = request
  const target = targetOf(modern, method, params as Json.JsonObject)
  if (Result.isFailure(target)) return Effect.succeed(refused(id, target.failure))
  const responses = Answers.responsesOf(params)
  if (Result.isFailure(responses)) return Effect.succeed(refused(id, responses.failure))
  const { name } = target.success
  return Effect.flatMap(
    supportOf(modern, method, name),
    (support) =>
      support === "required" && !envelope.capabilities.tasks
        ? Effect.succeed(tasksRequired(id, `tool "${name}" runs only as a task, so calling it`))
        : rounds(modern, request, envelope, notify, target.success, responses.success, support)
  )
}

const rounds = (
  modern: Modern,
  request: Request,
  envelope: Wire.Envelope,
  notify: Asking.Notify,
  target: Target,
  responses: { readonly [key: string]: unknown },
  support: "optional" | "required" | undefined
): Effect.Effect<Answer> => {
  const { id, method, params } = request
  const { args, frame, job, name } = target
  const digest = RequestState.targetOf(method, name, args)
  const round = { notify, envelope }
  const state = params["requestState"]
  const outcome = state === undefined
    ? modern.calls.start(job, digest, responses, round, support)
    : typeof state !== "string"
    ? Effect.succeed(stateRefused(`"params.requestState" must be the string the server sent`))
    : modern.calls.codec.verify(state, digest).pipe(
      Effect.matchEffect({
        onFailure: (refusal) => Effect.succeed(stateRefused(refusal.message)),
        onSuccess: (payload) =>
          Effect.flatMap(modern.calls.resume(payload, responses, round), (resumed) =>
            resumed._tag !== "Lost"
              ? Effect.succeed(resumed)
              // Where the call cannot be continued, one that changes nothing is run again from its
              // start with every answer it had; one that may change something is never run twice.
              : Effect.flatMap(harmless(modern, method, name), (again) =>
                again && payload.answers !== undefined
                  ? modern.calls.start(job, digest, { ...payload.answers, ...responses }, round, support)
                  : Effect.succeed(stateRefused(`requestState refused: ${resumed.reason}; call again without it`))))
      })
    )
  return Effect.map(outcome, (ended) => answerOf(modern, id, ended, frame))
}

const answerOf = (
  modern: Modern,
  id: Wire.Id,
  ended: Calls.Outcome,
  frame?: (result: Json.JsonObject) => Json.JsonObject
): Answer => {
  switch (ended._tag) {
    case "Complete":
      return ok(modern, id, frame === undefined ? ended.result : frame(ended.result))
    case "Error":
      return { status: ended.status ?? 200, body: Wire.errorOf(id, ended.error) }
    case "Lost":
      return failed(id, { code: Wire.codes.invalidParams, message: ended.reason })
    case "Task":
      return { status: 200, body: { jsonrpc: "2.0", id, result: { ...ended.task, _meta: modern.resultMeta } } }
    case "InputRequired":
      return {
        status: 200,
        body: {
          jsonrpc: "2.0",
          id,
          result: {
            resultType: "input_required",
            inputRequests: ended.inputRequests as unknown as Json.JsonObject,
            requestState: ended.requestState,
            _meta: modern.resultMeta
          }
        }
      }
  }
}

// The tasks methods, for a client that follows tasks only (asked before the task is looked up).
const taskMethod = (modern: Modern, request: Request, envelope: Wire.Envelope): Effect.Effect<Answer> => {
  const { id, method, params } = request
  if (!envelope.capabilities.tasks) return Effect.succeed(tasksRequired(id, method))
  const taskId = params["taskId"]
  if (typeof taskId !== "string") {
    return Effect.succeed(refused(id, `"params.taskId" must be the task's id, a string`))
  }
  if (method === "tasks/get") {
    return Effect.map(
      modern.tasks.get(taskId),
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
    modern.tasks.apply(taskId, op),
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
  const { face } = modern
  const { id, method, params } = request
  switch (method) {
    case "server/discover":
      return discover(modern, id)
    case "tools/list":
      return listed(
        modern,
        id,
        "tools",
        "tools",
        Effect.map(face.roster.current, (resolved) => resolved.advertisedTools)
      )
    case "resources/list":
      return listed(modern, id, "resources", "resources", face.listResources)
    case "resources/templates/list":
      return listed(modern, id, "resourceTemplates", "resources", face.listResourceTemplates)
    case "prompts/list":
      return listed(modern, id, "prompts", "prompts", face.listPrompts)
    case "completion/complete":
      return complete(modern, id, params as Json.JsonObject)
    case "tools/call":
    case "prompts/get":
    case "resources/read":
      return roundTrip(modern, request, envelope, notify)
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
