/**
 * The client's request path in MCP 2026-07-28: every request self-contained, every question
 * answered by sending the request again.
 *
 * With no `initialize` and no session, each request carries its own envelope (`_meta`: the
 * revision, what the client can be asked, who it is), and over HTTP the headers a gateway routes by
 * (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, and the `Mcp-Param-*` a tool mirrors). A result
 * says what kind it is: an answer, or `input_required` with questions — then the questions go to the
 * toolset's handlers and the original request is sent again, under a fresh id, with the answers and
 * the server's `requestState` exactly as it came (`roundTrip`). Responses are decoded with the
 * revision's own wire schemas (`McpWire`), shared with the server face.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Results from "../../../protocol/v2026/Results.ts"
import * as Wire from "../../../protocol/v2026/Messages.ts"
import type * as Channels from "../channels.ts"
import * as Questions from "../questions.ts"
import * as Remote from "../remote.ts"

/** A decoded result object. */
export type Json = { readonly [key: string]: unknown }

/** What every request of one connection declares. */
export interface Identity {
  readonly clientInfo: { readonly name: string; readonly version: string }
  readonly capabilities: Json
}

/**
 * Sends one request and reads its result: one round, no questions answered. With `progress`, the
 * request carries `_meta.progressToken`, its own id, so the server's progress notices name it.
 */
export type Send = (
  method: string,
  params: Json,
  options?: {
    readonly headers?: Readonly<Record<string, string>>
    readonly onNotice?: Channels.OnNotice
    readonly progress?: boolean
  }
) => Effect.Effect<Json, Remote.Failure>

const decodeResponse = Schema.decodeUnknownResult(Results.Response)
const decodeKind = Schema.decodeUnknownResult(Results.ResultKind)

// The name a request targets, mirrored into `Mcp-Name`.
const nameOf = (method: string, params: Json): string | undefined => {
  const key = method === "tools/call" || method === "prompts/get"
    ? "name"
    : method === "resources/read"
    ? "uri"
    : method.startsWith("tasks/")
    ? "taskId"
    : undefined
  const value = key === undefined ? undefined : params[key]
  return typeof value === "string" ? value : undefined
}

/** The standard headers of a request over HTTP. */
export const headersOf = (method: string, params: Json): Record<string, string> => {
  const name = nameOf(method, params)
  return {
    "mcp-protocol-version": Wire.version,
    "mcp-method": method,
    ...(name === undefined ? {} : { "mcp-name": Results.headerValue(name) })
  }
}

// An error response as a rejection; -32022 names the versions the server speaks.
const rejection = (status: number, message: unknown): Remote.Rejected => {
  const decoded = decodeResponse(message)
  if (Result.isSuccess(decoded) && "error" in decoded.success) {
    const { code, message: reason } = decoded.success.error
    return new Remote.Rejected({ code, reason })
  }
  // An HTTP refusal with no JSON-RPC error keeps its status as the code, as the 2025 transport's does
  // (a 401 is a sign-in to make, not a revision to fall back from).
  return status >= 300
    ? new Remote.Rejected({ code: status, reason: `the server answered HTTP ${status} without a JSON-RPC response` })
    : new Remote.Rejected({ code: -32603, reason: "the server answered something that is not a JSON-RPC response" })
}

const supportsOurs = (message: unknown): boolean => {
  const decoded = decodeResponse(message)
  if (Result.isFailure(decoded) || !("error" in decoded.success)) return false
  const { code, data } = decoded.success.error
  const supported = typeof data === "object" && data !== null ? (data as Json)["supported"] : undefined
  return code === Wire.codes.unsupportedVersion && Array.isArray(supported) && supported.includes(Wire.version)
}

/**
 * One connection's sender: ids counted from 1, the envelope on every request, and one retry of a
 * request refused for its version by a server that lists ours among those it speaks (a balancer's
 * node that had not caught up): nothing of it ran, so sending it again is safe.
 */
export const sender = (channel: Channels.Channel, identity: Identity): Send => {
  let next = 0
  const meta = {
    [Wire.meta.protocolVersion]: Wire.version,
    [Wire.meta.clientCapabilities]: identity.capabilities,
    [Wire.meta.clientInfo]: identity.clientInfo
  }
  const once = (
    method: string,
    params: Json,
    headers: Readonly<Record<string, string>>,
    onNotice: Channels.OnNotice,
    progress: boolean
  ) =>
    Effect.suspend(() => {
      const id = ++next
      const given = params["_meta"]
      const envelope = {
        ...(typeof given === "object" && given !== null ? given : {}),
        ...meta,
        ...(progress ? { progressToken: id } : {})
      }
      const message = { jsonrpc: "2.0", id, method, params: { ...params, _meta: envelope } }
      return channel.exchange({ id, message, headers: { ...headersOf(method, params), ...headers } }, onNotice)
    })
  return (method, params, options) => {
    const headers = options?.headers ?? {}
    const onNotice = options?.onNotice ?? (() => undefined)
    const progress = options?.progress === true
    const read = (reply: Channels.Reply): Effect.Effect<Json, Remote.Failure> => {
      const decoded = decodeResponse(reply.message)
      if (Result.isSuccess(decoded) && "result" in decoded.success) return Effect.succeed(decoded.success.result)
      return Effect.fail(rejection(reply.status, reply.message))
    }
    return Effect.flatMap(
      once(method, params, headers, onNotice, progress),
      (reply) =>
        supportsOurs(reply.message)
          ? Effect.flatMap(once(method, params, headers, onNotice, progress), read)
          : read(reply)
    )
  }
}

/** The most rounds one request may take before the client gives up on it. */
export const MAX_ROUNDS = 16

/**
 * How a round ended that is neither an answer nor a question (a task, in the tasks extension): the
 * raw result and how to go on. Left to the caller; without one such a result is refused.
 */
export type OnOther = (
  kind: string,
  result: Json
) => Effect.Effect<Json, Remote.Failure | Questions.Unanswered> | undefined

const unknownKind = (kind: string) =>
  new Remote.Rejected({
    code: -32603,
    reason: `the server answered a result of kind "${kind}", which this client does not follow`
  })

/**
 * A request driven to its answer: each `input_required` round's questions answered by `answer` (all
 * of them, side by side), and the request sent again with `inputResponses` and the `requestState`
 * the server gave, when it gave one — never another request's. A result with no `resultType` is an
 * answer. Bounded by `MAX_ROUNDS`.
 */
export const roundTrip = (
  send: Send,
  answer: (question: Questions.Question) => Effect.Effect<Json, Questions.Unanswered>,
  onOther?: OnOther
) =>
(
  method: string,
  params: Json,
  options?: Parameters<Send>[2]
): Effect.Effect<Json, Remote.Failure | Questions.Unanswered> =>
  Effect.gen(function*() {
    let retry: Json = params
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const result = yield* send(method, retry, options)
      const kind = decodeKind(result)
      if (Result.isFailure(kind)) {
        return yield* new Remote.Rejected({
          code: -32603,
          reason: `the server's result is malformed: ${Wire.sentence(kind.failure.issue, ["result"])}`
        })
      }
      const { inputRequests, requestState, resultType } = kind.success
      if (resultType === undefined || resultType === "complete") return result
      if (resultType !== "input_required") {
        const other = onOther?.(resultType, result)
        if (other === undefined) return yield* unknownKind(resultType)
        return yield* other
      }
      const answers = yield* Effect.forEach(
        Object.entries(inputRequests ?? {}),
        ([key, question]) => Effect.map(answer(question), (answered) => [key, answered] as const),
        { concurrency: "unbounded" }
      )
      retry = {
        ...params,
        inputResponses: Object.fromEntries(answers),
        ...(requestState === undefined ? {} : { requestState })
      }
    }
    return yield* new Remote.Rejected({
      code: -32603,
      reason: `the server still asked for input after ${MAX_ROUNDS} rounds; the request was abandoned`
    })
  })
