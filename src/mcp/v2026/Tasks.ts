/**
 * How a face runs calls as tasks for 2026-07-28 clients that follow them (the
 * `io.modelcontextprotocol/tasks` extension).
 *
 * A task is a call that outlasts its request: the client is answered with the task at once and
 * polls for its status and result. Which calls may become tasks is the tool's to say (`task` on a
 * procedure or a bespoke tool); when, and for how long the server keeps what they leave, is the
 * face's, set here. The defaults suit an agent's host: a call that has not answered in a second
 * becomes a task, is polled twice a second, and its result is kept for an hour, up to a mebibyte.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"

/**
 * A face's task settings, each with its default.
 *
 * @example
 * ```ts
 * import type { McpTasks } from "effect-surface/mcp"
 * const tasks: McpTasks.Options = { after: "250 millis", ttl: "15 minutes" }
 * ```
 *
 * @since 0.1.0
 */
export interface Options {
  /** How long a task-capable call runs, asking nothing, before it goes on as a task. Default 1 second. */
  readonly after?: Duration.Input | undefined
  /** How long a task and its result are kept from its creation; a task still running then is stopped. Default 1 hour. */
  readonly ttl?: Duration.Input | undefined
  /** How often a client is advised to poll. Default 500 milliseconds. */
  readonly pollInterval?: Duration.Input | undefined
  /** The largest result a task keeps (its JSON, in bytes); a larger one fails the task, saying so. Default 1 MiB. */
  readonly maxResultBytes?: number | undefined
}

/**
 * The settings resolved, every default filled in.
 *
 * @example
 * ```ts
 * import { McpTasks } from "effect-surface/mcp"
 * McpTasks.resolve({}).ttlMs // 3_600_000
 * ```
 *
 * @since 0.1.0
 */
export interface Settings {
  readonly after: Duration.Duration
  readonly ttlMs: number
  readonly pollIntervalMs: number
  readonly maxResultBytes: number
}

// A setting the face could not keep is refused where the face is built, naming it.
const duration = (name: string, input: Duration.Input, least: number): number => {
  const millis = Option.match(Duration.fromInput(input), { onNone: () => Number.NaN, onSome: Duration.toMillis })
  if (!Number.isFinite(millis) || millis < least) {
    throw new RangeError(`tasks.${name} must be a finite duration of at least ${least} ms; got ${String(input)}`)
  }
  // The wire carries the durations as whole milliseconds.
  return Math.round(millis)
}

/**
 * Fill in the defaults; a setting out of range (a negative or infinite duration, a result bound that
 * is not a positive whole number of bytes) throws a `RangeError` naming it.
 *
 * @example
 * ```ts
 * import { McpTasks } from "effect-surface/mcp"
 * const settings = McpTasks.resolve({ pollInterval: "2 seconds" }) // pollIntervalMs: 2000
 * ```
 *
 * @since 0.1.0
 */
export const resolve = (options: Options = {}): Settings => {
  const maxResultBytes = options.maxResultBytes ?? 1_048_576
  if (!Number.isSafeInteger(maxResultBytes) || maxResultBytes < 1) {
    throw new RangeError(`tasks.maxResultBytes must be a positive whole number of bytes; got ${maxResultBytes}`)
  }
  return {
    after: Duration.millis(duration("after", options.after ?? Duration.seconds(1), 0)),
    ttlMs: duration("ttl", options.ttl ?? Duration.hours(1), 1),
    pollIntervalMs: duration("pollInterval", options.pollInterval ?? Duration.millis(500), 1),
    maxResultBytes
  }
}
