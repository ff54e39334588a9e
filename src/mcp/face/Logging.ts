/**
 * A handler's Effect log lines, delivered to the host whose request it is serving.
 *
 * A handler already logs with `Effect.log*`; asking it to log a second time through an MCP API would
 * split every app's logging in two. So the session adds an Effect `Logger` for the length of one
 * request's fiber, which turns each line at or above the session's `logging/setLevel` into a
 * `notifications/message` for that session alone. Effect's levels map onto MCP's syslog levels,
 * and lowering Effect's minimum for the host (to let `Effect.logDebug` through) leaves every logger
 * already installed with the floor it had, so a host asking for debug lines never opens the
 * server's own console to them.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import type * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { fromEffect, type Level, levels, rank, reaches, threshold } from "../../protocol/LogLevel.ts"
import * as References from "effect/References"
import * as Result from "effect/Result"
import * as Json from "../../core/Json.ts"

// The levels are the protocol's, shared with the 2026 wire shapes and the client.
export * from "../../protocol/LogLevel.ts"

/** Each Effect level's MCP rank, or -1 for the thresholds `All` and `None`: read once per log line. */
const effectRank = (level: LogLevel.LogLevel): number => {
  const at = fromEffect(level)
  return at === undefined ? -1 : rank(at)
}

/**
 * The params of one `notifications/message`.
 *
 * @example
 * ```ts
 * import type { McpLogging } from "effect-surface/mcp"
 * const params: McpLogging.Message = { level: "info", logger: "effect-surface", data: "task added" }
 * ```
 *
 * @since 0.1.0
 */
export interface Message {
  readonly level: Level
  readonly logger?: string
  readonly data: Json.Json
}

const pieceText = (piece: unknown): string =>
  typeof piece === "string" ? piece : Result.getOrElse(Json.stringify(piece), () => String(piece))

/**
 * The text a log line travels as: its message parts joined by spaces (a non-string part as its
 * JSON), then the pretty cause, when the line carried one.
 *
 * @example
 * ```ts
 * import { Cause } from "effect"
 * import { McpLogging } from "effect-surface/mcp"
 * McpLogging.format(["added", { id: "t1" }], Cause.empty) // 'added {"id":"t1"}'
 * ```
 *
 * @since 0.1.0
 */
export const format = (message: unknown, cause: Cause.Cause<unknown>): string => {
  const parts = Array.isArray(message) ? message : [message]
  const text = parts.map(pieceText).join(" ")
  return cause.reasons.length === 0 ? text : `${text}\n${Cause.pretty(cause)}`
}

/**
 * A logger that hands each line at or above `level` to `send`, as MCP's message params. `send` is
 * called synchronously from the logging fiber, so it must only enqueue.
 *
 * @example
 * ```ts
 * import { McpLogging } from "effect-surface/mcp"
 * const queue: Array<McpLogging.Message> = []
 * const logger = McpLogging.logger("info", (message) => { queue.push(message) }, "my-app")
 * ```
 *
 * @since 0.1.0
 */
export const logger = (level: Level, send: (message: Message) => void, name?: string): Logger.Logger<unknown, void> =>
  Logger.make((options) => {
    const at = fromEffect(options.logLevel)
    if (at === undefined || !reaches(at, level)) return
    send({ level: at, ...(name === undefined ? {} : { logger: name }), data: format(options.message, options.cause) })
  })

// A logger installed before the request keeps the floor it had when the minimum is lowered for the host.
const floored = (inner: Logger.Logger<unknown, unknown>, floor: LogLevel.LogLevel): Logger.Logger<unknown, void> =>
  Logger.make((options) => {
    if (LogLevel.isGreaterThanOrEqualTo(options.logLevel, floor)) inner.log(options)
  })

/**
 * The context a session's requests at `level` run in: `context` with Effect's
 * minimum lowered to `level`'s threshold when that is lower (every logger already installed held to
 * the old minimum), plus one logger that hands each line at or above `level` to `send`, with the
 * fiber that logged it. Built once per level and shared by every request at it: `send` finds the
 * request a line belongs to in that fiber's context.
 *
 * @example
 * ```ts
 * import { Context, Effect } from "effect"
 * import { McpLogging } from "effect-surface/mcp"
 *
 * const sent: Array<McpLogging.Message> = []
 * const atDebug = McpLogging.forwarding(Context.empty(), "debug", (message) => { sent.push(message) }, "my-app")
 * Effect.runForkWith(atDebug)(Effect.logDebug("looking")) // sent: [{ level: "debug", logger: "my-app", data: "looking" }]
 * ```
 *
 * @since 0.1.0
 */
export const forwarding = <R>(
  context: Context.Context<R>,
  level: Level,
  send: (message: Message, fiber: Fiber.Fiber<unknown, unknown>) => void,
  name?: string
): Context.Context<R> => {
  const minimum = Context.get(context, References.MinimumLogLevel)
  const installed = Context.get(context, Logger.CurrentLoggers)
  const wanted = threshold(level)
  const lowered = LogLevel.isLessThan(wanted, minimum)
  const kept: ReadonlyArray<Logger.Logger<unknown, unknown>> = lowered
    ? [...installed].map((inner) => floored(inner, minimum))
    : [...installed]
  const floor = rank(level)
  const forwarder = Logger.make<unknown, void>((options) => {
    const at = effectRank(options.logLevel)
    if (at < floor) return
    send({
      level: levels[at]!,
      ...(name === undefined ? {} : { logger: name }),
      data: format(options.message, options.cause)
    }, options.fiber)
  })
  return Context.add(
    Context.add(context, Logger.CurrentLoggers, new Set([...kept, forwarder])),
    References.MinimumLogLevel,
    lowered ? wanted : minimum
  )
}
