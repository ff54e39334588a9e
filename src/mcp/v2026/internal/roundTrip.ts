/**
 * Calls, prompts and reads over 2026-07-28: the requests that may take more than one round.
 *
 * A request of these three may end its round `input_required` and be continued by its retry (a
 * fresh round, or the next round of a call parked by an earlier one, here or on another instance);
 * a call of a task-capable tool may go on as a task. This module finds what the request names,
 * checks what the client must follow, and frames how the round ended.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type * as Bundle from "../../../core/Bundle.ts"
import * as Identity from "../../../core/Identity.ts"
import { preview } from "../../../core/InputError.ts"
import * as ToolCall from "../../../protocol/ToolCall.ts"
import type * as Json from "../../../core/Json.ts"
import type * as Face from "../../face/Face.ts"
import { Peer } from "../../face/Peer.ts"
import type * as Caching from "../Caching.ts"
import * as RequestState from "../RequestState.ts"
import * as Wire from "../../../protocol/v2026/Messages.ts"
import * as Answers from "./answers.ts"
import type * as Asking from "./asking.ts"
import type * as Calls from "./calls.ts"
import { type Answer, failed, isRecord, ok, refused, type Request, tasksRequired } from "./replies.ts"

/** What a round trip needs of the path serving it. */
export interface Modern {
  readonly face: Face.Face
  readonly calls: Calls.Calls
  readonly caching: Caching.Caching
  readonly resultMeta: Json.JsonObject
}

// What a round-trippable request names, and its arguments: the state it may carry is bound to both.
interface Target {
  readonly name: string
  readonly args: unknown
  readonly job: Calls.Job
  readonly frame?: (result: Json.JsonObject) => Json.JsonObject
}

const targetOf = (
  modern: Modern,
  method: string,
  params: Json.JsonObject,
  envelope: Wire.Envelope
): Result.Result<Target, string> => {
  const { face } = modern
  switch (method) {
    case "tools/call": {
      const peer = { era: "2026-07-28" as const, client: envelope.clientInfo }
      return Result.map(ToolCall.read(params), ({ args, name }) => ({
        name,
        args,
        job: Effect.provideService(face.callTool(name, args), Peer, peer) as Calls.Job
      }))
    }
    case "prompts/get": {
      const { arguments: args = {}, name } = params
      if (typeof name !== "string") return Result.fail(`"params.name" must be the prompt's name, a string`)
      if (!isRecord(args)) return Result.fail(`"params.arguments" must be an object, got ${preview(args)}`)
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
 * A call, a prompt or a read: a fresh round, or the next round of a call parked by an earlier one.
 */
export const roundTrip = (
  modern: Modern,
  request: Request,
  envelope: Wire.Envelope,
  notify: Asking.Notify
): Effect.Effect<Answer> => {
  const { id, method, params } = request
  const target = targetOf(modern, method, params as Json.JsonObject, envelope)
  if (Result.isFailure(target)) return Effect.succeed(refused(id, target.failure))
  const responses = Answers.responsesOf(params, modern.calls.limits.maxAnswerBytes)
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
  const round = { notify, envelope, caller: request.caller ?? Identity.local }
  const state = params["requestState"]
  // What a call holds while it waits begins with its arguments, measured once as it starts.
  const outcome = state === undefined
    ? modern.calls.start(job, digest, responses, round, support, Answers.bytesOf(args))
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
                  ? modern.calls.start(
                    job,
                    digest,
                    { ...payload.answers, ...responses },
                    round,
                    support,
                    Answers.bytesOf(args)
                  )
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
