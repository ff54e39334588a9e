/**
 * effect-surface/tools: the verb vocabulary an app hands to every face, and nothing that serves it.
 *
 * The tool record (`make`, `jsonSchema`, `call`), the refusal (`ToolFailure`, `messageOf`) and the
 * result framing (`ok`, `okImage`, `content`, …) are the whole vocabulary of a hand-authored tool.
 * This is their one public door: a command line's `--help` must not pay to load a server it never
 * boots, so this module imports no module of `@modelcontextprotocol/sdk`, directly or transitively
 * (a test spawns Node to prove it).
 *
 * @since 0.1.0
 */
export * from "./core/Tool.ts"

/**
 * The refusal and its wording (see `ToolFailure` in the core): `ToolFailure`, `isToolFailure`,
 * `refuse` (a refusal from its two parts), `messageOf` (one sentence for any failure),
 * `primaryOf` (the one failure a `Cause` is reported by), and what a defect becomes: `Unexpected`
 * (the sentence an agent is told, with an id) and `logDefect`, `reportDefect`, `toldOf` and
 * `defectsReported`, which log it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { isToolFailure, messageOf, refuse, ToolFailure } from "effect-surface/tools"
 *
 * const refused = Effect.fail(new ToolFailure({ message: "stale", detail: { since: 3 } }))
 * isToolFailure(refuse("no", 1)) // true
 * messageOf(new Error("disk full")) // "disk full"
 * ```
 *
 * @since 0.1.0
 */
export {
  defectsReported,
  is as isToolFailure,
  logDefect,
  make as refuse,
  messageOf,
  primaryOf,
  reportDefect,
  toldOf,
  ToolFailure,
  Unexpected
} from "./core/ToolFailure.ts"

/**
 * The result framing (see `ToolResult` in the core): answers (`ok`, `okImage`, `content` and its
 * blocks), refusals (`failure`, `fromCause`, `fromExit`), `frame`, which runs a handler to a
 * result that cannot fail, and `readable`, a result as a person reads it.
 *
 * @example
 * ```ts
 * import { content, image, ok, text } from "effect-surface/tools"
 *
 * ok({ open: 3 }) // { content: [{ type: "text", text: '{"open":3}' }], structuredContent: { open: 3 } }
 * content([text("the chart:"), image("iVBORw0KGgo=", "image/png")])
 * ```
 *
 * @since 0.1.0
 */
export {
  audio,
  brand,
  content,
  failure,
  fromCause,
  fromExit,
  frame,
  image,
  ok,
  okImage,
  readable,
  resource,
  text
} from "./core/ToolResult.ts"

/**
 * The shapes of a result and its content blocks.
 *
 * @example
 * ```ts
 * import type { ToolResult } from "effect-surface/tools"
 * const answer: ToolResult = { content: [{ type: "text", text: "done" }] }
 * ```
 *
 * @since 0.1.0
 */
export type {
  AudioContent,
  EmbeddedResource,
  Image,
  ImageContent,
  ResourceContents,
  TextContent,
  ToolContent,
  ToolResult
} from "./core/ToolResult.ts"
