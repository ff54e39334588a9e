/**
 * MCP 2026-07-28 results as a client reads them: what kind a result is, the questions an
 * `input_required` one carries, what `server/discover` answers, and how a header carries a value.
 *
 * The server face writes these shapes (`Wire.ts` reads what a client sends); a client of the
 * revision — the toolset's request path — decodes them here, once, with Effect Schema, so both ends
 * of the revision share one definition of what crosses.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * One question inside an `input_required` result, as a client reads it: the method it would have
 * been sent as, and its params.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { McpResults } from "effect-surface/mcp"
 * Schema.decodeUnknownSync(McpResults.InputRequest)({ method: "roots/list" }) // { method: "roots/list" }
 * ```
 *
 * @since 0.1.0
 */
export const InputRequest = Schema.Struct({
  method: Schema.String,
  params: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
})

/**
 * How a result says what kind it is: absent or `"complete"` is an answer; `"input_required"`
 * carries the questions to answer (`inputRequests`) and the state to send back unchanged
 * (`requestState`), at least one of them. Other kinds (a task's) are left to whoever reads them.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { McpResults } from "effect-surface/mcp"
 * Schema.decodeUnknownSync(McpResults.ResultKind)({ resultType: "input_required", requestState: "s" }).requestState // "s"
 * ```
 *
 * @since 0.1.0
 */
export const ResultKind = Schema.Struct({
  resultType: Schema.optionalKey(Schema.String),
  inputRequests: Schema.optionalKey(Schema.Record(Schema.String, InputRequest)),
  requestState: Schema.optionalKey(Schema.String)
})

/**
 * What `server/discover` answers: the revisions the server speaks, what it can do, who it is.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { McpResults } from "effect-surface/mcp"
 * const found = Schema.decodeUnknownSync(McpResults.Discovered)({ supportedVersions: ["2026-07-28"], capabilities: {} })
 * found.supportedVersions.includes("2026-07-28") // true
 * ```
 *
 * @since 0.1.0
 */
export const Discovered = Schema.Struct({
  supportedVersions: Schema.Array(Schema.String),
  capabilities: Schema.Record(Schema.String, Schema.Unknown),
  serverInfo: Schema.optionalKey(Schema.Struct({ name: Schema.String, version: Schema.String })),
  instructions: Schema.optionalKey(Schema.String)
})

/**
 * A JSON-RPC response as a client reads it: its id, and a result or an error.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { McpResults } from "effect-surface/mcp"
 * Schema.decodeUnknownSync(McpResults.Response)({ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "no" } })
 * ```
 *
 * @since 0.1.0
 */
export const Response = Schema.Union([
  Schema.Struct({
    id: Schema.Union([Schema.String, Schema.Finite, Schema.Null]),
    error: Schema.Struct({
      code: Schema.Finite,
      message: Schema.String,
      data: Schema.optionalKey(Schema.Unknown)
    })
  }),
  Schema.Struct({
    id: Schema.Union([Schema.String, Schema.Finite]),
    result: Schema.Record(Schema.String, Schema.Unknown)
  })
])

const plain = /^[\x20-\x7e]*$/

/**
 * A value as a header carries it: plain when it is printable ASCII with no space at either end,
 * otherwise `=?base64?…?=` of its UTF-8 bytes (what `Mcp-Name` and `Mcp-Param-*` headers use).
 *
 * @example
 * ```ts
 * import { McpResults } from "effect-surface/mcp"
 * McpResults.headerValue("us-west1") // "us-west1"
 * McpResults.headerValue(" padded ") // "=?base64?IHBhZGRlZCA=?="
 * ```
 *
 * @since 0.1.0
 */
export const headerValue = (value: string): string =>
  plain.test(value) && value.trim() === value ? value : `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`

/**
 * The argument at `path` of a call's arguments (what an `x-mcp-header` property mirrors), or
 * `undefined` when any step is missing or not an object.
 *
 * @example
 * ```ts
 * import { McpResults } from "effect-surface/mcp"
 * McpResults.argumentAt({ where: { region: "eu" } }, ["where", "region"]) // "eu"
 * ```
 *
 * @since 0.1.0
 */
export const argumentAt = (args: unknown, path: ReadonlyArray<string>): unknown => {
  let node = args
  for (const key of path) {
    if (typeof node !== "object" || node === null || Array.isArray(node) || !Object.hasOwn(node, key)) return undefined
    node = (node as { readonly [key: string]: unknown })[key]
  }
  return node
}
