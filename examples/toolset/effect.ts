import { Effect } from "effect"
import { McpCallResult, McpPolicy, McpToolset } from "effect-surface/client"

// Connect every server once; closing the scope closes every connection.
export const program = Effect.scoped(Effect.gen(function*() {
  const toolset = yield* McpToolset.make([
    { name: "memory", type: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] },
    { name: "docs", type: "streamable-http", url: "https://mcp.example.com/mcp" }
  ], {
    allowedHosts: ["mcp.example.com"], // any other host, or a redirect to one, is never contacted
    tools: { block: ["memory__delete_entities"] },
    // The only gate: ask puts the call to the Approval service (no Approval provided: no).
    policy: { decide: (call) => call.tool.startsWith("delete") ? McpPolicy.ask : McpPolicy.allow }
  })
  yield* Effect.log([...(yield* toolset.tools).keys()].join(", ")) // memory__read_graph, docs__search, …
  const graph = yield* toolset.call("memory__read_graph", {})
  return McpCallResult.textOf(graph)
}))
