// SDK clients over Streamable HTTP, for the reliability tests: each with its notifications counted by
// URI, and closed — its session ended with a DELETE — when its scope closes.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { type CallToolResult, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Result } from "effect"
import type { Scope } from "effect"

export interface HttpClient {
  readonly client: Client
  readonly transport: StreamableHTTPClientTransport
  readonly sessionId: string
  /** `notifications/resources/updated` received so far, by URI. */
  readonly updates: Map<string, number>
  /** End the session (DELETE) and close the client; idempotent. */
  readonly close: Effect.Effect<void>
}

/** Connect an SDK client to `url`; its session is ended when the scope closes, if not before. */
export const connectHttp = (url: string, name = "reliability"): Effect.Effect<HttpClient, never, Scope.Scope> =>
  Effect.gen(function*() {
    const client = new Client({ name, version: "1.0.0" }, { capabilities: {} })
    const transport = new StreamableHTTPClientTransport(new URL(url))
    const updates = new Map<string, number>()
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.set(n.params.uri, (updates.get(n.params.uri) ?? 0) + 1)
    })
    let closed = false
    const close = Effect.suspend(() => {
      if (closed) return Effect.void
      closed = true
      return Effect.promise(() => transport.terminateSession().catch(() => undefined)).pipe(
        Effect.andThen(Effect.promise(() => client.close().catch(() => undefined)))
      )
    })
    yield* Effect.acquireRelease(Effect.promise(() => client.connect(transport)), () => close)
    return { client, transport, sessionId: transport.sessionId ?? "", updates, close }
  })

/** A tool call through the SDK client: its result, or the error the client rejected with. */
export const callTool = (
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  options: { readonly signal?: AbortSignal; readonly timeout?: number } = {}
): Effect.Effect<Result.Result<CallToolResult, unknown>> =>
  Effect.tryPromise({
    // The SDK's return type also admits a pre-2025 `toolResult` shape this server never sends.
    try: () =>
      client.callTool({ name, arguments: args }, undefined, {
        timeout: options.timeout ?? 30_000,
        ...(options.signal === undefined ? {} : { signal: options.signal })
      }) as Promise<CallToolResult>,
    catch: (error) => error
  }).pipe(Effect.result)

/** Headers of a well-formed Streamable HTTP POST. */
export const postHeaders = (session?: string): Record<string, string> => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-11-25",
  ...(session === undefined ? {} : { "mcp-session-id": session })
})
