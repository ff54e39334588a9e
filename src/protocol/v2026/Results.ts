/**
 * MCP 2026-07-28 results as a client reads them: what kind a result is, the questions an
 * `input_required` one carries, what `server/discover` answers, and how a header carries a value —
 * which tool arguments are mirrored into `Mcp-Param-*` headers, and as what text.
 *
 * The server face writes these shapes (`Wire.ts` reads what a client sends); a client of the
 * revision — the toolset's request path — decodes them here, once, with Effect Schema, so both ends
 * of the revision share one definition of what crosses.
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"

/**
 * One question inside an `input_required` result, as a client reads it: the method it would have
 * been sent as, and its params.
 *
 * @example
 * ```ts
 * import { Result, Schema } from "effect"
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
 * import { Result, Schema } from "effect"
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
 * import { Result, Schema } from "effect"
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
 * import { Result, Schema } from "effect"
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
const sentinel = /^=\?base64\?.*\?=$/s

/**
 * A value as a header carries it: plain when it is printable ASCII with no space at either end,
 * otherwise `=?base64?…?=` of its UTF-8 bytes (what `Mcp-Name` and `Mcp-Param-*` headers use). A
 * plain value that looks encoded is encoded too, or a server would decode what was never encoded.
 *
 * @example
 * ```ts
 * import { McpResults } from "effect-surface/mcp"
 * McpResults.headerValue("us-west1") // "us-west1"
 * McpResults.headerValue(" padded ") // "=?base64?IHBhZGRlZCA=?="
 * McpResults.headerValue("=?base64?literal?=") // "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
 * ```
 *
 * @since 0.1.0
 */
export const headerValue = (value: string): string =>
  plain.test(value) && value.trim() === value && !sentinel.test(value)
    ? value
    : `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`

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

/**
 * An argument a tool mirrors into a header: where it sits (its chain of `properties` keys), and the
 * header's name as the tool wrote it (`Mcp-Param-${header}`; header names compare without case).
 *
 * @example
 * ```ts
 * import type { McpResults } from "effect-surface/mcp"
 * const region: McpResults.Mirrored = { path: ["region"], header: "Region" }
 * ```
 *
 * @since 0.1.0
 */
export interface Mirrored {
  readonly path: ReadonlyArray<string>
  readonly header: string
}

const isRecord = (u: unknown): u is { readonly [key: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

// A header name a tool may declare: visible ASCII token characters, no space, no colon.
const token = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
// The revision mirrors only values a header carries exactly: a fraction may not survive the trip,
// so `number` is refused and an integer is carried in decimal.
const primitive = new Set(["string", "integer", "boolean"])

/**
 * The arguments a tool's input schema mirrors into headers (`x-mcp-header`, reached through
 * `properties` alone), or why the tool definition is invalid in 2026-07-28: a name that is empty or
 * not a header token, a mirrored argument whose `type` is not `string`, `integer` or `boolean` (a
 * `number` is not), or two arguments mirrored into one header. A client leaves such a tool out; a
 * server refuses a call to it. The one reading both ends share.
 *
 * @example
 * ```ts
 * import { McpResults } from "effect-surface/mcp"
 * McpResults.mirrored({ type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } })
 * // Result.succeed([{ path: ["region"], header: "Region" }])
 * McpResults.mirrored({ type: "object", properties: { weight: { type: "number", "x-mcp-header": "Weight" } } })
 * // Result.fail('argument "weight" is mirrored into a header but is not a string, integer or boolean')
 * ```
 *
 * @since 0.1.0
 */
export const mirrored = (inputSchema: unknown): Result.Result<ReadonlyArray<Mirrored>, string> => {
  const found: Array<Mirrored> = []
  const seen = new Set<string>()
  const walk = (node: unknown, path: ReadonlyArray<string>, depth: number): string | undefined => {
    if (!isRecord(node) || depth > 16) return undefined
    const properties = node["properties"]
    if (!isRecord(properties)) return undefined
    for (const [key, child] of Object.entries(properties)) {
      if (!isRecord(child)) continue
      if ("x-mcp-header" in child) {
        const header = child["x-mcp-header"]
        const at = [...path, key].join(".")
        if (typeof header !== "string" || !token.test(header))
          return `argument "${at}" declares x-mcp-header ${JSON.stringify(header)}, which is not a header name`
        if (typeof child["type"] !== "string" || !primitive.has(child["type"]))
          return `argument "${at}" is mirrored into a header but is not a string, integer or boolean`
        if (seen.has(header.toLowerCase())) return `two arguments are mirrored into the header "${header}"`
        seen.add(header.toLowerCase())
        found.push({ path: [...path, key], header })
      }
      const deeper = walk(child, [...path, key], depth + 1)
      if (deeper !== undefined) return deeper
    }
    return undefined
  }
  const refused = walk(inputSchema, [], 0)
  return refused === undefined ? Result.succeed(found) : Result.fail(refused)
}

/**
 * The text of a mirrored argument's header, or `undefined` when it sends none: a string as
 * `headerValue` carries it, an integer in decimal digits, a boolean as `true` or `false` (a
 * fraction as JavaScript writes it, for the server to refuse); a null, an absent value or anything
 * else sends no header.
 *
 * @example
 * ```ts
 * import { McpResults } from "effect-surface/mcp"
 * McpResults.paramValue(42) // "42"
 * McpResults.paramValue(1e21) // "1000000000000000000000"
 * McpResults.paramValue(true) // "true"
 * McpResults.paramValue(null) // undefined
 * ```
 *
 * @since 0.1.0
 */
export const paramValue = (value: unknown): string | undefined => {
  switch (typeof value) {
    case "string":
      return headerValue(value)
    case "boolean":
      return String(value)
    case "number":
      // Decimal digits even past 1e21, where `String` turns to exponent notation.
      return Number.isInteger(value) ? BigInt(value).toString() : Number.isFinite(value) ? String(value) : undefined
    default:
      return undefined
  }
}
