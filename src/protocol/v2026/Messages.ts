/**
 * MCP 2026-07-28 on the wire: the shapes a stateless request arrives in and a result leaves in.
 *
 * The revision drops the session: each request carries its own envelope (`_meta`: the protocol
 * version, what the client can be asked, who it is, the log level it wants), and each result says
 * what kind it is (`resultType`) and who answered it. Everything that crosses is decoded here with
 * Effect Schema, once, so the request path below works on checked values and a malformed request is
 * refused with a sentence that names what was wrong and the error code the revision assigns it.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import type * as Ask from "../../core/Ask.ts"
import * as Issues from "../../core/internal/issues.ts"
import type * as Json from "../../core/Json.ts"
import * as Logging from "../LogLevel.ts"

/**
 * The revision this request path speaks.
 *
 * @example
 * ```ts
 * import { McpMessages } from "effect-surface/mcp"
 * McpMessages.version // "2026-07-28"
 * ```
 *
 * @since 0.1.0
 */
export const version = "2026-07-28"

/**
 * The stateless revisions served; an envelope naming another is refused with `unsupportedVersion`.
 *
 * @example
 * ```ts
 * import { McpMessages } from "effect-surface/mcp"
 * McpMessages.supported.includes("2026-07-28") // true
 * ```
 *
 * @since 0.1.0
 */
export const supported: ReadonlyArray<string> = [version]

/**
 * The `_meta` keys of the envelope and of results.
 *
 * @example
 * ```ts
 * import { McpMessages } from "effect-surface/mcp"
 * McpMessages.meta.protocolVersion // "io.modelcontextprotocol/protocolVersion"
 * ```
 *
 * @since 0.1.0
 */
export const meta = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId"
} as const

/**
 * The name of the tasks extension: a client that declares it under `capabilities.extensions` can
 * follow a call that goes on as a task; a server advertises it in `server/discover`.
 *
 * @example
 * ```ts
 * import { McpMessages } from "effect-surface/mcp"
 * const capabilities = { extensions: { [McpMessages.tasksExtension]: {} } }
 * ```
 *
 * @since 0.1.0
 */
export const tasksExtension = "io.modelcontextprotocol/tasks"

/**
 * The JSON-RPC error codes of this revision (and JSON-RPC's own it uses).
 *
 * @example
 * ```ts
 * import { McpMessages } from "effect-surface/mcp"
 * McpMessages.codes.unsupportedVersion // -32022
 * ```
 *
 * @since 0.1.0
 */
export const codes = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  headerMismatch: -32020,
  missingCapability: -32021,
  unsupportedVersion: -32022
} as const

/**
 * A JSON-RPC request id.
 *
 * @example
 * ```ts
 * import type { McpMessages } from "effect-surface/mcp"
 * const id: McpMessages.Id = "listen:0"
 * ```
 *
 * @since 0.1.0
 */
export type Id = string | number

/**
 * A request refused before (or instead of) an answer: its JSON-RPC error, and the HTTP status the
 * revision gives it (400 for a malformed envelope or header, 404 for an unknown method).
 *
 * @example
 * ```ts
 * import { McpMessages } from "effect-surface/mcp"
 * const refused = new McpMessages.Refused({ status: 404, code: McpMessages.codes.methodNotFound, message: "unknown method ping" })
 * ```
 *
 * @since 0.1.0
 */
export class Refused extends Data.TaggedError("Refused")<{
  readonly status: number
  readonly code: number
  readonly message: string
  readonly data?: Json.JsonObject | undefined
}> {}

/**
 * An error answer to request `id`.
 *
 * @example
 * ```ts
 * import { McpMessages } from "effect-surface/mcp"
 * McpMessages.errorOf(7, { code: -32601, message: "unknown method x" }) // { jsonrpc: "2.0", id: 7, error: { ... } }
 * ```
 *
 * @since 0.1.0
 */
export const errorOf = (
  id: Id | null,
  error: { readonly code: number; readonly message: string; readonly data?: Json.JsonObject | undefined }
) => ({
  jsonrpc: "2.0" as const,
  id,
  error: error.data === undefined
    ? { code: error.code, message: error.message }
    : { code: error.code, message: error.message, data: error.data }
})

/**
 * A message from the client, sorted by what JSON-RPC makes of it.
 *
 * @example
 * ```ts
 * import { McpMessages } from "effect-surface/mcp"
 * McpMessages.classify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })._tag // "Request"
 * ```
 *
 * @since 0.1.0
 */
export type Incoming =
  | {
    readonly _tag: "Request"
    readonly id: Id
    readonly method: string
    readonly params: { readonly [key: string]: unknown }
  }
  | { readonly _tag: "Notification"; readonly method: string; readonly params: { readonly [key: string]: unknown } }
  | { readonly _tag: "Response" }
  | { readonly _tag: "Invalid"; readonly id: Id | null; readonly reason: string }

const isRecord = (u: unknown): u is { readonly [key: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const isId = (u: unknown): u is Id => typeof u === "string" || (typeof u === "number" && Number.isFinite(u))

/**
 * Sort one parsed message. A batch, a non-object, a missing or non-string method, or params that are
 * not an object are `Invalid` (answered -32600); a result or error from the client is a `Response`.
 *
 * @example
 * ```ts
 * import { McpMessages } from "effect-surface/mcp"
 * McpMessages.classify([])._tag // "Invalid": one message per request in this revision
 * ```
 *
 * @since 0.1.0
 */
export const classify = (message: unknown): Incoming => {
  if (!isRecord(message)) {
    return {
      _tag: "Invalid",
      id: null,
      reason: Array.isArray(message)
        ? "a batch is not accepted: send one JSON-RPC message per request"
        : "the body is not a JSON-RPC message"
    }
  }
  const id = isId(message["id"]) ? message["id"] : null
  if (message["jsonrpc"] !== "2.0") return { _tag: "Invalid", id, reason: "\"jsonrpc\" must be \"2.0\"" }
  if (!("method" in message) && ("result" in message || "error" in message)) return { _tag: "Response" }
  const method = message["method"]
  if (typeof method !== "string") return { _tag: "Invalid", id, reason: "\"method\" must be a string" }
  const params = message["params"] ?? {}
  if (!isRecord(params)) return { _tag: "Invalid", id, reason: "\"params\" must be an object" }
  if (!("id" in message)) return { _tag: "Notification", method, params }
  if (id === null) return { _tag: "Invalid", id: null, reason: "\"id\" must be a string or a number" }
  return { _tag: "Request", id, method, params }
}

/**
 * What a client declared, read from its envelope: the three things a handler may ask it, and the
 * capabilities object as sent.
 *
 * @example
 * ```ts
 * import type { McpMessages } from "effect-surface/mcp"
 * const declared: McpMessages.Declared = { elicitation: true, sampling: false, roots: false, tasks: false, raw: { elicitation: {} } }
 * ```
 *
 * @since 0.1.0
 */
export interface Declared extends Ask.Capabilities {
  /** Whether it follows tasks (the `io.modelcontextprotocol/tasks` extension). */
  readonly tasks: boolean
  readonly raw: { readonly [key: string]: unknown }
}

/**
 * A request's envelope, checked.
 *
 * @example
 * ```ts
 * import type { McpMessages } from "effect-surface/mcp"
 * const envelope: McpMessages.Envelope = {
 *   protocolVersion: "2026-07-28",
 *   capabilities: { elicitation: false, sampling: false, roots: false, tasks: false, raw: {} },
 *   clientInfo: undefined,
 *   logLevel: undefined,
 *   progressToken: undefined
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Envelope {
  readonly protocolVersion: string
  readonly capabilities: Declared
  readonly clientInfo: { readonly name: string; readonly version: string } | undefined
  /** The level to send this request's log lines at; none sends none. */
  readonly logLevel: Logging.Level | undefined
  readonly progressToken: string | number | undefined
}

const Capability = Schema.Record(Schema.String, Schema.Unknown)

const MetaSchema = Schema.Struct({
  [meta.protocolVersion]: Schema.String,
  [meta.clientCapabilities]: Schema.Struct({
    elicitation: Schema.optionalKey(Capability),
    sampling: Schema.optionalKey(Capability),
    roots: Schema.optionalKey(Capability),
    extensions: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
  }),
  [meta.clientInfo]: Schema.optionalKey(Schema.Struct({ name: Schema.String, version: Schema.String })),
  [meta.logLevel]: Schema.optionalKey(Schema.Literals(Logging.levels)),
  progressToken: Schema.optionalKey(Schema.Union([Schema.String, Schema.Finite]))
})

const decodeMeta = Schema.decodeUnknownResult(MetaSchema)

const invalid = (message: string, data?: Json.JsonObject) =>
  new Refused({ status: 400, code: codes.invalidParams, message, data })

/**
 * Read a request's `_meta`: present and declaring its version and capabilities, or refused with
 * -32602 (HTTP 400) naming what is missing or malformed. The version is not judged here (see
 * `supports`): over HTTP its header is checked against it first.
 *
 * @example
 * ```ts
 * import { McpMessages } from "effect-surface/mcp"
 * McpMessages.envelope({ _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } })
 * // Success: { protocolVersion: "2026-07-28", ... }
 * ```
 *
 * @since 0.1.0
 */
export const envelope = (params: { readonly [key: string]: unknown }): Result.Result<Envelope, Refused> => {
  const raw = params["_meta"]
  if (raw === undefined) {
    return Result.fail(
      invalid(`"_meta" is missing: every ${version} request carries its protocol version and client capabilities there`)
    )
  }
  const decoded = decodeMeta(raw)
  if (Result.isFailure(decoded)) {
    return Result.fail(
      invalid(`"_meta" is not valid: ${Issues.toInputError(decoded.failure.issue, ["_meta"]).message}`)
    )
  }
  const m = decoded.success
  const capabilities = m[meta.clientCapabilities]
  const rawCapabilities = isRecord(raw) && isRecord(raw[meta.clientCapabilities])
    ? raw[meta.clientCapabilities] as { readonly [key: string]: unknown }
    : {}
  return Result.succeed({
    protocolVersion: m[meta.protocolVersion],
    capabilities: {
      // An empty `elicitation` declares forms (the only mode before URLs were added).
      elicitation: capabilities.elicitation !== undefined &&
        (capabilities.elicitation["form"] !== undefined || capabilities.elicitation["url"] === undefined),
      sampling: capabilities.sampling !== undefined,
      roots: capabilities.roots !== undefined,
      tasks: capabilities.extensions?.[tasksExtension] !== undefined,
      raw: rawCapabilities
    },
    clientInfo: m[meta.clientInfo],
    logLevel: m[meta.logLevel],
    progressToken: m.progressToken
  })
}

/**
 * Refuse an envelope naming a version this path does not speak: -32022 (HTTP 400), with the
 * versions it does speak and the one asked for.
 *
 * @example
 * ```ts
 * import { McpMessages } from "effect-surface/mcp"
 * McpMessages.supports("1900-01-01")?.data // { supported: ["2026-07-28"], requested: "1900-01-01" }
 * ```
 *
 * @since 0.1.0
 */
export const supports = (requested: string): Refused | undefined =>
  supported.includes(requested) ? undefined : new Refused({
    status: 400,
    code: codes.unsupportedVersion,
    message: `Unsupported protocol version ${requested}: this server speaks ${supported.join(", ")}`,
    data: { supported: [...supported], requested }
  })

/**
 * A schema failure as the sentence a client is answered with, its path under `prefix`.
 *
 * @example
 * ```ts
 * import { Result, Schema } from "effect"
 * import { McpMessages } from "effect-surface/mcp"
 * const decoded = Schema.decodeUnknownResult(Schema.String)(1)
 * if (Result.isFailure(decoded)) McpMessages.sentence(decoded.failure.issue, ["params", "uri"]) // 'value at "params.uri": expected a string, got 1'
 * ```
 *
 * @since 0.1.0
 */
export const sentence = (issue: SchemaIssue.Issue, prefix: ReadonlyArray<string | number>): string =>
  Issues.toInputError(issue, prefix).message
