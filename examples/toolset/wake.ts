import {
  createSqliteMcpConnectionStore,
  mcpTools,
  rebuildMcpToolsFromStorage,
  retrustMcpServer
} from "effect-surface/client"

const servers = [{ name: "docs", type: "streamable-http", url: "https://mcp.example.com/mcp" }] as const
const storage = createSqliteMcpConnectionStore("toolset.db") // or createMemoryMcpConnectionStore()

// First start connects and records; a wake rebuilds from the store (NothingStored if it is empty).
export const toolsFor = async (firstStart: boolean) =>
  firstStart
    ? mcpTools(servers, { storage, allowedHosts: ["mcp.example.com"] })
    : rebuildMcpToolsFromStorage(servers, { storage, allowedHosts: ["mcp.example.com"] }, { stdio: false })

// After a reviewed change to the server's tools: trust what it lists next.
export const accept = () => retrustMcpServer(storage, "docs")
