/**
 * Every way a toolset call can fail, one tagged error each.
 *
 * A model calling a remote tool needs to know what happened in words it can act on, and the program
 * around it needs to know by `_tag` whether anything reached the server and whether trying again is
 * safe. So each failure is its own tagged class, its message is the sentence the model is shown, and
 * its fields say what a caller branches on; none is ever recognised by the text of a message.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The server answered with `isError: true`. `text` is the server's own text (its text blocks,
 * joined), which the message carries after `MCP tool error: ` — it was written for the model to
 * correct itself against, so it is a failure, never a success. `structuredContent` is the failure's
 * structured detail when the server gave one (a tagged error's `_tag` and fields), for the program
 * to branch on.
 *
 * @example
 * ```ts
 * import { McpToolError } from "effect-surface/client"
 * const e = new McpToolError({
 *   name: "notes__add", server: "notes", tool: "add", text: "the note is empty", content: [],
 *   structuredContent: { _tag: "EmptyNote", field: "body" }
 * })
 * e.message // "MCP tool error: the note is empty"
 * e.structuredContent?.["_tag"] // "EmptyNote"
 * ```
 *
 * @since 0.1.0
 */
export class McpToolError extends Schema.TaggedError<McpToolError>()("McpToolError", {
  name: Schema.String,
  server: Schema.String,
  tool: Schema.String,
  text: Schema.String,
  content: Schema.Array(Schema.Unknown),
  structuredContent: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
}) {
  override get message(): string {
    return `MCP tool error: ${this.text}`
  }
}

/**
 * The server refused the request at the protocol level (a JSON-RPC error), or answered something
 * that is not a tool result.
 *
 * @example
 * ```ts
 * import { McpProtocolError } from "effect-surface/client"
 * new McpProtocolError({ name: "docs__search", server: "docs", code: -32602, reason: "unknown tool" }).message
 * // 'MCP server "docs" refused docs__search with a protocol error (-32602): unknown tool'
 * ```
 *
 * @since 0.1.0
 */
export class McpProtocolError extends Schema.TaggedError<McpProtocolError>()("McpProtocolError", {
  name: Schema.String,
  server: Schema.String,
  code: Schema.Number,
  reason: Schema.String
}) {
  override get message(): string {
    return `MCP server "${this.server}" refused ${this.name} with a protocol error (${this.code}): ${this.reason}`
  }
}

/**
 * No answer came within the deadline. The request was cancelled on the server
 * (`notifications/cancelled`); whether it acted is unknown, so it was not sent again.
 *
 * @example
 * ```ts
 * import { ToolTimeout } from "effect-surface/client"
 * new ToolTimeout({ name: "docs__search", server: "docs", timeoutMs: 60000 })
 * ```
 *
 * @since 0.1.0
 */
export class ToolTimeout extends Schema.TaggedError<ToolTimeout>()("ToolTimeout", {
  name: Schema.String,
  server: Schema.String,
  timeoutMs: Schema.Number
}) {
  override get message(): string {
    return `${this.name} gave no answer within ${this.timeoutMs} ms, so the request was cancelled on MCP server ` +
      `"${this.server}". Whether it acted is unknown; it was not sent again.`
  }
}

/**
 * The policy said no (or said ask, and the person said no). The server received nothing.
 *
 * @example
 * ```ts
 * import { PolicyDenied } from "effect-surface/client"
 * new PolicyDenied({ name: "files__write_file", server: "files", tool: "write_file", reason: "writes need review" })
 * ```
 *
 * @since 0.1.0
 */
export class PolicyDenied extends Schema.TaggedError<PolicyDenied>()("PolicyDenied", {
  name: Schema.String,
  server: Schema.String,
  tool: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `calling ${this.name} was not allowed: ${this.reason}. Nothing was sent to MCP server "${this.server}".`
  }
}

/**
 * A URL, or a redirect hop on the way to one, named a host outside `allowedHosts`. No request was
 * made to it.
 *
 * @example
 * ```ts
 * import { HostNotAllowed } from "effect-surface/client"
 * new HostNotAllowed({ server: "docs", host: "169.254.169.254" }).message
 * ```
 *
 * @since 0.1.0
 */
export class HostNotAllowed extends Schema.TaggedError<HostNotAllowed>()("HostNotAllowed", {
  server: Schema.String,
  host: Schema.String
}) {
  override get message(): string {
    return `MCP server "${this.server}": the host "${this.host}" is not in allowedHosts, so no request was made to it.`
  }
}

/**
 * No tool has this name in the toolset now: it was never listed, was filtered out, or its server
 * withdrew it.
 *
 * @example
 * ```ts
 * import { UnknownTool } from "effect-surface/client"
 * new UnknownTool({ name: "docs__serch" })
 * ```
 *
 * @since 0.1.0
 */
export class UnknownTool extends Schema.TaggedError<UnknownTool>()("UnknownTool", {
  name: Schema.String
}) {
  override get message(): string {
    return `no tool is named "${this.name}" in this toolset: it was never listed, was filtered out, or its server withdrew it.`
  }
}

/**
 * The arguments do not fit the tool's input schema, as checked here before spending a request.
 * `reason` names each wrong field.
 *
 * @example
 * ```ts
 * import { InvalidArguments } from "effect-surface/client"
 * new InvalidArguments({ name: "everything__get-sum", reason: 'value at "a": expected a number, got "x"' })
 * ```
 *
 * @since 0.1.0
 */
export class InvalidArguments extends Schema.TaggedError<InvalidArguments>()("InvalidArguments", {
  name: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `the arguments for ${this.name} do not fit its input schema: ${this.reason}. Nothing was sent.`
  }
}

/**
 * The connection to the server failed. `retrySafe` says whether the request provably never reached
 * the server (nothing was sent, so sending it again cannot make it act twice); when it is `false`
 * the server may have acted and only the answer been lost. The next call re-dials either way.
 *
 * @example
 * ```ts
 * import { ServerUnavailable } from "effect-surface/client"
 * const e = new ServerUnavailable({ name: "memory__read_graph", server: "memory", retrySafe: false, reason: "the process exited" })
 * e.retrySafe // false: the call was in flight
 * ```
 *
 * @since 0.1.0
 */
export class ServerUnavailable extends Schema.TaggedError<ServerUnavailable>()("ServerUnavailable", {
  name: Schema.String,
  server: Schema.String,
  retrySafe: Schema.Boolean,
  reason: Schema.String
}) {
  override get message(): string {
    const advice = this.retrySafe
      ? "It never reached the server, so a retry is safe."
      : "It may have reached the server, which may have acted: a retry is safe only if acting twice is."
    return `${this.name} could not be completed on MCP server "${this.server}": ${this.reason} ${advice}`
  }
}

/**
 * The server's credential could not be resolved (`auth` failed). Nothing was sent. The reason is the
 * resolver's failure; no credential is ever part of it.
 *
 * @example
 * ```ts
 * import { AuthFailed } from "effect-surface/client"
 * new AuthFailed({ server: "docs", reason: "the token store is locked" })
 * ```
 *
 * @since 0.1.0
 */
export class AuthFailed extends Schema.TaggedError<AuthFailed>()("AuthFailed", {
  server: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `no credential for MCP server "${this.server}" could be resolved (${this.reason}), so nothing was sent.`
  }
}

/**
 * The toolset was closed; no call starts any more.
 *
 * @example
 * ```ts
 * import { ToolsetClosed } from "effect-surface/client"
 * new ToolsetClosed({ name: "memory__read_graph" })
 * ```
 *
 * @since 0.1.0
 */
export class ToolsetClosed extends Schema.TaggedError<ToolsetClosed>()("ToolsetClosed", {
  name: Schema.String
}) {
  override get message(): string {
    return `the toolset is closed, so ${this.name} was not called.`
  }
}

/**
 * The servers or options cannot be wired together; `reason` says why and what to change. Raised
 * before anything is spawned or dialled.
 *
 * @example
 * ```ts
 * import { WiringError } from "effect-surface/client"
 * new WiringError({ reason: "tools takes allow or block, not both" })
 * ```
 *
 * @since 0.1.0
 */
export class WiringError extends Schema.TaggedError<WiringError>()("WiringError", {
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/**
 * The tool's definition changed on its server since it was first trusted (drift quarantine), so the
 * call was refused and nothing was sent. A person re-trusts the server (`McpToolset.retrust`) once
 * the change is known to be legitimate.
 *
 * @example
 * ```ts
 * import { ToolQuarantined } from "effect-surface/client"
 * new ToolQuarantined({ name: "docs__search", server: "docs", tool: "search" }).message
 * ```
 *
 * @since 0.1.0
 */
export class ToolQuarantined extends Schema.TaggedError<ToolQuarantined>()("ToolQuarantined", {
  name: Schema.String,
  server: Schema.String,
  tool: Schema.String
}) {
  override get message(): string {
    return `${this.name} was not called: its definition on MCP server "${this.server}" changed since it was trusted, so it is ` +
      `quarantined until a person re-trusts that server. Nothing was sent; tell the user, or use another tool.`
  }
}

/**
 * The server no longer offers the tool: the map was built from storage, and the server's fresh
 * listing no longer has it. Nothing was sent; the map is being corrected.
 *
 * @example
 * ```ts
 * import { ToolWithdrawn } from "effect-surface/client"
 * new ToolWithdrawn({ name: "docs__search", server: "docs", tool: "search" }).message
 * ```
 *
 * @since 0.1.0
 */
export class ToolWithdrawn extends Schema.TaggedError<ToolWithdrawn>()("ToolWithdrawn", {
  name: Schema.String,
  server: Schema.String,
  tool: Schema.String
}) {
  override get message(): string {
    return `${this.name} was not called: MCP server "${this.server}" no longer offers it (it was withdrawn since this tool list ` +
      `was stored). Nothing was sent. The tool list is being refreshed; choose another tool.`
  }
}

/**
 * A rebuild found nothing stored. A rebuild restores what was stored; a first start is
 * `McpToolset.make` (or `mcpTools`), which stores as it connects.
 *
 * @example
 * ```ts
 * import { NothingStored } from "effect-surface/client"
 * new NothingStored({}).message
 * ```
 *
 * @since 0.1.0
 */
export class NothingStored extends Schema.TaggedError<NothingStored>()("NothingStored", {}) {
  override get message(): string {
    return "the connection store holds no server, so there is nothing to rebuild: a first start connects with McpToolset.make " +
      "(mcpTools), which records each server in the store as it connects."
  }
}

/**
 * A stored row and the configuration given to a rebuild name one server with different endpoints
 * (transport type or URL). A different endpoint is a different catalogue, so the row is refused.
 *
 * @example
 * ```ts
 * import { StoredServerMismatch } from "effect-surface/client"
 * new StoredServerMismatch({ server: "docs", stored: "streamable-http https://old.example/mcp", configured: "streamable-http https://mcp.example.com/mcp" }).message
 * ```
 *
 * @since 0.1.0
 */
export class StoredServerMismatch extends Schema.TaggedError<StoredServerMismatch>()("StoredServerMismatch", {
  server: Schema.String,
  stored: Schema.String,
  configured: Schema.String
}) {
  override get message(): string {
    return `MCP server "${this.server}" was stored as ${this.stored} but is configured as ${this.configured}: a different endpoint ` +
      `is a different catalogue, so its stored row is refused. Connect it afresh with McpToolset.make, or remove its row.`
  }
}

/**
 * Every way one call can fail.
 *
 * @example
 * ```ts
 * import type { CallError } from "effect-surface/client"
 * const retry = (e: CallError) => e._tag === "ServerUnavailable" && e.retrySafe
 * ```
 *
 * @since 0.1.0
 */
export type CallError =
  | McpToolError
  | McpProtocolError
  | ToolTimeout
  | PolicyDenied
  | HostNotAllowed
  | UnknownTool
  | InvalidArguments
  | ServerUnavailable
  | AuthFailed
  | ToolsetClosed
  | ToolQuarantined
  | ToolWithdrawn

/**
 * The schema of every call failure, for a caller that hands failures on (an `effect/ai` tool's
 * `failure`, a log record).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { CallErrorSchema } from "effect-surface/client"
 * const encode = Schema.encodeUnknownSync(CallErrorSchema)
 * ```
 *
 * @since 0.1.0
 */
export const CallErrorSchema = Schema.Union([
  McpToolError,
  McpProtocolError,
  ToolTimeout,
  PolicyDenied,
  HostNotAllowed,
  UnknownTool,
  InvalidArguments,
  ServerUnavailable,
  AuthFailed,
  ToolsetClosed,
  ToolQuarantined,
  ToolWithdrawn
])
