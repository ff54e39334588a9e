/**
 * The refusal of an HTTP server whose port another process holds, told in one sentence with its way
 * out wherever it is printed. The class is public as `McpHttp.PortInUse`; the module is not.
 *
 * @internal
 */
import { ServeError } from "effect/http/HttpServerError"

/**
 * The port asked for is taken by another process. A `ServeError` (so every signature naming
 * `ServeError` still holds) whose message says so, and what to do, in one sentence: printed by
 * Effect's error log or as a Promise's rejection, that sentence is all that shows.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpHttp } from "effect-surface/mcp"
 *
 * declare const serving: Effect.Effect<void, McpHttp.PortInUse | Error>
 * const told = Effect.catch(serving, (e) => Effect.logError(e instanceof McpHttp.PortInUse ? e.message : e))
 * ```
 *
 * @since 0.1.0
 */
export class PortInUse extends ServeError {
  readonly #host: string
  readonly #port: number
  constructor(host: string, port: number) {
    super({ cause: undefined })
    this.#host = host
    this.#port = port
    // A refusal with its way out, told in one sentence wherever it is printed: Effect's error log and
    // Node's unhandled rejection print the stack, the cause and every own field, so the stack is the
    // sentence, the tag is kept from view, and Node's EADDRINUSE (which says no more) is not carried.
    delete (this as { cause?: unknown }).cause
    Object.defineProperty(this, "_tag", { enumerable: false })
    Object.defineProperty(this, "stack", { value: `PortInUse: ${this.message}`, enumerable: false, writable: true })
  }
  override get name(): string {
    return "PortInUse"
  }
  /** The host it was to listen on. */
  get host(): string {
    return this.#host
  }
  /** The port another process holds. */
  get port(): number {
    return this.#port
  }
  override get message(): string {
    return `port ${this.#port} on ${this.#host} is already in use by another process, so the MCP server cannot listen there: stop that process, or choose another port (port 0 takes any free one)`
  }
}

// Made with no frames captured: Node prints an unhandled rejection under the source line its first
// frame names, which would point a Promise caller at this module rather than at their call.
/** The refusal for `port` on `host`, made with no frames captured. */
export const make = (host: string, port: number): PortInUse => {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    return new PortInUse(host, port)
  } finally {
    Error.stackTraceLimit = limit
  }
}

/** Whether a listen failed because the address is taken. */
export const inUse = (cause: unknown): boolean =>
  typeof cause === "object" && cause !== null && "code" in cause && cause.code === "EADDRINUSE"
