// Tools whose arguments are mirrored into Mcp-Param-* headers, served over HTTP: `route` mirrors a
// string, a nested integer and a boolean (as the 2026-07-28 revision allows) and echoes its input;
// `weigh` mirrors a `number`, which the revision forbids.
import { Effect, References } from "effect"
import { Surface, Tools } from "effect-surface"
import { McpHttp } from "effect-surface/mcp"

const route = Tools.make({
  description: "Echoes where a call would be routed.",
  input: Tools.jsonSchema({
    type: "object",
    properties: {
      region: { type: "string", "x-mcp-header": "Region" },
      at: { type: "object", properties: { shard: { type: "integer", "x-mcp-header": "Shard" } } },
      dry: { type: "boolean", "x-mcp-header": "Dry" }
    },
    required: ["region"]
  }),
  mutates: false,
  handler: (input) => Effect.succeed(input)
})

const weigh = Tools.make({
  description: "Echoes a weight in grams.",
  input: Tools.jsonSchema({
    type: "object",
    properties: { grams: { type: "number", "x-mcp-header": "Grams" } },
    required: ["grams"]
  }),
  mutates: false,
  handler: (input) => Effect.succeed(input)
})

/** Our own server over HTTP on a free port, serving `route` and `weigh`. */
export const serveMirroring = McpHttp.serve({
  core: { surface: Surface.make({}), expose: {} },
  client: Effect.succeed({ clients: {} }),
  tools: { route, weigh },
  http: { port: 0 }
}).pipe(Effect.provideService(References.MinimumLogLevel, "Warn"))
