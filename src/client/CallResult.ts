/**
 * The one adapter every transport's tool answer goes through.
 *
 * MCP has two ways for a call to fail: a protocol error (the request was refused) and a result with
 * `isError: true` (the tool ran and reports a failure, in text written for the model to correct
 * against). Treating the second as a success tells the model a broken call worked. Every transport
 * hands its raw answer here, so the rule holds the same on stdio, HTTP, SSE and any custom
 * transport: the answer is decoded with a schema, `isError` fails with the server's text, and only
 * a real success comes back as a result.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Outcome from "effect/Result"
import * as Schema from "effect/Schema"
import { toInputError } from "../core/internal/issues.ts"
import { McpProtocolError, McpToolError } from "./Errors.ts"

const Block = Schema.StructWithRest(Schema.Struct({ type: Schema.String }), [
  Schema.Record(Schema.String, Schema.Unknown)
])

/**
 * One content block of an answer, as the server sent it: `text`, `image`, `audio`, `resource`,
 * `resource_link`, or a kind from a later protocol revision, passed on unchanged.
 *
 * @example
 * ```ts
 * import type { McpCallResult } from "effect-surface/client"
 * const block: McpCallResult.Content = { type: "text", text: "Echo: hi" }
 * ```
 *
 * @since 0.1.0
 */
export type Content = typeof Block.Type

/**
 * A successful answer: its content blocks and, when the tool gives one, its structured content.
 *
 * @example
 * ```ts
 * import type { McpCallResult } from "effect-surface/client"
 * const answer: McpCallResult.Result = { content: [{ type: "text", text: "3" }], structuredContent: { sum: 3 } }
 * ```
 *
 * @since 0.1.0
 */
export interface Result {
  readonly content: ReadonlyArray<Content>
  readonly structuredContent?: { readonly [key: string]: unknown }
}

/**
 * The schema of a successful answer, for a caller that hands answers on (an `effect/ai` tool's
 * `success`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { McpCallResult } from "effect-surface/client"
 * Schema.decodeUnknownSync(McpCallResult.ResultSchema)({ content: [{ type: "text", text: "ok" }] })
 * ```
 *
 * @since 0.1.0
 */
export const ResultSchema = Schema.Struct({
  content: Schema.Array(Block),
  structuredContent: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
})

const Raw = Schema.Struct({
  content: Schema.optionalKey(Schema.Array(Block)),
  structuredContent: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  isError: Schema.optionalKey(Schema.Boolean)
})
const decodeRaw = Schema.decodeUnknownResult(Raw, { errors: "all" })

const isPlainObject = (u: unknown): u is { readonly [key: string]: unknown } => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return false
  const proto: unknown = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}
const absentOr = (raw: { readonly [key: string]: unknown }, key: string, ok: (value: unknown) => boolean) =>
  !Object.hasOwn(raw, key) || ok(raw[key])
const isBlocks = (content: unknown) =>
  Array.isArray(content) && content.every((block) => isPlainObject(block) && typeof block["type"] === "string")

// The answer as nearly every server gives it — plain JSON objects, each content block naming its
// type — is one the schema accepts and returns unchanged; it is recognised here without the
// decoder's cost on every call. Anything else is decoded by the schema, whose sentence names the flaw.
const isUsual = (raw: unknown): raw is typeof Raw.Type =>
  isPlainObject(raw) &&
  absentOr(raw, "content", isBlocks) &&
  absentOr(raw, "structuredContent", isPlainObject) &&
  absentOr(raw, "isError", (value) => typeof value === "boolean")

/**
 * The text an answer carries: its text blocks, one per line.
 *
 * @example
 * ```ts
 * import { McpCallResult } from "effect-surface/client"
 * McpCallResult.textOf({ content: [{ type: "text", text: "a" }, { type: "image", data: "", mimeType: "image/png" }] }) // "a"
 * ```
 *
 * @since 0.1.0
 */
export const textOf = (result: { readonly content: ReadonlyArray<Content> }): string =>
  result.content.flatMap((block) => block.type === "text" && typeof block["text"] === "string" ? [block["text"]] : [])
    .join("\n")

/**
 * Which call an answer belongs to, for the errors that name it.
 *
 * @example
 * ```ts
 * import type { McpCallResult } from "effect-surface/client"
 * const call: McpCallResult.Call = { name: "memory__read_graph", server: "memory", tool: "read_graph" }
 * ```
 *
 * @since 0.1.0
 */
export interface Call {
  readonly name: string
  readonly server: string
  readonly tool: string
}

/**
 * Read a raw `tools/call` answer: a result, or `McpToolError` with the server's text (and its
 * `structuredContent`, when it gave one) for `isError: true`, or `McpProtocolError` for an answer
 * that is not a tool result.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpCallResult } from "effect-surface/client"
 * const call = { name: "files__read_text_file", server: "files", tool: "read_text_file" }
 * McpCallResult.adapt({ isError: true, content: [{ type: "text", text: "Access denied" }] }, call)
 * // fails with McpToolError: "MCP tool error: Access denied"
 * ```
 *
 * @since 0.1.0
 */
export const adapt = (raw: unknown, call: Call): Effect.Effect<Result, McpToolError | McpProtocolError> => {
  // The usual answer is taken as it is, with no Result around it.
  const decoded = isUsual(raw) ? undefined : decodeRaw(raw)
  if (decoded !== undefined && Outcome.isFailure(decoded)) {
    const reason = `the answer is not a tool result: ${toInputError(decoded.failure.issue, []).message}`
    return Effect.fail(new McpProtocolError({ name: call.name, server: call.server, code: -32603, reason }))
  }
  const answer: typeof Raw.Type = decoded === undefined ? raw as typeof Raw.Type : decoded.success
  const content = answer.content ?? []
  if (answer.isError === true) {
    const text = textOf({ content })
    const detail = answer.structuredContent
    return Effect.fail(
      new McpToolError({
        ...call,
        text: text === "" ? "the tool reported a failure and gave no text" : text,
        content,
        ...(detail === undefined ? {} : { structuredContent: detail })
      })
    )
  }
  return Effect.succeed(
    answer.structuredContent === undefined ? { content } : { content, structuredContent: answer.structuredContent }
  )
}

/**
 * Check an answer's `structuredContent` against the tool's declared output schema: a tool that
 * declares one must answer with it, and it must conform; otherwise the call fails with a protocol
 * error whose reason names the field that is wrong.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpCallResult } from "effect-surface/client"
 * const unchecked = (value: unknown) => Effect.succeed(value)
 * McpCallResult.conform({ content: [], structuredContent: { n: 1 } }, unchecked, { name: "s__t", server: "s", tool: "t" })
 * ```
 *
 * @since 0.1.0
 */
export const conform = (
  result: Result,
  output: (value: unknown) => Effect.Effect<unknown, { readonly message: string }>,
  call: Call
): Effect.Effect<Result, McpProtocolError> => {
  const refuse = (reason: string) =>
    Effect.fail(new McpProtocolError({ name: call.name, server: call.server, code: -32603, reason }))
  if (result.structuredContent === undefined)
    return refuse("the tool declares an output schema but its answer has no structuredContent")
  return output(result.structuredContent).pipe(
    Effect.matchEffect({
      onFailure: (error) => refuse(`its structuredContent does not match the tool's output schema: ${error.message}`),
      onSuccess: () => Effect.succeed(result)
    })
  )
}
