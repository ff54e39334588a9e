import { serveTools } from "effect-surface/serve"
import { refuse } from "effect-surface/tools"

// Plain tool objects, as most agent frameworks write them: a JSON Schema and an execute.
const lookup = {
  name: "lookup_order",
  description: "Look an order up by its id.",
  inputSchema: { type: "object", properties: { id: { type: "string", pattern: "^o[0-9]+$" } }, required: ["id"] },
  mutates: false,
  declarations: { owner: "support" }, // listed in _meta under "effect-surface/declarations"
  execute: async ({ id }: { readonly id: string }) => ({ id, status: "shipped" })
}

const refund = {
  name: "refund",
  description: "Refund part of an order, in cents.",
  inputSchema: {
    type: "object",
    properties: { id: { type: "string" }, cents: { type: "integer", minimum: 1 } },
    required: ["id", "cents"]
  },
  execute: async ({ cents, id }: { readonly id: string; readonly cents: number }) => `refunded ${cents} cents on ${id}`
}

// Governance composed around a tool is what a caller reaches: the object served is the one that runs.
const capped = {
  ...refund,
  execute: async (args: { readonly id: string; readonly cents: number }) => {
    // A refusal the agent reads; anything else thrown is a bug, logged with an id the agent is told.
    if (args.cents > 5_000) throw refuse("a refund over $50 needs a person", { cap: 5_000 })
    return refund.execute(args)
  }
}

// Over this process's stdio; { transport: { transport: "http", port: 0 } } serves Streamable HTTP instead.
const served = await serveTools([lookup, capped], { serverInfo: { name: "support-desk", version: "1.0.0" } })
await served.closed // the host closed the connection
