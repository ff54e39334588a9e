// Plain tool objects as an app outside Effect writes them, and a governance wrapper around one:
// what the serveTools tests serve, in process and from a child over stdio.
import type { ServeTools } from "effect-surface/serve"
import { refuse } from "effect-surface/tools"

export const quoteSchema = {
  type: "object",
  properties: {
    item: { type: "string", enum: ["tea", "cake"], description: "What to price" },
    qty: { type: "integer", minimum: 1, maximum: 10 }
  },
  required: ["item", "qty"],
  additionalProperties: false
} as const

export const prices = { tea: 3, cake: 5 } as const

/** A tool with declarations, counting the calls that reach its execute. */
export const makeQuote = () => {
  const calls = { count: 0 }
  const tool = {
    name: "quote",
    description: "Quote the price of some tea or cake.",
    inputSchema: quoteSchema,
    mutates: false,
    declarations: { owner: "shop", resultKind: "price" },
    execute: async (args: { readonly item: keyof typeof prices; readonly qty: number }) => {
      calls.count++
      return { item: args.item, qty: args.qty, total: prices[args.item] * args.qty }
    }
  }
  return { tool, calls }
}

/** A tool that declares nothing, and throws (a bug, not a refusal) when asked to. */
export const echo: ServeTools.PlainTool = {
  name: "echo",
  description: "Echo the text back; fail when it is 'fail'.",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  execute: async (args: { readonly text: string }) => {
    if (args.text === "fail") throw new Error("the echo chamber is closed")
    return args.text
  }
}

/**
 * Governance composed around a tool the way an app does it: a new object whose execute checks a
 * rule, records the decision, and only then calls the inner tool.
 */
export const governed = <T extends ServeTools.PlainTool>(
  tool: T,
  rule: { readonly allows: (args: any) => boolean; readonly because: string },
  record: (line: string) => void
): T => ({
  ...tool,
  execute: async (args: unknown, ctx: ServeTools.ExecuteContext) => {
    if (!rule.allows(args)) {
      record(`refused ${tool.name}`)
      throw refuse(`refused by policy: ${rule.because}`, { rule: rule.because })
    }
    record(`allowed ${tool.name}`)
    return tool.execute(args, ctx)
  }
})
