/**
 * How a 2026-07-28 request is answered: the JSON-RPC response and the HTTP status the revision
 * gives it, for every method of the path alike.
 *
 * @internal
 */
import type * as Identity from "../../../core/Identity.ts"
import type * as Json from "../../../core/Json.ts"
import type * as RpcError from "../../face/RpcError.ts"
import * as Wire from "../../../protocol/v2026/Messages.ts"

/**
 * An answer: the JSON-RPC response, and the HTTP status the revision gives it.
 */
export interface Answer {
  readonly status: number
  readonly body: Json.JsonObject
}

/**
 * A request already sorted by `Wire.classify`.
 */
export interface Request {
  readonly id: Wire.Id
  readonly method: string
  readonly params: { readonly [key: string]: unknown }
  /** Who sent it, where a resource server verified its token; otherwise the local caller. */
  readonly caller?: Identity.Principal
}

/**
 * A result: its `resultType`, and the `_meta` every result carries (who answered) beside its own.
 */
export const ok = (modern: { readonly resultMeta: Json.JsonObject }, id: Wire.Id, result: Json.JsonObject): Answer => ({
  status: 200,
  body: {
    jsonrpc: "2.0",
    id,
    result: {
      ...result,
      resultType: "complete",
      _meta: result["_meta"] === undefined ? modern.resultMeta
        : { ...(result["_meta"] as Json.JsonObject), ...modern.resultMeta }
    }
  }
})

/** An error, with the status a refusal carries (200 for the others). */
export const failed = (id: Wire.Id | null, error: RpcError.Rpc | Wire.Refused): Answer => ({
  status: error instanceof Wire.Refused ? error.status : 200,
  body: Wire.errorOf(id, error)
})

/** A request whose params are wrong (-32602), saying what. */
export const refused = (id: Wire.Id, message: string): Answer =>
  failed(id, new Wire.Refused({ status: 200, code: Wire.codes.invalidParams, message }))

/**
 * The error for a request that needs the tasks extension from a client that did not declare it.
 */
export const tasksRequired = (id: Wire.Id, why: string): Answer => ({
  status: 400,
  body: Wire.errorOf(id, {
    code: Wire.codes.missingCapability,
    message: `Missing required client capability: ${why} needs the ${Wire.tasksExtension} extension`,
    data: { requiredCapabilities: { extensions: { [Wire.tasksExtension]: {} } } }
  })
})

/** Whether a value is a JSON object. */
export const isRecord = (u: unknown): u is Json.JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)
