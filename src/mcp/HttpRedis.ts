/**
 * Streamable HTTP served by many instances behind any load balancer, their sessions kept in Redis.
 *
 * One process's memory cannot hold a session that the next request, landing on another instance,
 * must find. Provide this layer (over `effect/persistence`'s `Redis` service — `NodeRedis` from
 * `@effect/platform-node` on the `redis` client) and `McpHttp.serve` keeps in Redis what every
 * instance needs: each session's registry entry (its `initialize`, negotiated version, log level,
 * subscriptions, leader and expiry), the resumability events, and a pub/sub inbox per instance
 * through which a stream's events reach whichever instance serves its client, and a client's
 * answer reaches the instance whose request it answers. No affinity is needed, and an instance
 * that dies leaves its sessions to the others: a client re-opens its stream with `Last-Event-ID`
 * and receives what it missed. A plain call (one whose first output is its answer) is answered as
 * one JSON body by the instance it reached, from its replica of the session, with nothing written
 * to Redis; only a call that streams (logs, progress, a question to the client) has its events
 * stored there. A `DELETE` is answered once every instance listening has ended its replica of
 * the session, so no request after the answer is served anywhere. Each session's
 * leader announces roster moves from its own face, so every instance is expected to make the same
 * moves (the same code and configuration); the app's own state (what its surfaces read) is the
 * app's to share. Without this layer nothing changes: one process, in memory.
 *
 * Keys (under `prefix`): `s:{<session>}` (a hash) and `s:{<session>}:subs` (a set), expiring an
 * idle timeout after the last use anywhere; `i:<instance>`, expiring three heartbeats after the
 * instance's last; `e:{<session>}:…`, the event store's. Channels: `bus` (every instance) and
 * `inbox:<instance>`. One Redis (or its primary): the scripts touch several sessions at once.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redis from "effect/persistence/Redis"
import * as Face from "./face/Face.ts"
import type * as EventStoreRedis from "./v2025/EventStoreRedis.ts"
import type * as HttpSessions from "./v2025/HttpSessions.ts"
import * as Shared from "./v2025/internal/replicas.ts"

/**
 * How the instances share their sessions.
 *
 * @example
 * ```ts
 * import type { McpHttpRedis } from "effect-surface/mcp"
 *
 * const options: McpHttpRedis.Options = { prefix: "board:mcp:", heartbeat: "1 second" }
 * ```
 *
 * @since 0.1.0
 */
export interface Options {
  /** What every key and channel begins with; instances serving one face share it. Default `effect-surface:mcp:`. */
  readonly prefix?: string
  /**
   * How often an instance says it lives (and keeps the sessions it served alive). One silent for
   * three beats has gone, and the sessions it led are claimed by the others. Default 2 seconds.
   */
  readonly heartbeat?: Duration.Input
  /** How long a Redis operation may take before the request that needed it is answered 503. Default 5 seconds. */
  readonly timeout?: Duration.Input
  /** The event store's bounds (it expires with the session). */
  readonly events?: Omit<EventStoreRedis.Options, "prefix" | "timeToLive" | "timeout">
}

/**
 * Sessions shared in Redis: when this service is in context, `McpHttp.serve` keeps them there.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { NodeRedis } from "@effect/platform-node"
 * import { McpHttp, McpHttpRedis } from "effect-surface/mcp"
 * import type { McpFace } from "effect-surface/mcp"
 *
 * declare const options: McpFace.Options
 * const shared = McpHttpRedis.layer().pipe(Layer.provide(NodeRedis.layer({ url: "redis://127.0.0.1:6379", disableOfflineQueue: true })))
 * // Provided to the endpoint's layer, the connection lives as long as the endpoint.
 * const app = McpHttp.layer({ ...options, http: { port: 3000 } }).pipe(Layer.provide(shared))
 * ```
 *
 * @since 0.1.0
 */
export class SharedSessions extends Context.Service<SharedSessions, {
  readonly redis: Redis.Redis["Service"]
  readonly options: Options
}>()("effect-surface/McpHttpRedis/SharedSessions") {}

/**
 * Share the sessions of every `McpHttp.serve` in its context through the `Redis` service.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { NodeRedis } from "@effect/platform-node"
 * import { McpHttpRedis } from "effect-surface/mcp"
 *
 * const shared = McpHttpRedis.layer({ prefix: "board:mcp:" }).pipe(Layer.provide(NodeRedis.layer({ url: "redis://127.0.0.1:6379" })))
 * ```
 *
 * @since 0.1.0
 */
export const layer = (options: Options = {}): Layer.Layer<SharedSessions, never, Redis.Redis> =>
  Layer.effect(
    SharedSessions,
    Effect.map(Effect.service(Redis.Redis), (redis) => SharedSessions.of({ redis, options }))
  )

/**
 * This instance's part in the shared sessions, for a session table with the given bounds: what
 * `McpHttp.serveFace` hands `McpHttpSessions.make`.
 *
 * @example
 * ```ts
 * import { Duration, Effect } from "effect"
 * import { McpEventStore, McpHttpRedis, McpHttpSessions } from "effect-surface/mcp"
 * import type { McpFace } from "effect-surface/mcp"
 *
 * declare const face: McpFace.Face
 * declare const shared: McpHttpRedis.SharedSessions["Service"]
 * const config: McpHttpSessions.Config = { idleTimeout: Duration.minutes(10), maxSessions: 1000, retryInterval: undefined }
 * const table = McpHttpSessions.make(face, McpEventStore.makeMemory(), config, McpHttpRedis.joining(shared, config))
 * ```
 *
 * @since 0.1.0
 */
export const joining = (shared: SharedSessions["Service"], config: HttpSessions.Config) => (hooks: Shared.Hooks) => {
  const { options } = shared
  return Shared.make({
    prefix: options.prefix ?? "effect-surface:mcp:",
    heartbeat: Duration.fromInputUnsafe(options.heartbeat ?? "2 seconds"),
    timeout: Duration.fromInputUnsafe(options.timeout ?? "5 seconds"),
    idleTimeout: config.idleTimeout,
    maxSubscriptions: config.maxSubscriptions ?? Face.defaultMaxSubscriptions,
    retryInterval: config.retryInterval,
    events: options.events ?? {}
  }, hooks).pipe(Effect.provideService(Redis.Redis, shared.redis))
}
