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
export * as McpEventStore from "./legacy/EventStore.ts"
export * as McpHttpResponse from "./legacy/HttpResponse.ts"
export * as McpHttpGuard from "./HttpGuard.ts"
export * as McpHttpSessions from "./legacy/HttpSessions.ts"
export * as McpEventStoreRedis from "./legacy/EventStoreRedis.ts"
export * as McpHttpRedis from "./HttpRedis.ts"
export * as McpAuth from "./Auth.ts"
export * as McpTokenVerifier from "./TokenVerifier.ts"
export * as McpConsole from "./Console.ts"
