/**
 * How a refused request leaves the MCP face: the one place a refusal becomes a JSON-RPC error.
 *
 * The engine refuses with tagged values (`EngineError`) and the face's own modules (prompts, app
 * resources, completion) with `ProtocolError`; the session answers every one of them through
 * `toRpcError`, so which code a refusal carries is decided here and nowhere else.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import type * as EngineError from "../../core/EngineError.ts"
import type * as Json from "../../core/Json.ts"

/**
 * A request the MCP face itself refuses (an unknown prompt, an app resource that failed): it leaves
 * as the JSON-RPC error with this `code`, `message` and `data`.
 *
 * @example
 * ```ts
 * import { McpRpcError } from "effect-surface/mcp"
 * const unknown = new McpRpcError.ProtocolError({
 *   code: McpRpcError.invalidParams,
 *   message: "unknown resource notes://x",
 *   data: { uri: "notes://x" }
 * })
 * ```
 *
 * @since 0.1.0
 */
export class ProtocolError extends Data.TaggedError("ProtocolError")<{
  readonly code: number
  readonly message: string
  readonly data?: Json.JsonObject
}> {}

/**
 * JSON-RPC's "invalid params", which MCP uses for an unknown resource, tool or prompt.
 *
 * @example
 * ```ts
 * import { McpRpcError } from "effect-surface/mcp"
 * McpRpcError.invalidParams // -32602
 * ```
 *
 * @since 0.1.0
 */
export const invalidParams = -32602

/**
 * JSON-RPC's "internal error": what a request that broke on the server's side is answered with.
 *
 * @example
 * ```ts
 * import { McpRpcError } from "effect-surface/mcp"
 * McpRpcError.internalError // -32603
 * ```
 *
 * @since 0.1.0
 */
export const internalError = -32603

/**
 * Every refusal a request of the MCP face can end with.
 *
 * @example
 * ```ts
 * import type { McpRpcError } from "effect-surface/mcp"
 * const tagOf = (refusal: McpRpcError.Refusal): string => refusal._tag
 * ```
 *
 * @since 0.1.0
 */
export type Refusal = EngineError.EngineError | ProtocolError

/**
 * A JSON-RPC error's three parts.
 *
 * @example
 * ```ts
 * import type { McpRpcError } from "effect-surface/mcp"
 * const error: McpRpcError.Rpc = { code: -32602, message: "unknown tool \"x\"", data: { name: "x" } }
 * ```
 *
 * @since 0.1.0
 */
export interface Rpc {
  readonly code: number
  readonly message: string
  readonly data?: Json.JsonObject | undefined
}

/**
 * The JSON-RPC error a refusal leaves as. A name or address that is unknown, retired or names no
 * item is the caller's mistake (-32602); a source that could not answer is the server's (-32603).
 *
 * @example
 * ```ts
 * import { EngineError } from "effect-surface"
 * import { McpRpcError } from "effect-surface/mcp"
 * McpRpcError.toRpcError(new EngineError.UnknownTool({ name: "fly" })) // { code: -32602, message: 'unknown tool "fly"', data: { name: "fly" } }
 * ```
 *
 * @since 0.1.0
 */
export const toRpcError = (refusal: Refusal): Rpc => {
  switch (refusal._tag) {
    case "ProtocolError":
      return { code: refusal.code, message: refusal.message, data: refusal.data }
    case "UnknownTool":
      return { code: invalidParams, message: refusal.message, data: { name: refusal.name } }
    case "Retired":
      return { code: invalidParams, message: refusal.message, data: { name: refusal.tombstone.name } }
    case "UnknownResource":
    case "NoSuchItem":
      return { code: invalidParams, message: refusal.message, data: { uri: refusal.uri } }
    case "Unreadable":
      return { code: internalError, message: refusal.message, data: { uri: refusal.uri } }
  }
}
