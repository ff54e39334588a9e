// A stdio MCP server for the stdio benchmark, run as a child process: `ours`, `raw` (the SDK's
// low-level Server) or `effect-ai`, all serving the same echo workload. Exits when stdin ends.
import { NodeRuntime, NodeStdio } from "@effect/platform-node"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { Effect, Layer, Logger, References } from "effect"
import { McpProtocol, McpServer as AiMcpServer } from "effect/ai"
import { serveStdio } from "effect-surface/mcp"
import { aiRegistrations, aiServerInfo, makeOurs, makeRawServer } from "../lib/workload.ts"

const kind = process.argv[2]
const quiet = Layer.mergeAll(Layer.succeed(References.MinimumLogLevel, "Warn"), Layer.succeed(Logger.LogToStderr, true))

if (kind === "ours") {
  NodeRuntime.runMain(Effect.flatMap(makeOurs, ({ options }) => serveStdio(options)).pipe(Effect.provide(quiet)))
} else if (kind === "raw") {
  const server = makeRawServer()
  await server.connect(new StdioServerTransport())
  process.stdin.once("end", () => process.exit(0))
} else if (kind === "effect-ai") {
  const layer = AiMcpServer.layerStdio({
    ...aiServerInfo,
    protocols: [McpProtocol.v2025_11_25],
    registrations: aiRegistrations
  }).pipe(
    Layer.provide(NodeStdio.layer),
    Layer.provide(quiet)
  )
  NodeRuntime.runMain(Layer.launch(layer))
} else {
  process.stderr.write(`usage: stdio.ts ours|raw|effect-ai (got ${String(kind)})\n`)
  process.exit(2)
}
