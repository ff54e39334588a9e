/**
 * effect-surface/mcp: serve a rooted bundle of surfaces as an MCP server.
 *
 * @since 0.1.0
 */
export * as McpFace from "./Face.ts"
export * as McpResources from "./Resources.ts"
export { McpServer, McpSession, serveStdio, serveSurfaceAsMcp } from "./McpServer.ts"
export type { OwnedConnection, Served, ServeOptions } from "./McpServer.ts"
export type { HttpServed, HttpTransport } from "./Http.ts"
export * as McpSessions from "./Session.ts"
export * as McpAppResources from "./AppResources.ts"
export * as McpClientRequests from "./ClientRequests.ts"
export * as McpCompletion from "./Completion.ts"
export * as McpElicitation from "./Elicitation.ts"
export * as McpLogging from "./Logging.ts"
export * as McpProgress from "./Progress.ts"
export * as McpPrompts from "./Prompts.ts"
export * as McpRequest from "./Request.ts"
export * as McpHttp from "./Http.ts"
export * as McpEventStore from "./EventStore.ts"
export * as McpHttpResponse from "./HttpResponse.ts"
export * as McpHttpGuard from "./HttpGuard.ts"
export * as McpHttpSessions from "./HttpSessions.ts"
export * as McpEventStoreRedis from "./EventStoreRedis.ts"
