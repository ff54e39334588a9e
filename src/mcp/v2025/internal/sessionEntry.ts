/**
 * What the session table's parts name: a live session's entry, the refusal when none can be opened,
 * and the bounds the table keeps. Declared below the table so its machinery (`sessionTable.ts`) can
 * name them without importing the table's module; each is exported from `McpHttpSessions`, which is
 * where a reader meets it.
 *
 * @internal
 */
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import * as Data from "effect/Data"
import type * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import type * as Ref from "effect/Ref"
import type * as HttpDirect from "./httpDirect.ts"

/**
 * A live session: its id, its transport, and what says whether it is idle.
 *
 * @example
 * ```ts
 * import { Effect, Ref } from "effect"
 * import type { McpHttpSessions } from "effect-surface/mcp"
 *
 * declare const entry: McpHttpSessions.Entry
 * const inUse = Effect.map(Ref.get(entry.open), (open) => open > 0)
 * ```
 *
 * @since 0.1.0
 */
export interface Entry {
  readonly id: string
  readonly transport: WebStandardStreamableHTTPServerTransport
  /**
   * What the session's SDK server is connected to: the transport with a direct road for plain calls
   * (`internal/httpDirect`), whose answers are stored nowhere, in Redis neither when the session is
   * shared there.
   */
  readonly direct: HttpDirect.Direct
  /** Responses begun and not yet finished, GET streams included: a session with one is in use. */
  readonly open: Ref.Ref<number>
  /** When a response last began or ended (clock millis). */
  readonly lastSeen: Ref.Ref<number>
  /** The protocol version the session's `initialize` asked for, once it has. */
  readonly version: Ref.Ref<string | undefined>
  /** Who the session belongs to (`Identity.holder` of the caller that opened it); none when unauthenticated. */
  readonly holder: string | undefined
  /**
   * Done once the session is ending here (its transport closed, or the table ending it): a request
   * that reaches it then is answered as one naming an unknown session.
   */
  readonly ended: Deferred.Deferred<void>
}

/**
 * No session could be opened: the table is at `maxSessions` with every session in use, the caller
 * holds `maxSessionsPerHolder` sessions each in use, or the table is closing.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { McpHttpSessions } from "effect-surface/mcp"
 *
 * const opened = (table: McpHttpSessions.Table) =>
 *   table.open(undefined).pipe(Effect.catchTag("Unavailable", (refused) => Effect.logWarning(refused.reason)))
 * ```
 *
 * @since 0.1.0
 */
export class Unavailable extends Data.TaggedError("Unavailable")<{ readonly reason: string }> {}

/**
 * How the table bounds its sessions.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import type { McpHttpSessions } from "effect-surface/mcp"
 *
 * const config: McpHttpSessions.Config = { idleTimeout: Duration.minutes(10), maxSessions: 1000, retryInterval: undefined }
 * ```
 *
 * @since 0.1.0
 */
export interface Config {
  /** A session with no open response for this long ends. */
  readonly idleTimeout: Duration.Duration
  readonly maxSessions: number
  /**
   * The most sessions one holder (a caller behind a resource server) may keep; one more takes the
   * place of its own least recently used idle session. Sessions opened without authorization have
   * no holder and no quota. Default: no quota.
   */
  readonly maxSessionsPerHolder?: number
  /** The SSE `retry` hint (milliseconds) written with each priming event. */
  readonly retryInterval: number | undefined
  /** The most URIs one session may be subscribed to at once. Default: no cap. */
  readonly maxSubscriptions?: number
}
