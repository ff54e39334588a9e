import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import { AcpAgent, AcpSurface } from "effect-surface/acp"

const turn = () =>
  Effect.gen(function*() {
    const { content } = yield* AcpSurface.request("fs/read_text_file", { path: "/repo/README.md" })
    yield* AcpSurface.notify({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: `${content.length} characters` }
    })
  })

NodeRuntime.runMain(AcpAgent.serveStdio(turn, { name: "my-agent" }))
