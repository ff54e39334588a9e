// A tool that can only be called as a task (`execution.taskSupport: "required"`) on a 2025-11-25
// session, where the toolset does not follow tasks, would fail every call: it is left out of the map,
// each with a diagnostic naming it and saying why, while a tool that merely allows tasks stays.
import { assert, describe, it } from "@effect/vitest"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { McpToolset } from "effect-surface/client"
import type { McpConfig } from "effect-surface/client"

const research: McpConfig.Custom = {
  name: "research",
  type: "transport",
  protocol: "2025-11-25",
  open: () => {
    const [client, server] = InMemoryTransport.createLinkedPair()
    const sdk = new Server({ name: "research", version: "1.0.0" }, { capabilities: { tools: {} } })
    sdk.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        { name: "deep", inputSchema: { type: "object" }, execution: { taskSupport: "required" } },
        { name: "quick", inputSchema: { type: "object" }, execution: { taskSupport: "optional" } },
        { name: "plain", inputSchema: { type: "object" } }
      ]
    }))
    void sdk.connect(server)
    return client
  }
}

describe("a tool that can only be called as a task", () => {
  it.effect("is left out of a 2025 session's map with a tool-needs-tasks diagnostic; the others stay", () =>
    Effect.gen(function*() {
      const toolset = yield* McpToolset.make([research])
      assert.deepStrictEqual([...(yield* toolset.tools).keys()].sort(), ["research__plain", "research__quick"])
      const needs = (yield* toolset.diagnostics).filter((d) => d.kind === "tool-needs-tasks")
      assert.deepStrictEqual(needs.map((d) => d.kind === "tool-needs-tasks" ? d.tool : ""), ["deep"])
      assert.include(needs[0]?.message ?? "", "execution.taskSupport \"required\"")
      const refused = yield* Effect.flip(toolset.call("research__deep", {}))
      assert.strictEqual(refused._tag, "UnknownTool")
    }))
})
