/**
 * effect-surface/mcp: serve a rooted bundle of surfaces as an MCP server.
 *
 * @since 0.1.0
 */
export * as McpFace from "./Face.ts"
export { McpServer, McpSession, serveStdio } from "./McpServer.ts"
export { serveSurfaceAsMcp } from "./Promise.ts"
export type { HttpServed, HttpTransport, OwnedConnection, Served, ServeOptions } from "./Promise.ts"
export * as McpSessions from "./Session.ts"
export * as McpAppResources from "./AppResources.ts"
export * as McpCompletion from "./Completion.ts"
export * as McpLogging from "./Logging.ts"
export * as McpPrompts from "./Prompts.ts"
export * as McpRpcError from "./RpcError.ts"
export * as McpHttp from "./Http.ts"
export * as McpEventStore from "./EventStore.ts"
export * as McpHttpResponse from "./HttpResponse.ts"
export * as McpHttpGuard from "./HttpGuard.ts"
export * as McpHttpSessions from "./HttpSessions.ts"
export * as McpEventStoreRedis from "./EventStoreRedis.ts"
export * as McpHttpRedis from "./HttpRedis.ts"
