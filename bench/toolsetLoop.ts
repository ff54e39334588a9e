// The toolset's call (or the SDK `Client`'s callTool) on a raw SDK server in memory, in a bare loop,
// for counting instructions from outside: run it under `valgrind --tool=callgrind --instr-atstart=no`
// with `gate FILE`, and it says "warm" after its warm-up and waits for FILE to appear (turn the
// instrumentation on meanwhile, `callgrind_control -i on PID`, then create it), runs N calls, says
// "done" and waits for FILE to go before it exits. It waits by looking every few milliseconds, so
// the process keeps reaching the point where valgrind takes its commands. The main thread's count
// over N is one call's instructions (the few looks at FILE inside the window are noise); take N in
// the tens of thousands, so the window holds many of the collector's cycles and not one by chance.
//   node --expose-gc --conditions=effect-surface-source bench/toolsetLoop.ts [ours|sdk] WARM N [seq|par] [gate FILE]
// Nothing is timed or printed but the side and the counts, so the loop is all the difference holds.
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Effect } from "effect"
import { McpToolset } from "effect-surface/client"
import * as Fs from "node:fs"
import { concurrent, sequential } from "./lib/measure.ts"
import { hold, newClient } from "./lib/run.ts"
import { ARGS, makeRawServer, TOOL } from "./lib/workload.ts"

const [side = "ours", warmArg = "5000", nArg = "0", mode = "seq", gated, flag = ""] = process.argv.slice(2)
const warm = Number(warmArg)
const n = Number(nArg)
const held = await hold()
const open = () => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  void makeRawServer().connect(serverSide)
  return clientSide
}

const loop = async (times: number) => {
  if (times === 0) return
  if (side === "sdk") {
    const sdk = loopSdk ??= await connectSdk()
    const once = () => sdk.callTool({ name: TOOL, arguments: ARGS })
    await (mode === "par" ? concurrent(times, 64, once) : sequential(times, once))
    return
  }
  const call = (toolset ??= await held.run(McpToolset.make([{ name: "echo", type: "transport", open }])))
    .call(`echo__${TOOL}`, ARGS)
  await held.run(
    mode === "par"
      // 64 fibers, each calling in a plain loop (no schedule of its own in the count), as the SDK side's
      // 64 workers do.
      ? Effect.forEach(
        Array.from({ length: 64 }),
        () =>
          Effect.gen(function*() {
            for (let i = 0; i < times / 64; i++) yield* call
          }),
        { concurrency: "unbounded", discard: true }
      )
      : Effect.gen(function*() {
        for (let i = 0; i < times; i++) yield* call
      })
  )
}

const connectSdk = async () => {
  const client = newClient()
  await client.connect(open())
  return client
}
let loopSdk: Awaited<ReturnType<typeof connectSdk>> | undefined
let toolset: McpToolset.Toolset | undefined

// With `gate`: say `word`, then wait until the flag file exists (or, with `gone`, no longer does).
const gate = async (word: string, gone = false) => {
  if (gated !== "gate") return
  process.stdout.write(`${word}\n`)
  while (Fs.existsSync(flag) === gone) await new Promise((resolve) => setTimeout(resolve, 5))
}

await loop(warm) // Under `--expose-gc`, every window starts from a collected heap, so no earlier garbage is counted in it.
;(globalThis as { gc?: () => void }).gc?.()
await gate("warm")
await loop(n)
await gate("done", true)
process.stdout.write(`${side} ${mode}: ${warm} warm-up calls, then ${n}\n`)
await held.close()
process.exit(0)
