// `tools/call` over in-memory transports: each competitor's SDK client and server share one child
// process (bench/servers/inmemory.ts) and no other competitor's code — ours and the raw SDK on the
// SDK's `InMemoryTransport` pair; effect/ai, which serves only through an `RpcServer.Protocol` of
// JSON-RPC text frames, on an in-process frame link (see lib/effectAi.ts), hence its label.
import { callFigures, type Competitor } from "./lib/calls.ts"
import { type Child, spawnServer } from "./lib/child.ts"

const remote = (child: Child): Competitor => ({
  check: async () => (await child.ask<{ readonly result: unknown }>({ type: "check" })).result,
  seq: async (n) => (await child.ask<{ readonly value: number }>({ type: "seq", n })).value,
  par: async (n, inFlight) => (await child.ask<{ readonly value: number }>({ type: "par", n, inFlight })).value
})

export const run = async (): Promise<void> => {
  const children = await Promise.all(
    (["ours", "raw", "effect-ai"] as const).map((kind) => spawnServer("inmemory.ts", [kind]))
  )
  try {
    const [ours, raw, ai] = children.map(remote) as [Competitor, Competitor, Competitor]
    await callFigures("inmemory", { ours, raw, ai }, "(in_process_json_frames)")
  } finally {
    await Promise.all(children.map((child) => child.stop()))
  }
}
