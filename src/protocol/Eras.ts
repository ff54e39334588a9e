/**
 * Which revision of MCP a message speaks: the one place either end decides it.
 *
 * Two eras are served side by side: the era of `initialize` and sessions (2025-11-25 and the
 * revisions before it) and the stateless era (2026-07-28), where each request carries its own
 * envelope. A stdio connection, an HTTP request and a client's dial each have to tell them apart,
 * and when that was decided in three places with two vocabularies the places drifted. Everything
 * here is named by the revision's date, as the specification names it.
 *
 * @since 0.1.0
 */
import * as Messages from "./v2026/Messages.ts"

/**
 * An era, named by its newest revision: `"2025-11-25"` (sessions opened by `initialize`) or
 * `"2026-07-28"` (stateless requests, each with its envelope).
 *
 * @example
 * ```ts
 * import { McpEras } from "effect-surface/mcp"
 * const era: McpEras.Era = "2026-07-28"
 * ```
 *
 * @since 0.1.0
 */
export type Era = "2025-11-25" | "2026-07-28"

/**
 * The revisions of the session era a server answers: what `initialize` may name, and what an HTTP
 * request's `MCP-Protocol-Version` may say of a session. The official SDK's own list, written
 * once here (a test holds the two equal).
 *
 * @example
 * ```ts
 * import { McpEras } from "effect-surface/mcp"
 * McpEras.sessionVersions.includes("2025-06-18") // true
 * ```
 *
 * @since 0.1.0
 */
export const sessionVersions: ReadonlyArray<string> = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07"
]

const sessionVersionSet: ReadonlySet<string> = new Set(sessionVersions)

/**
 * The era a protocol version belongs to, or `undefined` for one neither era knows. Versions are
 * dates, so every date from 2026-07-28 on is the stateless era's; a label that is not a date is
 * neither's.
 *
 * @example
 * ```ts
 * import { McpEras } from "effect-surface/mcp"
 * McpEras.ofVersion("2025-06-18") // "2025-11-25"
 * McpEras.ofVersion("2026-07-28") // "2026-07-28"
 * McpEras.ofVersion("1999-01-01") // undefined
 * ```
 *
 * @since 0.1.0
 */
export const ofVersion = (version: string): Era | undefined =>
  sessionVersionSet.has(version)
    ? "2025-11-25"
    : isDate.test(version) && version >= Messages.version
    ? "2026-07-28"
    : undefined

// Only a date compares as one: "nonsense" sorts after "2026-07-28" but names no revision.
const isDate = /^\d{4}-\d{2}-\d{2}$/

/**
 * The era a message opens with: `server/discover`, or any request carrying the 2026 envelope's
 * protocol version in its `_meta`, is the stateless era's; `initialize`, a batch, and anything
 * else is the session era's.
 *
 * @example
 * ```ts
 * import { McpEras } from "effect-surface/mcp"
 * McpEras.ofMessage({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }) // "2025-11-25"
 * McpEras.ofMessage({ jsonrpc: "2.0", id: 1, method: "server/discover" }) // "2026-07-28"
 * ```
 *
 * @since 0.1.0
 */
export const ofMessage = (message: unknown): Era => {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return "2025-11-25"
  const { method, params } = message as { readonly method?: unknown; readonly params?: unknown }
  if (method === "server/discover") return "2026-07-28"
  if (typeof params !== "object" || params === null) return "2025-11-25"
  const meta = (params as { readonly _meta?: unknown })._meta
  return typeof meta === "object" && meta !== null && Messages.meta.protocolVersion in meta
    ? "2026-07-28"
    : "2025-11-25"
}

/**
 * What an HTTP request says of its era before its body is read: a stateless version label, or
 * (without one) a session, belong to one era each; a GET or DELETE without a session has nothing
 * of the session era to open. A POST saying neither is `undefined`: its body decides (`ofMessage`).
 *
 * @example
 * ```ts
 * import { McpEras } from "effect-surface/mcp"
 * McpEras.ofHttp({ method: "POST", version: "2026-07-28", session: undefined }) // "2026-07-28"
 * McpEras.ofHttp({ method: "POST", version: undefined, session: "abc" }) // "2025-11-25"
 * McpEras.ofHttp({ method: "POST", version: undefined, session: undefined }) // undefined
 * ```
 *
 * @since 0.1.0
 */
export const ofHttp = (request: {
  readonly method: string
  readonly version: string | undefined
  readonly session: string | undefined
}): Era | undefined => {
  const labelled = request.version?.trim()
  const named = labelled === undefined || labelled === "" ? undefined : ofVersion(labelled)
  if (named === "2026-07-28") return named
  if (request.session !== undefined) return "2025-11-25"
  if (request.method !== "POST") return "2026-07-28"
  return named
}

/**
 * Whether a connection's first message chooses its era. A `server/discover` does not: a client asks
 * it to learn whether the server speaks 2026-07-28, and one whose discovery went unanswered in time
 * then sends `initialize` on the same connection, which must still open a 2025 session. So the era
 * is chosen by the first message that is not a discovery.
 *
 * @example
 * ```ts
 * import { McpEras } from "effect-surface/mcp"
 * McpEras.decides({ jsonrpc: "2.0", id: 1, method: "server/discover" }) // false
 * McpEras.decides({ jsonrpc: "2.0", id: 2, method: "initialize", params: {} }) // true
 * ```
 *
 * @since 0.1.0
 */
export const decides = (message: unknown): boolean =>
  !(typeof message === "object" && message !== null && (message as { readonly method?: unknown }).method ===
      "server/discover")
