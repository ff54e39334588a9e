import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import { AcpAgent, AcpSurface, AcpToolCalls, AcpToolset } from "effect-surface/acp"
import { McpCallResult, McpPolicy, McpToolset } from "effect-surface/client"

const turn = () =>
  Effect.gen(function*() {
    const toolset = yield* McpToolset.McpToolset
    // The policy asks: the person is shown this call in the editor, and nothing is sent without a yes.
    const graph = yield* AcpToolCalls.report(
      { title: "Read the knowledge graph", kind: "read" },
      toolset.call("memory__read_graph", {})
    )
    yield* AcpSurface.notify({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: McpCallResult.textOf(graph) }
    })
  })

NodeRuntime.runMain(AcpAgent.serveStdio(turn, {
  name: "my-agent",
  agentCapabilities: { mcpCapabilities: AcpToolset.mcpCapabilities },
  session: AcpToolset.layer({ policy: { decide: () => McpPolicy.ask }, allowedHosts: ["mcp.example.com"] })
}))
