import { Effect } from "effect"
import { McpStoreSqlite, McpToolset } from "effect-surface/client"

const servers = [
  { name: "memory", type: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] },
  {
    name: "docs",
    type: "streamable-http",
    url: "https://mcp.example.com/mcp",
    headers: { "x-api-key": "never stored" }
  }
] as const
const options = { allowedHosts: ["mcp.example.com"], disclosure: { budget: 20_000, alwaysLoad: ["memory"] } }

// First start: connect, and record each server's catalogue and the baseline it is trusted with.
export const firstStart = Effect.scoped(Effect.gen(function*() {
  const storage = yield* McpStoreSqlite.make("toolset.db")
  const toolset = yield* McpToolset.make(servers, { ...options, storage })
  return yield* toolset.call("memory__read_graph", {})
}))

// After a restart: the map comes from the file at once, with no server asked; each server is checked
// in the background, and a tool whose definition changed meanwhile is quarantined, not called.
export const wake = Effect.scoped(Effect.gen(function*() {
  const storage = yield* McpStoreSqlite.make("toolset.db")
  const toolset = yield* McpToolset.rebuild(servers, { ...options, storage }, { stdio: true })
  const names = [...(yield* toolset.tools).keys()]
  yield* toolset.reconciled // only if a stale turn is worse than a round trip
  return names
}))

// A person checked the change to docs and accepts it: its next listing becomes the baseline.
export const retrustDocs = Effect.scoped(
  Effect.flatMap(McpStoreSqlite.make("toolset.db"), (storage) => McpToolset.retrust(storage, "docs"))
)
