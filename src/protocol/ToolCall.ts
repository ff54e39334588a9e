/**
 * What a `tools/call` request's parameters must be, in either revision: the tool's name, a string,
 * and its arguments, an object when given. Decided once here, so that a caller's malformed call is
 * answered in the same sentence whichever era its connection speaks.
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"
import type * as Json from "../core/Json.ts"
import { preview } from "../core/InputError.ts"

/**
 * A `tools/call`'s name and arguments, read from its `params`.
 *
 * @example
 * ```ts
 * import type { McpToolCall } from "effect-surface/mcp"
 * const call: McpToolCall.Call = { name: "tasks_add", args: { title: "Write the docs" } }
 * ```
 *
 * @since 0.1.0
 */
export interface Call {
  readonly name: string
  readonly args: Json.JsonObject
}

const isRecord = (value: unknown): value is Json.JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Read a `tools/call`'s parameters, or say in one sentence what is wrong with them. Arguments left
 * out are an empty object; a bare value is refused with how a tool whose input is one value takes it.
 *
 * @example
 * ```ts
 * import { McpToolCall } from "effect-surface/mcp"
 * McpToolCall.read({ name: "tasks_complete", arguments: 41 })
 * // a failure: "params.arguments" must be an object, got 41 (a tool whose input is one value takes it as { "value": … })
 * ```
 *
 * @since 0.1.0
 */
export const read = (params: unknown): Result.Result<Call, string> => {
  const { arguments: args = {}, name } = isRecord(params) ? params : {}
  if (typeof name !== "string") return Result.fail(`"params.name" must be the tool's name, a string`)
  if (!isRecord(args)) {
    return Result.fail(
      `"params.arguments" must be an object, got ${
        preview(args)
      } (a tool whose input is one value takes it as { "value": … })`
    )
  }
  return Result.succeed({ name, args })
}
