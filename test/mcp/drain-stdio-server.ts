// The board served over this process's stdio through the Effect door (`serveStdio` under
// `runMain`), as a host starts it, with two more tools: `slow` answers after a pause and reports its
// progress on the way, `stall` never answers (and says on stderr when it is interrupted). The drain
// timeout is `DRAIN_TIMEOUT` when set. Started by `StdioDrain.test.ts`.
import { runMain } from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import { Progress, Tools } from "effect-surface"
import { serveStdio } from "effect-surface/mcp/stdio"
import { serverOptions } from "../../examples/board/app.ts"

const slow = Tools.make({
  description: "Answers after a pause, reporting its progress first.",
  mutates: false,
  handler: () =>
    Effect.sleep("300 millis").pipe(
      Effect.andThen(Progress.report({ progress: 1, total: 1 })),
      Effect.as("slow and done")
    ),
  render: (text) => Tools.content([Tools.text(text)])
})

const stall = Tools.make({
  description: "Never answers.",
  mutates: false,
  handler: () =>
    Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => process.stderr.write("stall interrupted\n"))))
})

const drainTimeout = process.env["DRAIN_TIMEOUT"]

runMain(Effect.flatMap(serverOptions, (options) =>
  serveStdio({
    ...options,
    tools: { ...options.tools, slow, stall },
    ...(drainTimeout === undefined ? {} : { stdio: { drainTimeout: drainTimeout as `${number} millis` } })
  })))
