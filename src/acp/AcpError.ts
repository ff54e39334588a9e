/**
 * Every way a call to the editor can fail, one tagged error each.
 *
 * The editor is outside the trust boundary and the connection to it can die while a person is
 * thinking, so a call has more endings than "answered" and "threw". Each ending has a different
 * fix — align capabilities, ask again on a new turn, stop, handle the person's no, report the
 * editor, align the SDK version — and so each is its own `_tag` a caller matches on, worded as one
 * sentence that names the method.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type { Issue } from "../core/InputError.ts"
import { InputError } from "../core/InputError.ts"

const Issues = Schema.Array(
  Schema.Struct({ path: Schema.Array(Schema.Union([Schema.String, Schema.Number])), message: Schema.String })
)

// The one wording of a list of issues is the core's `InputError`; an empty list says nothing.
const describeIssues = (issues: ReadonlyArray<Issue>): string => {
  const [head, ...tail] = issues
  return head === undefined ? "no issue was recorded" : new InputError({ issues: [head, ...tail] }).message
}

/**
 * The editor never advertised the capability the method needs, so the call was not sent. Checked
 * before sending (and when a cleanup is registered), against the capabilities the editor sent in
 * `initialize`.
 *
 * @example
 * ```ts
 * import { AcpError } from "effect-surface/acp"
 * new AcpError.NotAdvertised({ method: "terminal/create", capability: "terminal" }).message
 * // "the editor did not advertise terminal, so terminal/create was not sent"
 * ```
 *
 * @since 0.1.0
 */
export class NotAdvertised extends Schema.TaggedError<NotAdvertised>()("NotAdvertised", {
  method: Schema.String,
  capability: Schema.String
}) {
  override get message(): string {
    return `the editor did not advertise ${this.capability}, so ${this.method} was not sent`
  }
}

/**
 * The connection to the editor closed: while the call was outstanding (`sent: true`; it settled at
 * once and is never re-sent), or before it (`sent: false`). Told apart from a refusal by how the SDK
 * rejects: a closed connection is not an answer.
 *
 * @example
 * ```ts
 * import { AcpError } from "effect-surface/acp"
 * new AcpError.Disconnected({ method: "fs/read_text_file", sent: true }).message
 * // "the editor's connection closed while fs/read_text_file was outstanding"
 * ```
 *
 * @since 0.1.0
 */
export class Disconnected extends Schema.TaggedError<Disconnected>()("Disconnected", {
  method: Schema.String,
  sent: Schema.Boolean
}) {
  override get message(): string {
    return this.sent
      ? `the editor's connection closed while ${this.method} was outstanding`
      : `the editor's connection is closed, so ${this.method} was not sent`
  }
}

/**
 * The turn was cancelled: an outstanding call was cancelled at the editor without waiting for it
 * (`sent: true`), or a later call was refused without being sent (`sent: false`).
 *
 * @example
 * ```ts
 * import { AcpError } from "effect-surface/acp"
 * new AcpError.Cancelled({ method: "terminal/create", sent: false }).message
 * // "the turn was cancelled, so terminal/create was not sent"
 * ```
 *
 * @since 0.1.0
 */
export class Cancelled extends Schema.TaggedError<Cancelled>()("Cancelled", {
  method: Schema.String,
  sent: Schema.Boolean
}) {
  override get message(): string {
    return this.sent
      ? `the turn was cancelled while ${this.method} was outstanding; it was cancelled at the editor`
      : `the turn was cancelled, so ${this.method} was not sent`
  }
}

/**
 * The editor answered with a JSON-RPC error: its `code`, its `reason` and any `data`, as sent.
 *
 * @example
 * ```ts
 * import { AcpError } from "effect-surface/acp"
 * new AcpError.Refused({ method: "fs/write_text_file", code: -32603, reason: "read-only file" }).message
 * // "the editor refused fs/write_text_file: read-only file (code -32603)"
 * ```
 *
 * @since 0.1.0
 */
export class Refused extends Schema.TaggedError<Refused>()("Refused", {
  method: Schema.String,
  code: Schema.Number,
  reason: Schema.String,
  data: Schema.optionalKey(Schema.Unknown)
}) {
  override get message(): string {
    return `the editor refused ${this.method}: ${this.reason} (code ${this.code})`
  }
}

/**
 * The editor's answer does not fit the protocol's schema for the method; `issues` names each wrong
 * field by its path in the answer. The editor cannot answer this call correctly, so there is
 * nothing to retry.
 *
 * @example
 * ```ts
 * import { AcpError } from "effect-surface/acp"
 * new AcpError.MalformedAnswer({ method: "fs/read_text_file", issues: [{ path: ["content"], message: "expected a string, got 42" }] }).message
 * // 'the editor\'s answer to fs/read_text_file does not fit the protocol: value at "content": expected a string, got 42'
 * ```
 *
 * @since 0.1.0
 */
export class MalformedAnswer extends Schema.TaggedError<MalformedAnswer>()("MalformedAnswer", {
  method: Schema.String,
  issues: Issues
}) {
  override get message(): string {
    return `the editor's answer to ${this.method} does not fit the protocol: ${describeIssues(this.issues)}`
  }
}

/**
 * An outgoing `session/update` does not fit the protocol's schema; it was never sent.
 *
 * @example
 * ```ts
 * import { AcpError } from "effect-surface/acp"
 * new AcpError.InvalidUpdate({ issues: [{ path: ["update", "content"], message: "missing" }] }).message
 * // 'the session/update was not sent, it does not fit the protocol: value at "update.content": missing'
 * ```
 *
 * @since 0.1.0
 */
export class InvalidUpdate extends Schema.TaggedError<InvalidUpdate>()("InvalidUpdate", {
  issues: Issues
}) {
  override get message(): string {
    return `the session/update was not sent, it does not fit the protocol: ${describeIssues(this.issues)}`
  }
}

/**
 * The installed SDK's schema has no answer schema for the method, or it could not be turned into a
 * check. Raised before the editor is asked, and never the editor's fault: align the SDK version.
 *
 * @example
 * ```ts
 * import { AcpError } from "effect-surface/acp"
 * new AcpError.SchemaMissing({ method: "fs/read_text_file", reason: "no ReadTextFileResponse" }).message
 * // "the installed ACP SDK schema cannot check answers to fs/read_text_file (no ReadTextFileResponse), so it was not sent"
 * ```
 *
 * @since 0.1.0
 */
export class SchemaMissing extends Schema.TaggedError<SchemaMissing>()("SchemaMissing", {
  method: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `the installed ACP SDK schema cannot check answers to ${this.method} (${this.reason}), so it was not sent`
  }
}

/**
 * The code asking is not running in an ACP turn, so there is no editor to ask. `AcpSurface.has`
 * is the guard to branch on.
 *
 * @example
 * ```ts
 * import { AcpError } from "effect-surface/acp"
 * new AcpError.NoSurface({ method: "fs/read_text_file" }).message
 * // "fs/read_text_file needs an editor, and this code is not running in an ACP turn"
 * ```
 *
 * @since 0.1.0
 */
export class NoSurface extends Schema.TaggedError<NoSurface>()("NoSurface", {
  method: Schema.String
}) {
  override get message(): string {
    return `${this.method} needs an editor, and this code is not running in an ACP turn`
  }
}

/**
 * How a `request` can fail once a surface is present.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { AcpError } from "effect-surface/acp"
 *
 * const explain = (error: AcpError.RequestError): string => {
 *   switch (error._tag) {
 *     case "NotAdvertised": case "SchemaMissing": return "configuration"
 *     case "Disconnected": case "Cancelled": return "gone"
 *     case "Refused": case "MalformedAnswer": return "the editor's answer"
 *   }
 * }
 * ```
 *
 * @since 0.1.0
 */
export type RequestError = NotAdvertised | Disconnected | Cancelled | Refused | MalformedAnswer | SchemaMissing

/**
 * How a `notify` can fail once a surface is present.
 *
 * @example
 * ```ts
 * import type { AcpError } from "effect-surface/acp"
 * const tags: ReadonlyArray<AcpError.NotifyError["_tag"]> = ["InvalidUpdate", "NotAdvertised", "Cancelled", "Disconnected", "SchemaMissing"]
 * ```
 *
 * @since 0.1.0
 */
export type NotifyError = InvalidUpdate | NotAdvertised | Cancelled | Disconnected | SchemaMissing
