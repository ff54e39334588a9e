import { mcpTools } from "effect-surface/client"

declare const tokenFor: (user: string) => Promise<string>

// One toolset per session: the credential is resolved before initialize and again before every call.
export const answer = async (user: string, signal: AbortSignal) => {
  const { close, tools } = await mcpTools(
    [{ name: "docs", type: "streamable-http", url: "https://mcp.example.com/mcp" }],
    {
      session: user,
      allowedHosts: ["mcp.example.com"],
      auth: async (_server, { session }) => ({ token: await tokenFor(session) })
    }
  )
  try {
    // Resolves to { content, structuredContent? }; an isError result rejects with "MCP tool error: …".
    return await tools["docs__search"]?.execute({ query: "retries" }, { signal })
  } finally {
    await close()
  }
}
