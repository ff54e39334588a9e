// The ACP workload both agents serve: a prompt whose text is a number `n` makes `n` sequential
// `fs/read_text_file` calls from inside the turn; the editor answers every one with the same file.
import * as Acp from "@agentclientprotocol/sdk"
import { Effect } from "effect"
import { AcpSurface } from "effect-surface/acp"

export const CONTENT = "# effect-surface\n".repeat(16)

const callsOf = (request: Acp.PromptRequest): number =>
  Number(request.prompt[0]?.type === "text" ? request.prompt[0].text : "0")

/** Ours: the turn asks through `AcpSurface`, each answer checked against the shipped schema. */
export const oursHandler = (request: Acp.PromptRequest) =>
  Effect.gen(function*() {
    const surface = yield* AcpSurface.AcpSurface
    for (let i = 0; i < callsOf(request); i++) {
      const answer = yield* surface.request("fs/read_text_file", { path: "/README.md" })
      if (answer.content !== CONTENT) return yield* Effect.die("wrong answer")
    }
  }).pipe(Effect.orDie)

/** The peer: the SDK's agent app calling the editor directly, nothing checked. */
export const rawAgent = () =>
  Acp.agent({ name: "bench-raw" })
    .onRequest(Acp.methods.agent.initialize, () => ({ protocolVersion: Acp.PROTOCOL_VERSION, agentCapabilities: {} }))
    .onRequest(Acp.methods.agent.session.new, () => ({ sessionId: "raw" }))
    .onRequest(Acp.methods.agent.session.prompt, async ({ client, params }) => {
      for (let i = 0; i < callsOf(params); i++) {
        const answer = await client.request("fs/read_text_file", { sessionId: params.sessionId, path: "/README.md" })
        if (answer.content !== CONTENT) throw new Error("wrong answer")
      }
      return { stopReason: "end_turn" as const }
    })

/** An editor on `stream`: the SDK's client app; `run(n)` prompts for `n` calls and answers µs per call. */
export const editorOn = async (stream: Acp.Stream) => {
  const connection = Acp.client({ name: "bench-editor" })
    .onRequest(Acp.methods.client.fs.readTextFile, () => ({ content: CONTENT }))
    .onNotification(Acp.methods.client.session.update, () => {})
    .connect(stream)
  await connection.agent.request("initialize", {
    protocolVersion: Acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true } }
  })
  const { sessionId } = await connection.agent.request("session/new", { cwd: "/", mcpServers: [] })
  return {
    run: async (n: number): Promise<number> => {
      const start = performance.now()
      const answer = await connection.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: String(n) }]
      })
      if (answer.stopReason !== "end_turn") throw new Error(`the turn ended ${answer.stopReason}`)
      return ((performance.now() - start) * 1000) / n
    },
    close: () => connection.close()
  }
}
