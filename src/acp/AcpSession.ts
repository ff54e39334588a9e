/**
 * The session a turn belongs to, as the editor opened it.
 *
 * `session/new` says where the person works (`cwd`, any extra roots) and which MCP servers they want
 * the agent to use. A turn's code, and the per-session services built at `session/new`, read that
 * here instead of being handed it through every call.
 *
 * @since 0.1.0
 */
import type { McpServer, NewSessionRequest } from "@agentclientprotocol/sdk"
import * as Context from "effect/Context"

/**
 * One session: its id and what `session/new` asked for.
 *
 * @example
 * ```ts
 * import type { AcpSession } from "effect-surface/acp"
 * const info: AcpSession.Info = { sessionId: "s1", cwd: "/repo", mcpServers: [], request: { cwd: "/repo", mcpServers: [] } }
 * ```
 *
 * @since 0.1.0
 */
export interface Info {
  readonly sessionId: string
  readonly cwd: string
  readonly mcpServers: ReadonlyArray<McpServer>
  /** The whole `session/new` request, for fields this interface does not name. */
  readonly request: NewSessionRequest
}

/**
 * The running turn's session, as a service.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AcpSession } from "effect-surface/acp"
 *
 * const cwd = Effect.map(Effect.service(AcpSession.AcpSession), (session) => session.cwd)
 * ```
 *
 * @since 0.1.0
 */
export class AcpSession extends Context.Service<AcpSession, Info>()("effect-surface/AcpSession") {}
