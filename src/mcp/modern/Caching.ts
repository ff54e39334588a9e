/**
 * The caching hints (`ttlMs`, `cacheScope`) a 2026-07-28 list, discovery or read carries.
 *
 * A hint should say what the server knows, not a number picked once. What a face knows about its
 * lists is when each last moved: a roster move, new root tools, new prompts or app resources. A list
 * that has not moved for an hour is likelier to stand for another few minutes than one that moved a
 * second ago, so a list is fresh for a tenth of its age (HTTP's heuristic freshness, RFC 9111
 * §4.2.2), up to a bound; a client that listens hears a move at once either way. A read of a
 * surface's value is fresh for no time at all: the value is live, and `subscriptions/listen` says
 * when it changes. Nothing here depends on who asks, so every hint is `public` (until authorization
 * narrows what a caller sees).
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Broadcast from "../internal/broadcast.ts"

/**
 * A result's caching hint.
 *
 * @example
 * ```ts
 * import type { McpCaching } from "effect-surface/mcp"
 * const hint: McpCaching.Hint = { ttlMs: 30_000, cacheScope: "public" }
 * ```
 *
 * @since 0.1.0
 */
export interface Hint {
  readonly ttlMs: number
  readonly cacheScope: "public" | "private"
}

/**
 * How long a list may be called fresh at most. Default 5 minutes.
 *
 * @example
 * ```ts
 * import type { McpCaching } from "effect-surface/mcp"
 * const options: McpCaching.Options = { maxTtl: "1 minute" }
 * ```
 *
 * @since 0.1.0
 */
export interface Options {
  readonly maxTtl?: Duration.Input | undefined
}

/**
 * The hints of one face.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { McpCaching } from "effect-surface/mcp"
 * declare const caching: McpCaching.Caching
 * const hint = caching.list("tools") // { ttlMs: a tenth of how long the tools have stood, cacheScope: "public" }
 * ```
 *
 * @since 0.1.0
 */
export interface Caching {
  readonly list: (list: Broadcast.List) => Hint
  /** Discovery: as fresh as the least settled list (instructions may follow the roster). */
  readonly discover: () => Hint
  /** A read: live values are stale at once. */
  readonly read: Hint
}

/**
 * Hints from the ages of a face's lists, as its broadcaster saw them move.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpCaching } from "effect-surface/mcp"
 * import type { McpFace } from "effect-surface/mcp"
 * declare const face: McpFace.Face
 * const caching = McpCaching.make(face.broadcaster, { maxTtl: "1 minute" }) // Effect<Caching>
 * ```
 *
 * @since 0.1.0
 */
export const make = (broadcaster: Broadcast.Broadcaster, options: Options = {}): Effect.Effect<Caching> =>
  Effect.map(Clock.Clock, (clock) => {
    const maxTtl = Duration.toMillis(Duration.fromInputUnsafe(options.maxTtl ?? "5 minutes"))
    const since = (at: number): Hint => ({
      ttlMs: Math.max(0, Math.min(maxTtl, Math.floor((clock.currentTimeMillisUnsafe() - at) / 10))),
      cacheScope: "public"
    })
    const { movedAt } = broadcaster
    return {
      list: (list) => since(movedAt(list)),
      discover: () => since(Math.max(movedAt("tools"), movedAt("resources"), movedAt("prompts"))),
      read: { ttlMs: 0, cacheScope: "public" }
    }
  })
