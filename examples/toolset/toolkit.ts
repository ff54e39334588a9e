import { Effect } from "effect"
import { LanguageModel } from "effect/ai"
import { McpToolset } from "effect-surface/client"

// The toolset's tools as an effect/ai Toolkit: the servers' own schemas, the toolset's own call path.
export const ask = (prompt: string) =>
  Effect.gen(function*() {
    const toolset = yield* McpToolset.McpToolset
    const toolkit = yield* toolset.toolkit
    const response = yield* LanguageModel.generateText({ prompt, toolkit })
    return response.text
  }).pipe(Effect.provide(McpToolset.layer([{ name: "memory", type: "stdio", command: "mcp-server-memory" }])))
