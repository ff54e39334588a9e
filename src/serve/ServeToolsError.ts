/**
 * The refusals `serveTools` makes when tools are handed over, each naming the tool.
 *
 * A plain tool arrives from code outside Effect, typed or not, and some of what it may declare
 * cannot be kept over a request/response protocol. Each such case is refused before anything is
 * served, as a tagged error whose message names the tool and says what to change, so the fix is
 * one reading away. Kept apart from `ServeTools` so a caller can match on them without the rest.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The tool list was empty: a server with nothing to call is a mistake, not a server.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ServeTools } from "effect-surface/serve"
 * const refused = ServeTools.rootTools([]).pipe(Effect.catchTag("NoTools", (e) => Effect.succeed(e.message)))
 * ```
 *
 * @since 0.1.0
 */
export class NoTools extends Schema.TaggedError<NoTools>()("NoTools", {}) {
  override get message(): string {
    return "serveTools was given no tools: pass at least one tool to serve"
  }
}

/**
 * Two tools share a name, so a call by that name could reach either.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ServeTools } from "effect-surface/serve"
 * declare const a: ServeTools.PlainTool
 * const refused = ServeTools.rootTools([a, a]).pipe(Effect.catchTag("DuplicateTool", (e) => Effect.succeed(e.name)))
 * ```
 *
 * @since 0.1.0
 */
export class DuplicateTool extends Schema.TaggedError<DuplicateTool>()("DuplicateTool", { name: Schema.String }) {
  override get message(): string {
    return `two tools are named "${this.name}": each served tool needs a name of its own`
  }
}

/**
 * A tool declares `checkIn`, a person's consent before it runs: a request/response protocol has no
 * channel to pause a call on, so serving it would run the tool unchecked.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ServeTools } from "effect-surface/serve"
 * declare const guarded: ServeTools.PlainTool
 * const refused = ServeTools.rootTools([guarded]).pipe(Effect.catchTag("CheckInUnsupported", (e) => Effect.succeed(e.name)))
 * ```
 *
 * @since 0.1.0
 */
export class CheckInUnsupported
  extends Schema.TaggedError<CheckInUnsupported>()("CheckInUnsupported", { name: Schema.String })
{
  override get message(): string {
    return `tool "${this.name}" declares checkIn, which cannot be kept over MCP (a call cannot be paused for consent): serve it without checkIn, or put the consent inside its execute`
  }
}

/**
 * A tool declares `needs` but no credential provider was given: it would run without the
 * credential it asked for.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ServeTools } from "effect-surface/serve"
 * declare const refund: ServeTools.PlainTool
 * const refused = ServeTools.rootTools([refund]).pipe(Effect.catchTag("CredentialsMissing", (e) => Effect.succeed(e.name)))
 * ```
 *
 * @since 0.1.0
 */
export class CredentialsMissing
  extends Schema.TaggedError<CredentialsMissing>()("CredentialsMissing", { name: Schema.String })
{
  override get message(): string {
    return `tool "${this.name}" declares needs but no credentials provider was given: pass options.credentials`
  }
}

/**
 * A tool object that is not a plain tool: no name, no `execute` function, no object schema, or
 * declarations that are not JSON.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ServeTools } from "effect-surface/serve"
 * declare const odd: ServeTools.PlainTool
 * const refused = ServeTools.rootTools([odd]).pipe(Effect.catchTag("MalformedTool", (e) => Effect.succeed(e.reason)))
 * ```
 *
 * @since 0.1.0
 */
export class MalformedTool
  extends Schema.TaggedError<MalformedTool>()("MalformedTool", { name: Schema.String, reason: Schema.String })
{
  override get message(): string {
    return `tool "${this.name}" cannot be served: ${this.reason}`
  }
}

/**
 * Every refusal made when tools are handed over.
 *
 * @example
 * ```ts
 * import type { ServeToolsError } from "effect-surface/serve"
 * const fixable = (e: ServeToolsError.ServeToolsError) => e._tag !== "NoTools"
 * ```
 *
 * @since 0.1.0
 */
export type ServeToolsError = NoTools | DuplicateTool | CheckInUnsupported | CredentialsMissing | MalformedTool
