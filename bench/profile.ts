// One hot loop, alone, for `node --cpu-prof`: not part of `npm run bench`.
//   node --conditions=effect-surface-source --cpu-prof bench/profile.ts call [seq|par] [ours|raw]
//   node --conditions=effect-surface-source --cpu-prof bench/profile.ts reroster 10000
//   node --conditions=effect-surface-source --cpu-prof bench/profile.ts toolset [ours|sdk]
// (The HTTP servers are profiled by passing flags to the children: BENCH_SERVER_NODE_FLAGS.)
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Effect } from "effect"
import { McpToolset } from "effect-surface/client"
import { McpFace } from "effect-surface/mcp"
import { concurrent, sequential } from "./lib/measure.ts"
import { connectOurs, connectRaw, hold, newClient } from "./lib/run.ts"
import { ARGS, makeOurs, makeRawServer, TOOL } from "./lib/workload.ts"
import { siblings } from "./scale.ts"

const [what = "call", a, b] = process.argv.slice(2)
const held = await hold()

if (what === "call") {
  const mode = a ?? "seq"
  const client = b === "raw"
    ? await connectRaw(makeRawServer())
    : await connectOurs(held, await held.run(Effect.flatMap(makeOurs, ({ options }) => McpFace.make(options))))
  const op = () => client.callTool({ name: TOOL, arguments: ARGS })
  for (let i = 0; i < 5; i++) {
    const us = mode === "par" ? await concurrent(40_000, 64, op) : await sequential(20_000, op)
    process.stderr.write(`${mode} ${b ?? "ours"}: ${us.toFixed(2)} µs/call\n`)
  }
  await client.close()
} else if (what === "reroster") {
  const n = Number(a ?? "10000")
  const face = await held.run(McpFace.make({ surfaces: siblings(n, false), client: Effect.succeed({ clients: {} }) }))
  await connectOurs(held, face)
  for (let i = 0; i < 20; i++) {
    const start = performance.now()
    await held.run(face.reroster(siblings(n, i % 2 === 0)))
    process.stderr.write(`reroster ${n}: ${(performance.now() - start).toFixed(1)} ms\n`)
  }
} else if (what === "toolset") {
  // toolset.call (or, with `sdk`, the SDK Client's callTool) on a raw SDK server in memory, in sequence
  const open = () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    void makeRawServer().connect(serverSide)
    return clientSide
  }
  const sdk = newClient()
  await sdk.connect(open())
  const toolset = await held.run(McpToolset.make([{ name: "echo", type: "transport", open }]))
  const call = toolset.call(`echo__${TOOL}`, ARGS)
  const n = 20_000
  const ours = () =>
    held.run(Effect.gen(function*() {
      const start = performance.now()
      for (let i = 0; i < n; i++) yield* call
      return ((performance.now() - start) * 1000) / n
    }))
  const run = a === "sdk" ? () => sequential(n, () => sdk.callTool({ name: TOOL, arguments: ARGS })) : ours
  for (let i = 0; i < 5; i++) process.stderr.write(`toolset ${a ?? "ours"}: ${(await run()).toFixed(2)} µs/call\n`)
  await sdk.close()
}
await held.close()
