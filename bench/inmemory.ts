// `tools/call` over in-memory transports: each competitor's SDK client and server share one child
// process (bench/servers/inmemory.ts) and no other competitor's code — ours and the raw SDK on the
// SDK's `InMemoryTransport` pair; effect/ai, which serves only through an `RpcServer.Protocol` of
// JSON-RPC text frames, on an in-process frame link (see lib/effectAi.ts), hence its label. Then
// what a call allocates, ours against the raw SDK, in children of their own started for it: a
// figure the machine's load cannot move, so a change on the path shows even on a busy machine.
import { callFigures, type Competitor } from "./lib/calls.ts"
import { type Child, spawnServer } from "./lib/child.ts"
import { count, emit, interleave, median, note } from "./lib/measure.ts"

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
  await allocationFigures()
}

// Both the SDK client and the server allocate in the window: the client's share is the same code
// on both sides, so the difference is the server's.
const allocationFigures = async (): Promise<void> => {
  const flags = ["--expose-gc", "--max-semi-space-size=256"]
  const children = await Promise.all(
    (["ours", "raw"] as const).map((kind) => spawnServer("inmemory.ts", [kind], flags))
  )
  try {
    const n = count(2000, 500)
    const warm = count(20_000, 2000)
    note(`inmemory: heap bytes allocated per call over ${n} calls, after a ${warm}-call warm-up`)
    for (const child of children) await child.ask({ type: "par", n: warm, inFlight: 16 })
    for (const inFlight of [1, 64]) {
      const taken = await interleave(
        children.map((child) => async () =>
          (await child.ask<{ readonly value: number }>({ type: "alloc", n, inFlight })).value
        ),
        { samples: count(5, 2), warmup: 1 }
      )
      const [ours, raw] = taken.map(median) as [number, number]
      emit({
        bench: `tools_call.inmemory.heap_allocated.${inFlight === 1 ? "sequential" : "inflight64"}.vs_raw_sdk`,
        ours,
        peer: raw,
        unit: "heap bytes allocated per call (SDK client and server), median"
      })
    }
  } finally {
    await Promise.all(children.map((child) => child.stop()))
  }
}
