/**
 * effect-surface/mcp: serve a rooted bundle of surfaces as an MCP server.
 *
 * @since 0.1.0
 */
export * as McpFace from "./Face.ts"
export * as McpResources from "./Resources.ts"
export { McpServer, McpSession, serveStdio, serveSurfaceAsMcp } from "./McpServer.ts"
export type { OwnedConnection, Served, ServeOptions } from "./McpServer.ts"
export * as McpSessions from "./Session.ts"
