/**
 * MCP's log levels, as both ends speak them: the syslog severities a `logging/setLevel` names, the
 * level a `notifications/message` carries and the one a 2026 envelope asks for, and how Effect's
 * levels map onto them. The server's logging and the 2026 wire shapes read them from here, so the
 * two ends and the two revisions cannot disagree on what a level means.
 *
 * @since 0.1.0
 */
import type * as LogLevel from "effect/LogLevel"

/**
 * MCP's log levels (RFC 5424's syslog severities), least severe first.
 *
 * @example
 * ```ts
 * import type { McpLogging } from "effect-surface/mcp"
 * const level: McpLogging.Level = "warning"
 * ```
 *
 * @since 0.1.0
 */
export type Level = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency"

/**
 * Every MCP level, least severe first.
 *
 * @example
 * ```ts
 * import { McpLogging } from "effect-surface/mcp"
 * McpLogging.levels.indexOf("error") > McpLogging.levels.indexOf("info") // true
 * ```
 *
 * @since 0.1.0
 */
export const levels: ReadonlyArray<Level> = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency"
]

/**
 * A level's place among `levels`, least severe first.
 *
 * @example
 * ```ts
 * import { McpLogging } from "effect-surface/mcp"
 * McpLogging.rank("debug") // 0
 * ```
 *
 * @since 0.1.0
 */
export const rank = (level: Level): number => levels.indexOf(level)

/**
 * The MCP level an Effect log line is sent at: Trace and Debug as `debug`, Info as `info`, Warn as
 * `warning`, Error as `error`, Fatal as `critical`. `All` and `None` are thresholds, not levels a
 * line is logged at, and map to nothing.
 *
 * @example
 * ```ts
 * import { McpLogging } from "effect-surface/mcp"
 * McpLogging.fromEffect("Warn") // "warning"
 * ```
 *
 * @since 0.1.0
 */
export const fromEffect = (level: LogLevel.LogLevel): Level | undefined => {
  switch (level) {
    case "Trace":
    case "Debug":
      return "debug"
    case "Info":
      return "info"
    case "Warn":
      return "warning"
    case "Error":
      return "error"
    case "Fatal":
      return "critical"
    case "All":
    case "None":
      return undefined
  }
}

/**
 * The least severe Effect level whose lines reach a session at `level`: `notice` has no Effect
 * counterpart, so a session at `notice` hears `Warn` and above.
 *
 * @example
 * ```ts
 * import { McpLogging } from "effect-surface/mcp"
 * McpLogging.threshold("debug") // "Trace"
 * McpLogging.threshold("notice") // "Warn"
 * ```
 *
 * @since 0.1.0
 */
export const threshold = (level: Level): LogLevel.LogLevel => {
  const candidates: ReadonlyArray<LogLevel.LogLevel> = ["Trace", "Debug", "Info", "Warn", "Error", "Fatal"]
  return candidates.find((candidate) => rank(fromEffect(candidate) ?? "emergency") >= rank(level)) ?? "None"
}

/**
 * Whether a line at `line` reaches a session listening at `session`.
 *
 * @example
 * ```ts
 * import { McpLogging } from "effect-surface/mcp"
 * McpLogging.reaches("warning", "info") // true
 * ```
 *
 * @since 0.1.0
 */
export const reaches = (line: Level, session: Level): boolean => rank(line) >= rank(session)
