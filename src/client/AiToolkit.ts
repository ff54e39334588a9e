/**
 * A toolset as an `effect/ai` Toolkit, for a `LanguageModel` to call.
 *
 * The toolkit is built from the tools the toolset holds at that moment (build another after the map
 * changes). Each tool advertises the server's input schema unchanged — `Tool.getJsonSchema` answers
 * the very object `tools/list` gave, not a regeneration — and its handler is the toolset's own
 * `call`: the same checking, policy, deadline and result adapter as every other caller. A failure is
 * handed back to the model as the tool's result (`failureMode: "return"`), since an `isError` text
 * or a policy refusal is written for the model to act on.
 *
 * @since 0.1.0
 */
import type * as JsonSchema from "effect/JsonSchema"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Tool, Toolkit } from "effect/ai"
import * as CallResult from "./CallResult.ts"
import type * as Catalog from "./Catalog.ts"
import { type CallError, CallErrorSchema } from "./Errors.ts"

/**
 * One toolset tool as an `effect/ai` tool.
 *
 * @example
 * ```ts
 * import type { McpAiToolkit } from "effect-surface/client"
 * declare const tool: McpAiToolkit.AiTool
 * tool.name
 * ```
 *
 * @since 0.1.0
 */
export type AiTool = Tool.Tool<string, {
  readonly parameters: typeof Schema.Unknown
  readonly success: typeof CallResult.ResultSchema
  readonly failure: typeof CallErrorSchema
  readonly failureMode: "return"
}>

/**
 * The output schema a server declared for a tool, carried on the toolkit's tool as an annotation
 * (`undefined` for a tool that declares none): a caller that shows a model what a tool answers reads
 * it with `Context.get(tool.annotations, McpAiToolkit.OutputSchema)`.
 *
 * @example
 * ```ts
 * import { Context } from "effect"
 * import { McpAiToolkit } from "effect-surface/client"
 * declare const tool: McpAiToolkit.AiTool
 * const declared = Context.get(tool.annotations, McpAiToolkit.OutputSchema)
 * ```
 *
 * @since 0.1.0
 */
export const OutputSchema = Context.Reference<{ readonly [key: string]: unknown } | undefined>(
  "effect-surface/McpAiToolkit/OutputSchema",
  { defaultValue: () => undefined }
)

/**
 * The toolkit, handlers bound.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { McpAiToolkit } from "effect-surface/client"
 * declare const kit: McpAiToolkit.Kit
 * const run = Effect.flatMap(kit.handle("memory__read_graph", {}), (stream) => stream.pipe(Effect.succeed))
 * ```
 *
 * @since 0.1.0
 */
export type Kit = Toolkit.WithHandler<Record<string, AiTool>>

/**
 * Build the toolkit over `tools`, each handler calling `call`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpAiToolkit, type McpCatalog, type McpCallResult, type CallError } from "effect-surface/client"
 * declare const tools: ReadonlyMap<string, McpCatalog.Tool>
 * declare const call: (name: string, args: unknown) => Effect.Effect<McpCallResult.Result, CallError>
 * const kit = McpAiToolkit.make(tools, call)
 * ```
 *
 * @since 0.1.0
 */
export const make = (
  tools: ReadonlyMap<string, Catalog.Tool>,
  call: (name: string, args: unknown) => Effect.Effect<CallResult.Result, CallError>
): Effect.Effect<Kit> =>
  Effect.gen(function*() {
    const list: Array<AiTool> = []
    const handlers: Record<string, (params: unknown) => Effect.Effect<CallResult.Result, CallError>> = Object.create(
      null
    )
    for (const tool of tools.values()) {
      list.push(
        Tool.dynamic(tool.name, {
          description: tool.description,
          // The server's schema object itself: advertised as is.
          parameters: tool.inputSchema as JsonSchema.JsonSchema,
          success: CallResult.ResultSchema,
          failure: CallErrorSchema,
          failureMode: "return"
        }).annotate(Tool.Strict, false).annotate(OutputSchema, tool.outputSchema)
      )
      handlers[tool.name] = (params) => call(tool.name, params)
    }
    const toolkit = Toolkit.make(...list)
    return yield* toolkit.pipe(Effect.provideContext(yield* toolkit.toHandlers(handlers)))
  })
