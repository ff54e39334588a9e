/**
 * The questions a 2026-07-28 call puts to its client inside `input_required`, and the checks on the
 * answers that come back in `inputResponses`.
 *
 * A handler asks through the core's `Ask` (a form, a model's completion, the client's roots); this
 * module writes each question as the request object the revision carries in `inputRequests`, and
 * reads each answer back with Effect Schema before it reaches the handler. An answer is the
 * client's word, so its shape is checked against its question's method; one that does not match
 * is refused with a sentence naming what was wrong, and never handed on.
 *
 * @internal
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Ask from "../../../core/Ask.ts"
import type * as Elicitation from "../../../core/Elicitation.ts"
import { preview } from "../../../core/InputError.ts"
import type * as Json from "../../../core/Json.ts"
import * as Wire from "../../../protocol/v2026/Messages.ts"

/**
 * One question as `inputRequests` carries it.
 */
export interface InputRequest {
  readonly method: "elicitation/create" | "sampling/createMessage" | "roots/list"
  readonly params: Json.JsonObject
}

/**
 * A form for a person to fill in.
 */
export const elicitation = (message: string, requestedSchema: Elicitation.RequestedSchema): InputRequest => ({
  method: "elicitation/create",
  params: { mode: "form", message, requestedSchema: requestedSchema as unknown as Json.JsonObject }
})

/**
 * A completion for the client's model to write.
 */
export const sampling = (request: Ask.SampleRequest): InputRequest => ({
  method: "sampling/createMessage",
  // The core's request is the revision's params read as plain JSON.
  params: request as unknown as Json.JsonObject
})

/**
 * The client's roots.
 */
export const roots: InputRequest = { method: "roots/list", params: {} }

const FormValue = Schema.Union([Schema.String, Schema.Finite, Schema.Boolean, Schema.Array(Schema.String)])

const ElicitResult = Schema.Struct({
  action: Schema.Literals(["accept", "decline", "cancel"]),
  content: Schema.optionalKey(Schema.Record(Schema.String, FormValue))
})

const Block = Schema.Union([
  Schema.Struct({ type: Schema.Literal("text"), text: Schema.String }),
  Schema.Struct({ type: Schema.Literals(["image", "audio"]), data: Schema.String, mimeType: Schema.String })
])

const CreateMessageResult = Schema.Struct({
  role: Schema.Literals(["user", "assistant"]),
  content: Schema.Union([Block, Schema.NonEmptyArray(Block)]),
  model: Schema.String,
  stopReason: Schema.optionalKey(Schema.String)
})

const ListRootsResult = Schema.Struct({
  roots: Schema.Array(Schema.Struct({ uri: Schema.String, name: Schema.optionalKey(Schema.String) }))
})

const checked = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S) => {
  const decode = Schema.decodeUnknownResult(schema)
  return (answer: unknown): Result.Result<S["Type"], string> =>
    Result.mapError(decode(answer), (error) => Wire.sentence(error.issue, []))
}

const elicitShape = checked(ElicitResult)
const sampleShape = checked(CreateMessageResult)
const rootsShape = checked(ListRootsResult)

/**
 * An answer to a form, as the core's `Ask` reads it.
 */
export const decodeElicit = (answer: unknown): Result.Result<Ask.ElicitReply, string> => elicitShape(answer)

/**
 * A model's completion, as the core's `Ask` reads it: a list of blocks gives its first.
 */
export const decodeSample = (answer: unknown): Result.Result<Ask.SampleResult, string> =>
  Result.map(sampleShape(answer), (result) => ({
    role: result.role,
    content: Array.isArray(result.content) ? result.content[0] : result.content,
    model: result.model,
    ...(result.stopReason === undefined ? {} : { stopReason: result.stopReason })
  } as Ask.SampleResult))

/**
 * The client's roots, as the core's `Ask` reads them.
 */
export const decodeRoots = (answer: unknown): Result.Result<ReadonlyArray<Ask.Root>, string> =>
  Result.map(rootsShape(answer), (result) => result.roots)

/**
 * Whether `answer` has the shape of an answer to `method`; the sentence saying why not.
 */
export const check = (method: InputRequest["method"], answer: unknown): Result.Result<void, string> => {
  switch (method) {
    case "elicitation/create":
      return Result.map(elicitShape(answer), () => undefined)
    case "sampling/createMessage":
      return Result.map(sampleShape(answer), () => undefined)
    case "roots/list":
      return Result.map(rootsShape(answer), () => undefined)
  }
}

/**
 * The bytes an answer takes as JSON; one that cannot be written (nested past the stack) counts as
 * more than any bound.
 */
export const bytesOf = (answer: unknown): number => {
  try {
    return Buffer.byteLength(JSON.stringify(answer) ?? "")
  } catch {
    return Number.POSITIVE_INFINITY
  }
}

/**
 * Read a request's `inputResponses`: absent is none; otherwise an object whose every answer is an
 * object (which method it answers is known only once it is matched to its question) of at most
 * `maxBytes` bytes of JSON.
 */
export const responsesOf = (
  params: { readonly [key: string]: unknown },
  maxBytes: number
): Result.Result<{ readonly [key: string]: unknown }, string> => {
  if (!Object.hasOwn(params, "inputResponses")) return Result.succeed({})
  const given = params["inputResponses"]
  if (typeof given !== "object" || given === null || Array.isArray(given)) {
    return Result.fail(`"inputResponses" must be an object of answers keyed by question, got ${preview(given)}`)
  }
  for (const [key, answer] of Object.entries(given)) {
    if (typeof answer !== "object" || answer === null || Array.isArray(answer)) {
      return Result.fail(`inputResponses[${preview(key)}] must be an answer object, got ${preview(answer)}`)
    }
    const bytes = bytesOf(answer)
    if (bytes > maxBytes) {
      return Result.fail(
        `inputResponses[${preview(key)}] is ${
          Number.isFinite(bytes) ? `${bytes} bytes` : "nested too deep to measure"
        }, more than the ${maxBytes} bytes an answer may be (requestState.maxAnswerBytes)`
      )
    }
  }
  return Result.succeed(given as { readonly [key: string]: unknown })
}
