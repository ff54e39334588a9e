/**
 * Suggestions for a prompt's arguments and a resource template's parameters (`completion/complete`).
 *
 * A host offers completion as the user types, so an answer must be cheap, bounded and live: a
 * collection's item template completes from the keys the collection holds now, not from a list
 * frozen at boot, and every answer carries at most 100 values with the true `total` and `hasMore`,
 * whatever a completer returns. Completers are plain Effects over what was typed so far, so an app
 * completes from anything it can read.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { messageOf } from "../../core/ToolFailure.ts"
import * as RpcError from "./RpcError.ts"

/**
 * What a completer is told besides the value typed so far: the arguments already filled in.
 *
 * @example
 * ```ts
 * import type { McpCompletion } from "effect-surface/mcp"
 * const context: McpCompletion.Context = { arguments: { language: "en" } }
 * ```
 *
 * @since 0.1.0
 */
export interface Context {
  readonly arguments: { readonly [name: string]: string }
}

/**
 * Suggest values for one argument from what was typed so far. The answer is bounded and counted by
 * the face; a completer may return every match.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { McpCompletion } from "effect-surface/mcp"
 * const colour: McpCompletion.Completer = (value) => Effect.succeed(["red", "green"].filter((c) => c.startsWith(value)))
 * ```
 *
 * @since 0.1.0
 */
export type Completer = (value: string, context: Context) => Effect.Effect<ReadonlyArray<string>, unknown>

/**
 * The most values one answer carries (MCP's limit).
 *
 * @example
 * ```ts
 * import { McpCompletion } from "effect-surface/mcp"
 * McpCompletion.MAX_VALUES // 100
 * ```
 *
 * @since 0.1.0
 */
export const MAX_VALUES = 100

/**
 * The `completion` of a `completion/complete` answer.
 *
 * @example
 * ```ts
 * import type { McpCompletion } from "effect-surface/mcp"
 * const answer: McpCompletion.Completion = { values: ["red"], total: 1, hasMore: false }
 * ```
 *
 * @since 0.1.0
 */
export interface Completion {
  readonly values: Array<string>
  readonly total: number
  readonly hasMore: boolean
}

/**
 * Bound a list of matches to one answer: the first 100 distinct values, their true count, and
 * whether more were left out.
 *
 * @example
 * ```ts
 * import { McpCompletion } from "effect-surface/mcp"
 * McpCompletion.bound(["a", "b"]) // { values: ["a", "b"], total: 2, hasMore: false }
 * ```
 *
 * @since 0.1.0
 */
export const bound = (matches: Iterable<string>): Completion => {
  const distinct = [...new Set(matches)]
  return { values: distinct.slice(0, MAX_VALUES), total: distinct.length, hasMore: distinct.length > MAX_VALUES }
}

/**
 * The answer with nothing to suggest.
 *
 * @example
 * ```ts
 * import { McpCompletion } from "effect-surface/mcp"
 * McpCompletion.empty // { values: [], total: 0, hasMore: false }
 * ```
 *
 * @since 0.1.0
 */
export const empty: Completion = bound([])

/**
 * The candidates that start with what was typed, in their order.
 *
 * @example
 * ```ts
 * import { McpCompletion } from "effect-surface/mcp"
 * McpCompletion.byPrefix(["red", "green", "rose"], "r") // ["red", "rose"]
 * ```
 *
 * @since 0.1.0
 */
export const byPrefix = (candidates: Iterable<string>, value: string): ReadonlyArray<string> =>
  [...candidates].filter((candidate) => candidate.startsWith(value))

/**
 * A completer over a fixed list, matching by prefix.
 *
 * @example
 * ```ts
 * import { McpCompletion } from "effect-surface/mcp"
 * const colour = McpCompletion.fromValues(["red", "green", "blue"])
 * ```
 *
 * @since 0.1.0
 */
export const fromValues = (candidates: ReadonlyArray<string>): Completer => (value) =>
  Effect.succeed(byPrefix(candidates, value))

/**
 * Run a completer, bounding its answer; a failing completer is an internal error naming the argument.
 *
 * @example
 * ```ts
 * import { McpCompletion } from "effect-surface/mcp"
 *
 * const completer = McpCompletion.fromValues(["en", "es", "fr"])
 * const answer = McpCompletion.run("language", completer, "e", { arguments: {} }) // { values: ["en", "es"], ... }
 * ```
 *
 * @since 0.1.0
 */
export const run = (
  argument: string,
  completer: Completer | undefined,
  value: string,
  context: Context
): Effect.Effect<Completion, RpcError.ProtocolError> =>
  completer === undefined
    ? Effect.succeed(empty)
    : completer(value, context).pipe(
      Effect.map(bound),
      Effect.mapError((error) =>
        new RpcError.ProtocolError({
          code: RpcError.internalError,
          message: `completing "${argument}" failed: ${messageOf(error)}`
        })
      )
    )
