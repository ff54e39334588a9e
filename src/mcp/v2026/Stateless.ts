/**
 * What a server says of its 2026-07-28 path: how a call that asked its client is continued, the
 * caching hints of its lists, and how task-capable calls run as tasks.
 *
 * These are settings of one revision, so they live with it rather than on the version-neutral face:
 * a server's options carry them beside the face's (`McpServer.Settings`), the server resolves them
 * once, and every 2026 path it opens (stdio, in memory, HTTP) is handed the one result.
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Caching from "./Caching.ts"
import * as RequestState from "./RequestState.ts"
import * as Tasks from "./Tasks.ts"

/**
 * The 2026-07-28 settings a server's options may carry.
 *
 * @example
 * ```ts
 * import type { McpStateless } from "effect-surface/mcp"
 * const options: McpStateless.Options = { requestState: { ttl: "5 minutes" }, tasks: { after: "2 seconds" } }
 * ```
 *
 * @since 0.1.0
 */
export interface Options {
  /**
   * How a 2026-07-28 call that asked its client is continued: the key that signs its `requestState`
   * (the same on every instance that may receive the retry: given here or in `MCP_REQUEST_STATE_KEY`;
   * agreed in Redis by instances sharing one; otherwise made for this process) and how long a parked
   * call waits for it (default 10 minutes).
   */
  readonly requestState?: RequestState.Options
  /** The caching hints of 2026-07-28 lists: the longest a list is called fresh (default 5 minutes). */
  readonly caching?: Caching.Options
  /** How 2026-07-28 calls of task-capable tools run as tasks (when, how long they are kept). */
  readonly tasks?: Tasks.Options
}

/**
 * The settings resolved: the codec that signs `requestState`, the caching options, the task settings.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpStateless } from "effect-surface/mcp"
 * const ttl = Effect.map(McpStateless.make({}), (stateless) => stateless.requestState.ttl)
 * ```
 *
 * @since 0.1.0
 */
export interface Stateless {
  /** Signs and checks the `requestState` of 2026-07-28 round trips. */
  readonly requestState: RequestState.Codec
  readonly caching: Caching.Options
  readonly tasks: Tasks.Settings
}

// The key states are signed with: the options', else the environment's, else none (made by the codec).
const stateKey = (options: Options) =>
  options.requestState?.key !== undefined
    ? Effect.succeed(options.requestState.key)
    : Config.option(Config.Redacted("MCP_REQUEST_STATE_KEY")).pipe(
      Effect.map(Option.getOrUndefined),
      Effect.orElseSucceed(() => undefined)
    )

/**
 * Resolve a server's 2026-07-28 settings once (reading `MCP_REQUEST_STATE_KEY` when no key is given).
 *
 * @example
 * ```ts
 * import { McpStateless } from "effect-surface/mcp"
 * const stateless = McpStateless.make({ requestState: { ttl: "5 minutes" } })
 * ```
 *
 * @since 0.1.0
 */
export const make = (options: Options): Effect.Effect<Stateless> =>
  Effect.map(stateKey(options), (key) => ({
    requestState: RequestState.make({ ...options.requestState, key }),
    caching: options.caching ?? {},
    tasks: Tasks.resolve(options.tasks)
  }))
