import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import { AcpAgent, AcpSession, AcpSurface } from "effect-surface/acp"
import * as Path from "node:path"

const turn = () =>
  Effect.gen(function*() {
    // The folder the person opened this session in (session/new's cwd), read through their editor.
    const { cwd } = yield* AcpSession.AcpSession
    const { content } = yield* AcpSurface.request("fs/read_text_file", { path: Path.join(cwd, "README.md") })
    yield* AcpSurface.notify({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: `${content.length} characters` }
    })
  })

NodeRuntime.runMain(AcpAgent.serveStdio(turn, { name: "my-agent" }))
