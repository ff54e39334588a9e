/**
 * The channel an MCP connection's messages travel on, as this package names it.
 *
 * Every MCP SDK transport (stdio, in-memory, Streamable HTTP, one's own over a WebSocket) has this
 * shape: `start`, `send`, `close` and three callbacks. Stating it here keeps the SDKs' own types out
 * of every public signature: an app hands in whichever SDK's transport it holds, of either major
 * version, and the serving path adapts it in one place. `onmessage` is compared as a method is, so a
 * transport whose message type is narrower than `Message` still fits.
 *
 * @since 0.1.0
 */

/**
 * One JSON-RPC 2.0 message: a request, a notification or a response (its other members as the
 * protocol defines them).
 *
 * @example
 * ```ts
 * import type { McpTransport } from "effect-surface/mcp"
 * const ping: McpTransport.Message = { jsonrpc: "2.0", id: 1, method: "ping" }
 * ```
 *
 * @since 0.1.0
 */
export interface Message {
  readonly jsonrpc: "2.0"
  readonly [member: string]: unknown
}

/**
 * How a message being sent relates to the conversation: the request it answers or belongs to, and
 * a stream's resumption token where the transport keeps one.
 *
 * @example
 * ```ts
 * import type { McpTransport } from "effect-surface/mcp"
 * const options: McpTransport.SendOptions = { relatedRequestId: 7 }
 * ```
 *
 * @since 0.1.0
 */
export interface SendOptions {
  readonly relatedRequestId?: string | number | undefined
  readonly resumptionToken?: string | undefined
  readonly onresumptiontoken?: ((token: string) => void) | undefined
}

/**
 * A message channel a server is served on. An SDK transport is one as it is.
 *
 * @example
 * ```ts
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
 * import type { McpTransport } from "effect-surface/mcp"
 * const transport: McpTransport.Transport = new StdioServerTransport()
 * ```
 *
 * @since 0.1.0
 */
export interface Transport {
  start(): Promise<void>
  /** One message; a client's Streamable HTTP transport also takes a batch, which this package never sends. */
  send(message: Message | ReadonlyArray<Message>, options?: SendOptions): Promise<void>
  close(): Promise<void>
  onmessage?: Callback<(message: Message, extra?: unknown) => void> | undefined
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  readonly sessionId?: string | undefined
  setProtocolVersion?: ((version: string) => void) | undefined
}

// A callback compared as a method is (both ways), so one typed for a narrower message still fits.
type Callback<F extends (...args: never) => void> = { method(...args: Parameters<F>): void }["method"]
