/**
 * A server's question answered by the toolset's handlers, in whichever revision it arrived.
 *
 * A 2025 server sends `elicitation/create`, `sampling/createMessage` or `roots/list` as a request;
 * a 2026 server puts the same method and params in an `input_required` result. Both reach `answer`
 * here, so one handler answers both and the answer is checked once: a form's missing fields take
 * their schema's defaults, and what a handler gives back is decoded before it is sent. What the
 * toolset advertises follows the handlers it was given (`capabilities`).
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { compileJsonSchema } from "../../core/JsonSchemaDecoder.ts"
import { messageOf } from "../../core/ToolFailure.ts"
import type * as Questions from "../Questions.ts"

/**
 * A question that could not be answered: none was asked of this toolset for its kind, or the
 * handler failed or gave back something of the wrong shape.
 */
export class Unanswered extends Data.TaggedError("McpUnanswered")<{
  readonly code: number
  readonly reason: string
}> {
  override get message(): string {
    return this.reason
  }
}

/** A question as either revision carries it. */
export interface Question {
  readonly method: string
  readonly params?: { readonly [key: string]: unknown } | undefined
}

/** Answers one question, with the server's configured name. */
export type Answerer = (
  server: string,
  question: Question
) => Effect.Effect<{ readonly [key: string]: unknown }, Unanswered>

const METHOD_NOT_FOUND = -32601
const INVALID_PARAMS = -32602
const INTERNAL_ERROR = -32603

const isRecord = (u: unknown): u is { readonly [key: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * What the toolset advertises it can be asked, from the handlers it was given.
 */
export const capabilities = (handlers: Questions.Handlers): { readonly [key: string]: unknown } => ({
  ...(handlers.elicit === undefined ? {} : { elicitation: { form: {} } }),
  ...(handlers.sample === undefined ? {} : { sampling: {} }),
  ...(handlers.roots === undefined ? {} : { roots: {} })
})

const isThenable = <A>(u: unknown): u is PromiseLike<A> =>
  typeof u === "object" && u !== null && typeof (u as { readonly then?: unknown }).then === "function"

// A handler's answer, whatever it returned: a value, a Promise or an Effect.
const settle = <A>(run: () => Questions.Answer<A>, what: string): Effect.Effect<A, Unanswered> =>
  Effect.suspend(() => {
    const given = run()
    if (Effect.isEffect(given)) return given
    if (isThenable<A>(given)) return Effect.tryPromise(() => Promise.resolve(given))
    return Effect.succeed(given as A)
  }).pipe(
    Effect.catchCause((cause) =>
      Effect.fail(new Unanswered({ code: INTERNAL_ERROR, reason: `the ${what} handler failed: ${messageOf(cause)}` }))
    )
  )

const FormValue = Schema.Union([Schema.String, Schema.Finite, Schema.Boolean, Schema.Array(Schema.String)])
const ElicitAnswer = Schema.Union([
  Schema.Struct({
    action: Schema.Literal("accept"),
    content: Schema.optionalKey(Schema.UndefinedOr(Schema.Record(Schema.String, FormValue)))
  }),
  Schema.Struct({ action: Schema.Literals(["decline", "cancel"]) })
])
const SampleAnswer = Schema.Struct({
  role: Schema.Literals(["assistant", "user"]),
  model: Schema.String,
  content: Schema.Record(Schema.String, Schema.Unknown),
  stopReason: Schema.optionalKey(Schema.UndefinedOr(Schema.String))
})
const Roots = Schema.Array(
  Schema.Struct({ uri: Schema.String, name: Schema.optionalKey(Schema.UndefinedOr(Schema.String)) })
)

const checked = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, what: string) => {
  const decode = Schema.decodeUnknownResult(schema)
  return (given: unknown): Effect.Effect<S["Type"], Unanswered> =>
    Result.match(decode(given), {
      onSuccess: Effect.succeed,
      onFailure: (error) =>
        Effect.fail(
          new Unanswered({
            code: INTERNAL_ERROR,
            reason: `the ${what} handler answered a wrong shape: ${error.message}`
          })
        )
    })
}

const checkElicit = checked(ElicitAnswer, "elicit")
const checkSample = checked(SampleAnswer, "sample")
const checkRoots = checked(Roots, "roots")

/**
 * The defaults a form's schema gives its fields (each property's `default`, where it is a value a
 * form can carry).
 */
export const defaultsOf = (schema: { readonly [key: string]: unknown }): { readonly [key: string]: unknown } => {
  const properties = schema["properties"]
  if (!isRecord(properties)) return {}
  const found: Record<string, unknown> = {}
  for (const [key, property] of Object.entries(properties)) {
    if (isRecord(property) && property["default"] !== undefined && property["default"] !== null)
      found[key] = property["default"]
  }
  return found
}

const withoutUndefined = (record: { readonly [key: string]: unknown }) =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined))

/**
 * A form's fields checked against the schema the server asked with, before they are sent: a
 * handler's answer that does not fit (a number for a boolean field) is the handler's mistake, refused
 * with a sentence naming the field, and the server is sent an error instead — never the answer. A
 * schema that cannot be compiled here leaves the fields as the handler gave them.
 */
export const fitForm = (
  server: string,
  requestedSchema: { readonly [key: string]: unknown },
  content: { readonly [key: string]: unknown }
): Effect.Effect<{ readonly [key: string]: unknown }, Unanswered> => {
  const compiled = compileJsonSchema(requestedSchema)
  if (Result.isFailure(compiled)) return Effect.succeed(content)
  return compiled.success(content).pipe(
    Effect.as(content),
    Effect.catch((error) => {
      const reason =
        `the elicit handler's answer does not fit the form MCP server "${server}" asked for: ${error.message}; ` +
        "the server was sent an error instead of the answer"
      return Effect.andThen(Effect.logWarning(reason), Effect.fail(new Unanswered({ code: INTERNAL_ERROR, reason })))
    })
  )
}

const elicit = (handlers: Questions.Handlers, server: string, params: { readonly [key: string]: unknown }) => {
  const handler = handlers.elicit
  // Not advertised, so a server that asks anyway hears no.
  if (handler === undefined) return Effect.succeed({ action: "decline" })
  const requestedSchema = isRecord(params["requestedSchema"]) ? params["requestedSchema"] : {}
  const message = typeof params["message"] === "string" ? params["message"] : ""
  return settle(() => handler({ server, message, requestedSchema }), "elicit").pipe(
    Effect.flatMap(checkElicit),
    Effect.flatMap((answer): Effect.Effect<{ readonly [key: string]: unknown }, Unanswered> =>
      answer.action !== "accept"
        ? Effect.succeed({ action: answer.action })
        : Effect.map(
          fitForm(server, requestedSchema, {
            ...defaultsOf(requestedSchema),
            ...withoutUndefined(answer.content ?? {})
          }),
          (content) => ({ action: "accept", content })
        )
    )
  )
}

const refused = (what: string) =>
  Effect.fail(
    new Unanswered({
      code: METHOD_NOT_FOUND,
      reason: `the server asked for ${what}, which this toolset does not offer`
    })
  )

/**
 * The one answerer for every server of a toolset: a question reaches its handler, and the handler's
 * answer is checked and completed before it goes back.
 */
export const answerer = (handlers: Questions.Handlers): Answerer => (server, question) => {
  const params = question.params ?? {}
  switch (question.method) {
    case "elicitation/create":
      return elicit(handlers, server, params)
    case "sampling/createMessage": {
      const sample = handlers.sample
      if (sample === undefined) return refused("a completion from its model (sampling)")
      return settle(() => sample({ server, params }), "sample").pipe(
        Effect.flatMap(checkSample),
        Effect.map((answer) => withoutUndefined(answer))
      )
    }
    case "roots/list": {
      const roots = handlers.roots
      if (roots === undefined) return refused("its roots")
      return settle(() => typeof roots === "function" ? roots(server) : roots, "roots").pipe(
        Effect.flatMap(checkRoots),
        Effect.map((listed) => ({ roots: listed.map((root) => withoutUndefined(root)) }))
      )
    }
    default:
      return Effect.fail(
        new Unanswered({
          code: INVALID_PARAMS,
          reason: `the server asked "${question.method}", which no client answers`
        })
      )
  }
}
