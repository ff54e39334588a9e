/**
 * The caching hints (`ttlMs`, `cacheScope`) a 2026-07-28 list, discovery or read carries.
 *
 * A hint should say what the server knows, not a number picked once. What a face knows about its
 * lists is when each last moved: a roster move, new root tools, new prompts or app resources. A list
 * that has not moved for an hour is likelier to stand for another few minutes than one that moved a
 * second ago, so a list is fresh for a tenth of its age (HTTP's heuristic freshness, RFC 9111
 * §4.2.2), up to a bound; a client that listens hears a move at once either way. A read of a
 * surface's value is fresh for no time at all: the value is live, and `subscriptions/listen` says
 * when it changes. Who may keep an answer follows from who asked: with no authorization every caller
 * is shown the same lists, so their hints are `public`; behind a resource server each caller's lists
 * are narrowed to its token's scopes and a read may answer by who asks, so every list and read a
 * token-bearing caller is answered is `private` (a shared cache keeps it for that caller alone).
 * Discovery says the same to every caller and stays `public`.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Identity from "../../core/Identity.ts"
import type * as Broadcast from "../face/Broadcast.ts"

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
 * const own = caching.private.list("tools") // the same, with cacheScope: "private"
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
  /** The same hints for a caller whose answers are its own (`cacheScope: "private"`). */
  readonly private: Caching
}

/**
 * The hints for one caller: `private` for a caller with a verified token (its lists are narrowed
 * to its scopes, and a read may answer by who asks), the face's `public` ones for the local caller.
 *
 * @example
 * ```ts
 * import { Identity } from "effect-surface"
 * import { McpCaching } from "effect-surface/mcp"
 * declare const caching: McpCaching.Caching
 * const ada = Identity.token({ subject: "ada", clientId: "cli", scopes: ["board:read"] })
 * McpCaching.forCaller(caching, ada).list("tools").cacheScope // "private"
 * ```
 *
 * @since 0.1.0
 */
export const forCaller = (caching: Caching, caller: Identity.Principal): Caching =>
  caller._tag === "Local" ? caching : caching.private

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
    const ttlSince = (at: number) =>
      Math.max(0, Math.min(maxTtl, Math.floor((clock.currentTimeMillisUnsafe() - at) / 10)))
    const { movedAt } = broadcaster
    const discover = (): Hint => ({
      ttlMs: ttlSince(Math.max(movedAt("tools"), movedAt("resources"), movedAt("prompts"))),
      cacheScope: "public"
    })
    const hints = (cacheScope: Hint["cacheScope"]) => ({
      list: (list: Broadcast.List): Hint => ({ ttlMs: ttlSince(movedAt(list)), cacheScope }),
      discover,
      read: { ttlMs: 0, cacheScope }
    })
    // The private hints are their own private hints.
    const privately: Caching = {
      ...hints("private"),
      get private() {
        return privately
      }
    }
    return { ...hints("public"), private: privately }
  })
