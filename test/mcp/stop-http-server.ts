// The board served over HTTP by `runMain`, as a person runs a server in a terminal, with one more tool:
// `stall` never answers. Started by `CtrlC.test.ts`.
import { runMain } from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import { Tools } from "effect-surface"
import { McpHttp } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"

const stall = Tools.make({ description: "Never answers.", mutates: false, handler: () => Effect.never })

runMain(
  Effect.scoped(
    Effect.flatMap(serverOptions, (options) =>
      Effect.andThen(
        McpHttp.serve({ ...options, tools: { ...options.tools, stall }, http: { port: 0 } }),
        Effect.never
      ))
  )
)
