/**
 * effect-surface/mcp/stdio: the MCP face as a stdio server loads it — everything
 * `effect-surface/mcp` exports but the Streamable HTTP stack.
 *
 * A host starts a stdio server for every session, so what the server loads before its first answer
 * is what a person waits for. The Streamable HTTP modules bring `effect/http`, Node's HTTP server and
 * their own dependencies; a server that speaks stdio (or any SDK transport it is handed) imports this
 * entry instead and loads none of them. `effect-surface/mcp` is this entry plus HTTP.
 *
 * @since 0.1.0
 */
export * as McpConnection from "./Connection.ts"
export * as McpFace from "./face/Face.ts"
export { McpServer, McpServedConnection, serveStdio } from "./McpServer.ts"
export type { Options as McpServerOptions, Settings as McpServerSettings, StdioOptions } from "./McpServer.ts"
export { ServerClosed, serveSurfaceAsMcp } from "./Promise.ts"
export type { OwnedConnection, Served, ServeOptions } from "./Promise.ts"
export * as McpSession2025 from "./v2025/Session.ts"
export * as McpAppResources from "./face/AppResources.ts"
export * as McpCompletion from "./face/Completion.ts"
export * as McpLogging from "./face/Logging.ts"
export * as McpPrompts from "./face/Prompts.ts"
export * as McpRpcError from "./face/RpcError.ts"
export * as McpRequestState from "./v2026/RequestState.ts"
export * as McpEras from "../protocol/Eras.ts"
export * as McpToolCall from "../protocol/ToolCall.ts"
export type * as McpTransport from "../protocol/Transport.ts"
export * as McpMessages from "../protocol/v2026/Messages.ts"
export * as McpResults from "../protocol/v2026/Results.ts"
export * as McpCaching from "./v2026/Caching.ts"
export * as McpTasks from "./v2026/Tasks.ts"
export * as McpStateless from "./v2026/Stateless.ts"
export * as McpScopes from "./face/Scopes.ts"
export * as McpViews from "./views/Views.ts"
export * as McpViewPage from "./views/Page.ts"
