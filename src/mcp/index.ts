/**
 * effect-surface/mcp: serve a rooted bundle of surfaces as an MCP server, over stdio, an SDK
 * transport or Streamable HTTP. A stdio server imports `effect-surface/mcp/stdio` instead: the
 * same face without the HTTP stack, so it starts sooner.
 *
 * @since 0.1.0
 */
export * from "./stdio.ts"
export type { HttpServed, HttpTransport } from "./Promise.ts"
export * as McpHttp from "./Http.ts"
export * as McpEventStore from "./v2025/EventStore.ts"
export * as McpHttpResponse from "./v2025/HttpResponse.ts"
export * as McpHttpChecks from "./transport/HttpChecks.ts"
// By name as well: an app exporting an HTTP server layer names its refusal through this (TS2883).
export type { UnguardedBind } from "./transport/HttpChecks.ts"
export * as McpHttpSessions from "./v2025/HttpSessions.ts"
export * as McpEventStoreRedis from "./v2025/EventStoreRedis.ts"
export * as McpHttpRedis from "./HttpRedis.ts"
export * as McpAuth from "./auth/Auth.ts"
export * as McpTokenVerifier from "./auth/TokenVerifier.ts"
export * as McpConsole from "./console/Console.ts"
