// A remote server's resources and prompts through the toolset, and its tools' output schemas: read
// and filled in from the reference server (server-everything) under the same policy as calls; a
// declared output schema kept on the tool, carried by the Toolkit and the Promise API, and every
// structured answer checked against it — a server that breaks its own schema is refused, naming the field.
import { assert, describe, it } from "@effect/vitest"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Context, Effect } from "effect"
import { mcpTools, McpAiToolkit, McpCallResult, McpPolicy, McpToolset } from "effect-surface/client"
import type { McpConfig } from "effect-surface/client"
import { everythingStdio } from "./servers.ts"

const weather = {
  type: "object",
  properties: { temperature: { type: "number" }, conditions: { type: "string" } },
  required: ["temperature", "conditions"]
}

/** A server whose one tool declares `weather` as its output and answers `structured`. */
const lying = (structured: Record<string, unknown>): McpConfig.Custom => ({
  name: "weather",
  type: "transport",
  open: () => {
    const [client, server] = InMemoryTransport.createLinkedPair()
    const sdk = new Server({ name: "weather", version: "1.0.0" }, { capabilities: { tools: {} } })
    sdk.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: "forecast", inputSchema: { type: "object" }, outputSchema: weather }]
    }))
    sdk.setRequestHandler(CallToolRequestSchema, () => ({
      content: [{ type: "text", text: JSON.stringify(structured) }],
      structuredContent: structured
    }))
    void sdk.connect(server)
    return client
  }
})

describe("resources, prompts and output schemas", () => {
  it.live(
    "a server's resources are listed and read, its prompts listed and filled in, through the toolset",
    () =>
      Effect.gen(function*() {
        const toolset = yield* McpToolset.make([everythingStdio()])
        const resources = yield* toolset.resources
        assert.isAbove(resources.length, 0)
        const first = resources[0]!
        assert.strictEqual(first.server, "everything")
        const contents = yield* toolset.readResource(first.server, first.uri)
        assert.strictEqual(contents[0]?.uri, first.uri)
        const prompts = yield* toolset.prompts
        const args = prompts.find((prompt) => prompt.prompt === "args-prompt")
        assert.strictEqual(args?.name, "everything__args-prompt")
        const filled = yield* toolset.getPrompt("everything__args-prompt", { city: "Lisbon" })
        assert.include(JSON.stringify(filled.messages), "Lisbon")
      }),
    30_000
  )

  it.live("a read and a prompt are requests the policy sees and can deny, unsent", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const toolset = yield* McpToolset.make([everythingStdio()], {
        policy: {
          decide: (request) => {
            seen.push(`${request.tool} ${request.toolName}`)
            return McpPolicy.deny("not today")
          }
        }
      })
      const [resource] = yield* toolset.resources
      const denied = yield* Effect.flip(toolset.readResource("everything", resource!.uri))
      assert.strictEqual(denied._tag, "PolicyDenied")
      const refused = yield* Effect.flip(toolset.getPrompt("everything__simple-prompt"))
      assert.strictEqual(refused._tag, "PolicyDenied")
      assert.deepStrictEqual(seen, [
        "resources/read everything__resources/read",
        "prompts/get everything__simple-prompt"
      ])
    }), 30_000)

  it.live(
    "a declared output schema is kept on the tool, carried by the Toolkit, and a conforming answer passes",
    () =>
      Effect.gen(function*() {
        const toolset = yield* McpToolset.make([everythingStdio()])
        const tool = (yield* toolset.tools).get("everything__get-structured-content")
        assert.strictEqual((tool?.outputSchema as { type?: unknown } | undefined)?.type, "object")
        const answer = yield* toolset.call("everything__get-structured-content", { location: "Chicago" })
        assert.strictEqual(answer.structuredContent?.["conditions"], "Light rain / drizzle")
        const kit = yield* toolset.toolkit
        const carried = kit.tools["everything__get-structured-content"]!
        assert.deepStrictEqual(Context.get(carried.annotations, McpAiToolkit.OutputSchema), tool?.outputSchema)
      }),
    30_000
  )

  it.live("structuredContent that breaks the tool's output schema is refused with a protocol error naming the field", () =>
    Effect.gen(function*() {
      const toolset = yield* McpToolset.make([lying({ temperature: "hot", conditions: "sunny" })])
      const refused = yield* Effect.flip(toolset.call("weather__forecast", {}))
      assert.strictEqual(refused._tag, "McpProtocolError")
      assert.include(refused.message, "temperature")
      const honest = yield* McpToolset.make([lying({ temperature: 21, conditions: "sunny" })])
      const answer = yield* honest.call("weather__forecast", {})
      assert.strictEqual(McpCallResult.textOf(answer), JSON.stringify({ temperature: 21, conditions: "sunny" }))
    }))

  it.live("the Promise API's tools carry the output schema", () =>
    Effect.gen(function*() {
      const toolset = yield* Effect.acquireRelease(
        Effect.promise(() => mcpTools([lying({ temperature: 21, conditions: "sunny" })])),
        (opened) => Effect.promise(() => opened.close())
      )
      assert.deepStrictEqual(toolset.tools["weather__forecast"]?.outputSchema, weather)
    }))
})
