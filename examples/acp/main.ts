// The example agent served over ACP on stdio, for Zed or any ACP client (see the README):
//   npm -s run acp
// It needs no model: each prompt is one command (`help` lists them), done through the editor.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { AcpAgent, AcpToolset } from "effect-surface/acp"
import { handler } from "./agent.ts"
import * as SessionTools from "./tools.ts"

export const acp = AcpAgent.serveStdio(handler, {
  name: "effect-surface-example",
  title: "effect-surface example agent",
  version: "0.1.0",
  agentCapabilities: { mcpCapabilities: AcpToolset.mcpCapabilities },
  session: SessionTools.layer
})

if (import.meta.main) NodeRuntime.runMain(acp)
