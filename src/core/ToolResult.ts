/**
 * How a tool's outcome becomes the result a host reads.
 *
 * Every face — MCP, the CLI, a served tool table — owes its caller the same framing: a success as
 * prose plus data read off one serialization, a failure as a branded sentence that never escapes as
 * a protocol error, a picture as its bytes once. Framing lives here, over our own result type, so
 * the core never imports an MCP SDK type and every face frames an outcome the same way; the type is
 * kept structurally assignable to the SDK's `CallToolResult` so the MCP face hands it over as is.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import * as Json from "./Json.ts"
import * as ToolFailure from "./ToolFailure.ts"

/**
 * A block of prose in a result.
 *
 * @example
 * ```ts
 * import type { TextContent } from "effect-surface/tools"
 * const block: TextContent = { type: "text", text: "3 sessions open" }
 * ```
 *
 * @since 0.1.0
 */
export type TextContent = { readonly type: "text"; readonly text: string }

/**
 * A picture in a result: base64 bytes and their mime type, rendered by the host.
 *
 * @example
 * ```ts
 * import type { ImageContent } from "effect-surface/tools"
 * const block: ImageContent = { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }
 * ```
 *
 * @since 0.1.0
 */
export type ImageContent = { readonly type: "image"; readonly data: string; readonly mimeType: string }

/**
 * A sound in a result: base64 bytes and their mime type.
 *
 * @example
 * ```ts
 * import type { AudioContent } from "effect-surface/tools"
 * const block: AudioContent = { type: "audio", data: "UklGRg==", mimeType: "audio/wav" }
 * ```
 *
 * @since 0.1.0
 */
export type AudioContent = { readonly type: "audio"; readonly data: string; readonly mimeType: string }

/**
 * The contents of a resource carried inside a result: text, or base64 bytes as `blob`.
 *
 * @example
 * ```ts
 * import type { ResourceContents } from "effect-surface/tools"
 * const text: ResourceContents = { uri: "notes://today", mimeType: "text/plain", text: "buy milk" }
 * const bytes: ResourceContents = { uri: "files://logo.png", mimeType: "image/png", blob: "iVBORw0KGgo=" }
 * ```
 *
 * @since 0.1.0
 */
export type ResourceContents =
  | { readonly uri: string; readonly mimeType?: string; readonly text: string }
  | { readonly uri: string; readonly mimeType?: string; readonly blob: string }

/**
 * A resource embedded in a result, so the host has its contents without a second read.
 *
 * @example
 * ```ts
 * import type { EmbeddedResource } from "effect-surface/tools"
 * const block: EmbeddedResource = { type: "resource", resource: { uri: "notes://today", mimeType: "text/plain", text: "buy milk" } }
 * ```
 *
 * @since 0.1.0
 */
export type EmbeddedResource = { readonly type: "resource"; readonly resource: ResourceContents }

/**
 * The content blocks a result may carry.
 *
 * @example
 * ```ts
 * import type { ToolContent } from "effect-surface/tools"
 * const blocks: Array<ToolContent> = [{ type: "text", text: "done" }]
 * ```
 *
 * @since 0.1.0
 */
export type ToolContent = TextContent | ImageContent | AudioContent | EmbeddedResource

/**
 * A tool's answer as a host reads it. A type alias, not an interface, and a mutable `content`
 * array, so it stays assignable to the MCP SDK's `CallToolResult` (an index-signature type).
 *
 * @example
 * ```ts
 * import type { ToolResult } from "effect-surface/tools"
 * const result: ToolResult = { content: [{ type: "text", text: "42" }], structuredContent: { value: 42 } }
 * ```
 *
 * @since 0.1.0
 */
export type ToolResult = {
  readonly content: Array<ToolContent>
  readonly structuredContent?: Json.JsonObject
  readonly isError?: true
}

/**
 * The picture `okImage` frames: base64 bytes and what they are.
 *
 * @example
 * ```ts
 * import type * as ToolResult from "effect-surface/tools"
 * const image: ToolResult.Image = { data: "iVBORw0KGgo=", mimeType: "image/png" }
 * ```
 *
 * @since 0.1.0
 */
export interface Image {
  readonly data: string
  readonly mimeType: string
}

/**
 * The prefix on every failure sentence, so an agent can tell the framework's report from the text
 * of a tool's own answer.
 *
 * @example
 * ```ts
 * import * as ToolResult from "effect-surface/tools"
 * ToolResult.brand + "link failed" // "effect-surface: link failed"
 * ```
 *
 * @since 0.1.0
 */
export const brand = "effect-surface: "

const errorText = (message: string): ToolResult => ({
  content: [{ type: "text", text: brand + message }],
  isError: true
})

// MCP asks that structured content also travel as its serialized JSON in a text block, for a host
// that reads only text: the text of the structured arm itself, so both arms say the same thing. The
// value's own text already is that when the value is an object; anything else is under `value`.
const structuredText = ({ text }: Json.Serialized): TextContent => ({
  type: "text",
  text: text.startsWith("{") ? text : `{"value":${text}}`
})

/**
 * Frame a success: `structuredContent` is its JSON (an object bare, anything else under `value`;
 * `undefined` as `null`, a `Date` as its ISO string) and the content is that same JSON as text, as
 * MCP asks of structured content. An answer with no JSON form becomes an error result naming its
 * constructor and why, never a throw.
 *
 * @example
 * ```ts
 * import * as ToolResult from "effect-surface/tools" // or: import { ok } from "effect-surface/tools"
 * ToolResult.ok({ open: 3 }) // { content: [{ type: "text", text: '{"open":3}' }], structuredContent: { open: 3 } }
 * ToolResult.ok(42) // { content: [{ type: "text", text: '{"value":42}' }], structuredContent: { value: 42 } }
 * ```
 *
 * @since 0.1.0
 */
export const ok = (value: unknown): ToolResult =>
  Result.match(Json.serialize(value), {
    onSuccess: (serialized): ToolResult => ({
      content: [structuredText(serialized)],
      structuredContent: serialized.structured
    }),
    onFailure: (unserializable) => errorText(`the answer could not be sent: ${unserializable.message}`)
  })

/**
 * Frame a picture: the bytes once, as one image block, and `detail` (mime type, dimensions, …) as the
 * structured arm, normalized like any success, its JSON also as a text block after the image (a host
 * that reads only text still learns what the picture shows). Keeping the bytes out of `detail` is the
 * caller's contract, not a check: a second copy would cost the model's context its full size for nothing.
 *
 * @example
 * ```ts
 * import { okImage } from "effect-surface/tools"
 * const render = (shot: { png: string; width: number; height: number }) =>
 *   okImage({ data: shot.png, mimeType: "image/png" }, { mimeType: "image/png", width: shot.width, height: shot.height })
 * ```
 *
 * @since 0.1.0
 */
export const okImage = (image: Image, detail: unknown): ToolResult =>
  Result.match(Json.serialize(detail), {
    onSuccess: (serialized): ToolResult => ({
      content: [{ type: "image", data: image.data, mimeType: image.mimeType }, structuredText(serialized)],
      structuredContent: serialized.structured
    }),
    onFailure: (unserializable) => errorText(`the image's detail could not be sent: ${unserializable.message}`)
  })

/**
 * Frame several blocks as one answer — prose beside a picture, a sound, an embedded resource — and
 * `detail`, when given, as the structured arm, normalized like any success, its JSON as one more text
 * block after them. The blocks travel as given and in order; like `okImage`, keeping bytes out of
 * `detail` is the caller's contract. Prose alone (`content([text(s)])`) has no structured arm: a
 * detail that only repeated it would have the model read the answer twice.
 *
 * @example
 * ```ts
 * import * as ToolResult from "effect-surface/tools" // or: import { content } from "effect-surface/tools"
 * ToolResult.content([
 *   ToolResult.text("Here is the chart and its data:"),
 *   ToolResult.image("iVBORw0KGgo=", "image/png"),
 *   ToolResult.resource({ uri: "data://chart.json", mimeType: "application/json", text: "[1,2,3]" })
 * ], { points: 3 })
 * ```
 *
 * @since 0.1.0
 */
export const content = (blocks: ReadonlyArray<ToolContent>, detail?: unknown): ToolResult => {
  if (detail === undefined) return { content: [...blocks] }
  return Result.match(Json.serialize(detail), {
    onSuccess: (serialized): ToolResult => ({
      content: [...blocks, structuredText(serialized)],
      structuredContent: serialized.structured
    }),
    onFailure: (unserializable) => errorText(`the answer's detail could not be sent: ${unserializable.message}`)
  })
}

/**
 * A result as a person reads it (a command line prints it): its blocks but the one repeating the
 * structured arm as JSON text — as `ok`, `okImage` and `content` add it, or as another server wrote
 * it (any spacing or key order, a `{ value }` arm's bare value) — and the structured arm's value, unwrapped
 * from `value` when that is all it holds, as `ok` wraps anything but an object.
 *
 * @example
 * ```ts
 * import * as ToolResult from "effect-surface/tools"
 * ToolResult.readable(ToolResult.ok("exported")) // { blocks: [], value: "exported" }
 * ToolResult.readable(ToolResult.ok({ id: "t1" })) // { blocks: [], value: { id: "t1" } }
 * ToolResult.readable(ToolResult.content([ToolResult.text("done")])) // { blocks: [{ type: "text", text: "done" }] }
 * ```
 *
 * @since 0.1.0
 */
export const readable = (
  result: ToolResult
): { readonly blocks: ReadonlyArray<ToolContent>; readonly value?: Json.Json } => {
  const structured = result.structuredContent
  if (structured === undefined) return { blocks: result.content }
  const keys = Object.keys(structured)
  const value = keys.length === 1 && keys[0] === "value" ? structured["value"] ?? null : structured
  const echoes: ReadonlyArray<string | undefined> = [Json.canonical(structured), Json.canonical(value)]
  const repeats = (block: ToolContent) =>
    block.type === "text" && (block.text === value || echoes.includes(canonicalText(block.text)))
  return { blocks: result.content.filter((block) => !repeats(block)), value }
}

// A text block's JSON in its one canonical spelling; prose (no JSON) matches no echo.
const canonicalText = (text: string): string | undefined => {
  try {
    return Json.canonical(JSON.parse(text))
  } catch {
    return undefined
  }
}

/**
 * A text block, for `content`.
 *
 * @example
 * ```ts
 * import * as ToolResult from "effect-surface/tools"
 * ToolResult.text("done") // { type: "text", text: "done" }
 * ```
 *
 * @since 0.1.0
 */
export const text = (text: string): TextContent => ({ type: "text", text })

/**
 * An image block (base64 bytes), for `content`.
 *
 * @example
 * ```ts
 * import * as ToolResult from "effect-surface/tools"
 * ToolResult.image("iVBORw0KGgo=", "image/png")
 * ```
 *
 * @since 0.1.0
 */
export const image = (data: string, mimeType: string): ImageContent => ({ type: "image", data, mimeType })

/**
 * An audio block (base64 bytes), for `content`.
 *
 * @example
 * ```ts
 * import * as ToolResult from "effect-surface/tools"
 * ToolResult.audio("UklGRg==", "audio/wav")
 * ```
 *
 * @since 0.1.0
 */
export const audio = (data: string, mimeType: string): AudioContent => ({ type: "audio", data, mimeType })

/**
 * An embedded resource block, for `content`.
 *
 * @example
 * ```ts
 * import * as ToolResult from "effect-surface/tools"
 * ToolResult.resource({ uri: "notes://today", mimeType: "text/plain", text: "buy milk" })
 * ```
 *
 * @since 0.1.0
 */
export const resource = (contents: ResourceContents): EmbeddedResource => ({ type: "resource", resource: contents })

/**
 * Frame a failure value. Every failure becomes a branded sentence (`messageOf`) with `isError`; only
 * a `ToolFailure` also carries `structuredContent` — its detail, normalized exactly like a success.
 * Anything else stays message-only, so an incidental error's stack never reaches the data channel.
 * A `Cause` is read through to its first failure (then defect, then interruption).
 *
 * @example
 * ```ts
 * import { failure, ToolFailure } from "effect-surface/tools"
 * failure(new Error("disk full")) // { isError: true, content: [{ type: "text", text: "effect-surface: disk full" }] }
 * failure(new ToolFailure({ message: "busy", detail: { retryIn: 5 } })) // … structuredContent: { retryIn: 5 }
 * ```
 *
 * @since 0.1.0
 */
export const failure = (error: unknown): ToolResult => {
  const primary = Cause.isCause(error) ? ToolFailure.primaryOf(error) : error
  if (!ToolFailure.is(primary)) return errorText(ToolFailure.messageOf(primary))
  const message = ToolFailure.messageOf(primary)
  return Result.match(Json.serialize(primary.detail), {
    onSuccess: ({ structured }): ToolResult => ({
      content: [{ type: "text", text: brand + message }],
      structuredContent: structured,
      isError: true
    }),
    // A refusal cannot publish a shape a success would have been refused for: drop the arm, say so.
    onFailure: (unserializable) => errorText(`${message} (its detail was dropped: ${unserializable.message})`)
  })
}

/**
 * Frame the `Cause` of a failed handler run: a typed failure, a defect or an interruption.
 *
 * @example
 * ```ts
 * import { Cause } from "effect"
 * import * as ToolResult from "effect-surface/tools"
 * ToolResult.fromCause(Cause.interrupt()) // { isError: true, content: [{ type: "text", text: "effect-surface: interrupted" }] }
 * ```
 *
 * @since 0.1.0
 */
export const fromCause = (cause: Cause.Cause<unknown>): ToolResult => failure(cause)

/**
 * Frame the `Exit` of a handler run: a success through `render` (or `ok`), a failure through
 * `failure`. `render` is called as is — it is a pure function of the answer; a face that wants a
 * throwing `render` framed as a defect uses `frame`, which runs it inside the effect.
 *
 * @example
 * ```ts
 * import { Exit } from "effect"
 * import { fromExit } from "effect-surface/tools"
 * fromExit(Exit.succeed({ open: 3 })) // structuredContent: { open: 3 }
 * fromExit(Exit.fail(new Error("disk full"))) // isError, "effect-surface: disk full"
 * ```
 *
 * @since 0.1.0
 */
export const fromExit = <A, E>(exit: Exit.Exit<A, E>, render?: (out: A) => ToolResult): ToolResult =>
  Exit.isSuccess(exit) ? (render === undefined ? ok(exit.value) : render(exit.value)) : fromCause(exit.cause)

/**
 * Run a handler's effect to a result that cannot fail: every success, failure, defect (a throwing
 * `render` included) and interruption becomes a `ToolResult`. This is what a face dispatches through.
 *
 * @example
 * ```ts
 * import type { Bundle } from "effect-surface"
 * import { frame } from "effect-surface/tools"
 *
 * declare const tool: Bundle.BespokeTool<Bundle.Clients>
 * declare const clients: Bundle.Clients
 * const result = frame(tool.handler({}, clients), tool.render) // never fails: a refusal is an isError result
 * ```
 *
 * @since 0.1.0
 */
export const frame = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  render?: (out: A) => ToolResult
): Effect.Effect<ToolResult, never, R> =>
  Effect.catchCause(
    // Inside the effect, so a throwing render is a defect framed below rather than a crashed face.
    Effect.map(effect, render ?? ok),
    framedCause
  )

const framedCause = (cause: Cause.Cause<unknown>): Effect.Effect<ToolResult> => Effect.succeed(fromCause(cause))
