import { Effect } from "effect"
import { McpToolset } from "effect-surface/client"

// Resources and prompts by the tools' rules: the policy sees each read and prompt, deadlines apply.
export const program = Effect.scoped(Effect.gen(function*() {
  const toolset = yield* McpToolset.make([
    { name: "docs", type: "streamable-http", url: "https://mcp.example.com/mcp" }, // 2026-07-28 if it speaks it
    { name: "legacy", type: "streamable-http", url: "https://old.example.com/mcp", protocol: "2025-11-25" }
  ], { allowedHosts: ["mcp.example.com", "old.example.com"] })
  const [readme] = yield* toolset.resources // [{ server: "docs", uri: "docs://readme", name: "README", … }]
  const contents = readme === undefined ? [] : yield* toolset.readResource(readme.server, readme.uri)
  const prompt = yield* toolset.getPrompt("docs__summarize", { topic: "retries" }) // { messages: [...] }
  // A tool that declares an outputSchema answers structuredContent checked against it.
  const weather = yield* toolset.call("docs__forecast", { city: "Lisbon" })
  return { contents, prompt, temperature: weather.structuredContent?.["temperature"] }
}))
