// The raw SDK's low-level `Server` serving `add({ a, b })`: the same tool as ours advertises, byte
// for byte, a plain check of the arguments and the same framing. It loads the SDK and nothing of
// `effect`; `rawAddServer` is also what the Effect floor (bench/servers/host.ts) runs under NodeRuntime.
// Run as the entry (`node hostRaw.ts`, or bundled), it serves on this process's stdio.
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { add, ADD_DESCRIPTION, ADD_TOOL } from "../lib/adder.ts"

const inputSchema = {
  type: "object",
  properties: { a: { type: "number" }, b: { type: "number" } },
  required: ["a", "b"]
} as const

/** The raw SDK server, its handlers set, not yet connected. */
export const rawAddServer = (): Server => {
  const server = new Server({ name: "add-raw", version: "0.0.0" }, { capabilities: { tools: { listChanged: true } } })
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{
      name: ADD_TOOL,
      description: ADD_DESCRIPTION,
      inputSchema,
      annotations: { readOnlyHint: true, destructiveHint: false }
    }]
  }))
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    if (request.params.name !== ADD_TOOL) {
      throw Object.assign(new Error(`unknown tool "${request.params.name}"`), { code: -32602 })
    }
    const a: unknown = request.params.arguments?.["a"]
    const b: unknown = request.params.arguments?.["b"]
    if (typeof a !== "number" || !Number.isFinite(a) || typeof b !== "number" || !Number.isFinite(b)) {
      return { isError: true, content: [{ type: "text" as const, text: "a, b: expected numbers" }] }
    }
    const out = add({ a, b })
    return { content: [{ type: "text" as const, text: JSON.stringify(out) }], structuredContent: out }
  })
  return server
}

/** Serve on this process's stdio; exit when stdin ends. */
export const serveRaw = async (): Promise<void> => {
  await rawAddServer().connect(new StdioServerTransport())
  process.stdin.once("end", () => process.exit(0))
}

if (import.meta.main) await serveRaw()
