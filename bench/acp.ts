// An ACP `request` round trip, answer checked, against the SDK's agent app calling the same editor
// directly (no check, no capability test, no cancel wiring). Both agents serve the same editor —
// the SDK's client app answering `fs/read_text_file` — over an in-process pair of ndJSON streams,
// so both pay the same framing; each prompt makes `n` sequential calls from inside the turn, and
// the figure is µs per call (the prompt itself amortized over the calls).
import * as Acp from "@agentclientprotocol/sdk"
import { Effect, Exit, Scope } from "effect"
import { AcpAgent, AcpSurface } from "effect-surface/acp"
import { count, emit, interleave, median, note } from "./lib/measure.ts"

const CONTENT = "# effect-surface\n".repeat(16)

interface Competitor {
  /** µs per call over `n` calls made in one turn. */
  readonly run: (n: number) => Promise<number>
  readonly close: () => Promise<void>
}

const pipes = () => {
  const toEditor = new TransformStream<Uint8Array, Uint8Array>()
  const toAgent = new TransformStream<Uint8Array, Uint8Array>()
  return {
    agent: Acp.ndJsonStream(toEditor.writable, toAgent.readable),
    editor: Acp.ndJsonStream(toAgent.writable, toEditor.readable)
  }
}

// The editor both agents talk to, and a prompt that asks for `n` calls and reports µs per call.
const editorOn = async (stream: Acp.Stream): Promise<Competitor> => {
  const connection = Acp.client({ name: "bench-editor" })
    .onRequest(Acp.methods.client.fs.readTextFile, () => ({ content: CONTENT }))
    .onNotification(Acp.methods.client.session.update, () => {})
    .connect(stream)
  await connection.agent.request("initialize", { protocolVersion: Acp.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: true } } })
  const { sessionId } = await connection.agent.request("session/new", { cwd: "/", mcpServers: [] })
  return {
    run: async (n) => {
      const start = performance.now()
      const answer = await connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: String(n) }] })
      if (answer.stopReason !== "end_turn") throw new Error(`the turn ended ${answer.stopReason}`)
      return ((performance.now() - start) * 1000) / n
    },
    close: async () => connection.close()
  }
}

const callsOf = (request: Acp.PromptRequest): number => Number(request.prompt[0]?.type === "text" ? request.prompt[0].text : "0")

const ours = async (): Promise<Competitor> => {
  const { agent, editor } = pipes()
  const handler = (request: Acp.PromptRequest) =>
    Effect.gen(function*() {
      const surface = yield* AcpSurface.AcpSurface
      for (let i = 0; i < callsOf(request); i++) {
        const answer = yield* surface.request("fs/read_text_file", { path: "/README.md" })
        if (answer.content !== CONTENT) return yield* Effect.die("wrong answer")
      }
    }).pipe(Effect.orDie)
  const scope = Effect.runSync(Scope.make())
  await Effect.runPromise(AcpAgent.connect(agent).pipe(Scope.provide(scope), Effect.provide(AcpAgent.layer(handler))))
  const competitor = await editorOn(editor)
  return { ...competitor, close: async () => Effect.runPromise(Effect.andThen(Effect.promise(competitor.close), Scope.close(scope, Exit.void))) }
}

const raw = async (): Promise<Competitor> => {
  const { agent, editor } = pipes()
  const app = Acp.agent({ name: "bench-raw" })
    .onRequest(Acp.methods.agent.initialize, () => ({ protocolVersion: Acp.PROTOCOL_VERSION, agentCapabilities: {} }))
    .onRequest(Acp.methods.agent.session.new, () => ({ sessionId: "raw" }))
    .onRequest(Acp.methods.agent.session.prompt, async ({ client, params }) => {
      for (let i = 0; i < callsOf(params); i++) {
        const answer = await client.request("fs/read_text_file", { sessionId: params.sessionId, path: "/README.md" })
        if (answer.content !== CONTENT) throw new Error("wrong answer")
      }
      return { stopReason: "end_turn" }
    })
  const connection = app.connect(agent)
  const competitor = await editorOn(editor)
  return { ...competitor, close: async () => { await competitor.close(); connection.close() } }
}

export const run = async (): Promise<void> => {
  const competitors = [await ours(), await raw()]
  try {
    const calls = count(2000, 200)
    const samples = count(11, 3)
    note(`acp: warm-up, then ${samples} samples × ${calls} sequential fs/read_text_file calls in one turn`)
    for (const competitor of competitors) await competitor.run(count(20_000, 500))
    const taken = await interleave(competitors.map((c) => () => c.run(calls)), { samples, warmup: count(2, 1) })
    const [oursMedian, rawMedian] = taken.map(median) as [number, number]
    emit({ bench: "acp_request.in_process.sequential.vs_raw_sdk_agent", ours: oursMedian, peer: rawMedian, unit: "µs per checked request, median" })
  } finally {
    await Promise.all(competitors.map((c) => c.close()))
  }
}
