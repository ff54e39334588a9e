/**
 * effect-surface/client: many MCP servers, and local surfaces, as one tool map an agent can hand to
 * a model without handing over the keys.
 *
 * @since 0.1.0
 */
export * as McpToolset from "./McpToolset.ts"
export * as McpConfig from "./Config.ts"
export * as McpPolicy from "./Policy.ts"
export * as McpDiagnostic from "./Diagnostic.ts"
export * as McpNames from "./Names.ts"
export * as McpHosts from "./Hosts.ts"
export * as McpContainment from "./Containment.ts"
export * as McpCatalog from "./Catalog.ts"
export * as McpCallResult from "./CallResult.ts"
export * as McpAiToolkit from "./AiToolkit.ts"
export * as McpTransports from "./Transports.ts"
export type * as McpTransport from "../protocol/Transport.ts"
export * as McpPromise from "./PromiseApi.ts"
export * as McpDisclosure from "./Disclosure.ts"
export * as McpDrift from "./Drift.ts"
export * as McpStore from "./Store.ts"
export * as McpStoreSqlite from "./StoreSqlite.ts"
export * as McpOAuth from "./OAuth.ts"
export * as McpQuestions from "./Questions.ts"
export * as McpResources from "./Resources.ts"
export * as McpTokenStore from "./TokenStore.ts"
export * as McpTokenStoreSqlite from "./TokenStoreSqlite.ts"
export {
  createMemoryMcpConnectionStore,
  createSqliteMcpConnectionStore,
  createSqliteMcpTokenStore,
  mcpTools,
  rebuildMcpToolsFromStorage,
  retrustMcpServer
} from "./PromiseApi.ts"
export {
  AuthFailed,
  type CallError,
  CallErrorSchema,
  HostNotAllowed,
  InvalidArguments,
  McpProtocolError,
  McpToolError,
  NothingStored,
  PolicyDenied,
  ServerUnavailable,
  StoredServerMismatch,
  ToolQuarantined,
  ToolsetClosed,
  ToolTimeout,
  ToolWithdrawn,
  UnknownTool,
  WiringError
} from "./Errors.ts"
