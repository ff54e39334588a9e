/**
 * What may be asked of the editor, in the SDK's own generated types.
 *
 * The methods, their params and their answers are not restated here: they are read off
 * `@agentclientprotocol/sdk`'s client half, so a method the SDK adds is callable the day it ships
 * and one it never had does not compile. What this module adds is the one rule a turn imposes:
 * the session is the running turn's, so `sessionId` is filled in, and params that name one (or an
 * elicitation scoped to another request) do not compile.
 *
 * @since 0.1.0
 */
import type {
  ClientCapabilities,
  ClientRequestMethod,
  ClientRequestParamsByMethod,
  ClientRequestResponsesByMethod,
  SessionUpdate
} from "@agentclientprotocol/sdk"

/**
 * A method the editor answers: files, terminals, permission, elicitation.
 *
 * @example
 * ```ts
 * import type { AcpProtocol } from "effect-surface/acp"
 * const read: AcpProtocol.Method = "fs/read_text_file"
 * ```
 *
 * @since 0.1.0
 */
export type Method = ClientRequestMethod

// Key remapping keeps every declared key (and an index signature) of each union member, which
// `Omit` would collapse; the `never` keys make a `sessionId` written by the caller, or an
// elicitation scoped to another request, a type error.
type WithoutSession<P> = P extends { readonly requestId: unknown } ? never
  : { [K in keyof P as K extends "sessionId" ? never : K]: P[K] } & {
    readonly sessionId?: never
    readonly requestId?: never
  }

/**
 * The params of `method` as a turn writes them: the SDK's params without `sessionId`.
 *
 * @example
 * ```ts
 * import type { AcpProtocol } from "effect-surface/acp"
 * const params: AcpProtocol.Params<"fs/read_text_file"> = { path: "/repo/README.md" }
 * // @ts-expect-error the session is the running turn's
 * const named: AcpProtocol.Params<"fs/read_text_file"> = { path: "/repo/README.md", sessionId: "other" }
 * ```
 *
 * @since 0.1.0
 */
export type Params<M extends Method> = WithoutSession<ClientRequestParamsByMethod[M]>

/**
 * What the editor answers to `method`, once checked.
 *
 * @example
 * ```ts
 * import type { AcpProtocol } from "effect-surface/acp"
 * const answer: AcpProtocol.Answer<"fs/read_text_file"> = { content: "# effect-surface" }
 * ```
 *
 * @since 0.1.0
 */
export type Answer<M extends Method> = ClientRequestResponsesByMethod[M]

/**
 * One `session/update` as a turn writes it: the SDK's `SessionUpdate`, the session filled in.
 *
 * @example
 * ```ts
 * import type { AcpProtocol } from "effect-surface/acp"
 * const chunk: AcpProtocol.Update = { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hello" } }
 * ```
 *
 * @since 0.1.0
 */
export type Update = SessionUpdate

/**
 * What the editor advertised in `initialize`, as the SDK types it.
 *
 * @example
 * ```ts
 * import type { AcpProtocol } from "effect-surface/acp"
 * const caps: AcpProtocol.Capabilities = { fs: { readTextFile: true, writeTextFile: false }, terminal: true }
 * ```
 *
 * @since 0.1.0
 */
export type Capabilities = ClientCapabilities

/**
 * One call registered to be sent if the turn is cancelled (`AcpSurface.onCancel`).
 *
 * @example
 * ```ts
 * import type { AcpProtocol } from "effect-surface/acp"
 * const release: AcpProtocol.CleanupRequest = { method: "terminal/release", params: { terminalId: "t1" } }
 * ```
 *
 * @since 0.1.0
 */
export type CleanupRequest = { readonly [M in Method]: { readonly method: M; readonly params: Params<M> } }[Method]
