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
export * as McpFace from "./Face.ts"
export { McpServer, McpSession, serveStdio } from "./McpServer.ts"
export type { StdioOptions } from "./McpServer.ts"
export { ServerClosed, serveSurfaceAsMcp } from "./Promise.ts"
export type { OwnedConnection, Served, ServeOptions } from "./Promise.ts"
export * as McpSessions from "./legacy/Session.ts"
export * as McpAppResources from "./AppResources.ts"
export * as McpCompletion from "./Completion.ts"
export * as McpLogging from "./Logging.ts"
export * as McpPrompts from "./Prompts.ts"
export * as McpRpcError from "./RpcError.ts"
export * as McpRequestState from "./modern/RequestState.ts"
export * as McpWire from "./modern/Wire.ts"
export * as McpResults from "./modern/Results.ts"
export * as McpCaching from "./modern/Caching.ts"
export * as McpTasks from "./modern/Tasks.ts"
export * as McpScopes from "./Scopes.ts"
