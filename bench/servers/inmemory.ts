// One in-memory competitor — an SDK `Client` and its server in this one process — run as a child
// so the competitors never share a heap or the JIT's feedback on shared code (Effect's runtime, the
// SDK's Protocol): `ours` and `raw` on the SDK's InMemoryTransport pair, `effect-ai` on an
// in-process JSON frame link (lib/effectAi.ts). IPC: `check` answers one call's result;
// `seq { n }` and `par { n, inFlight }` answer µs per call; `alloc { n, inFlight }` heap bytes per
// call (the child started with --expose-gc and a young generation that holds the window).
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { Effect } from "effect"
import { McpFace } from "effect-surface/mcp"
import { serveEffectAiInMemory } from "../lib/effectAi.ts"
import { allocatedPerOp, concurrent, sequential } from "../lib/measure.ts"
import { connectOurs, connectRaw, connectTransport, hold } from "../lib/run.ts"
import { ARGS, makeOurs, makeRawServer, TOOL } from "../lib/workload.ts"

type Request =
  | { readonly type: "check"; readonly id: number }
  | { readonly type: "seq"; readonly id: number; readonly n: number }
  | { readonly type: "par"; readonly id: number; readonly n: number; readonly inFlight: number }
  | { readonly type: "alloc"; readonly id: number; readonly n: number; readonly inFlight: number }

const kind = process.argv[2]
const held = await hold()
const client: Client = kind === "ours"
  ? await connectOurs(held, await held.run(Effect.flatMap(makeOurs, ({ options }) => McpFace.make(options))))
  : kind === "raw"
  ? await connectRaw(makeRawServer())
  : kind === "effect-ai"
  ? await connectTransport(await held.run(serveEffectAiInMemory))
  : (() => {
    process.stderr.write(`usage: inmemory.ts ours|raw|effect-ai (got ${String(kind)})\n`)
    return process.exit(2)
  })()

const call = () => client.callTool({ name: TOOL, arguments: ARGS })

process.on("message", (message: Request) => {
  void (async () => {
    switch (message.type) {
      case "check":
        return { result: await call() }
      case "seq":
        return { value: await sequential(message.n, call) }
      case "par":
        return { value: await concurrent(message.n, message.inFlight, call) }
      case "alloc":
        return { value: await allocatedPerOp(message.n, message.inFlight, call) }
    }
  })().then(
    (answer) => process.send?.({ id: message.id, ...answer }),
    (error: unknown) => process.send?.({ id: message.id, error: String(error) })
  )
})
process.on("disconnect", () => process.exit(0))
process.on("SIGTERM", () => process.exit(0))
process.send?.({ type: "ready" })
