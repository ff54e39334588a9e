// The client toolset against the SDK `Client` doing the same thing by hand, in this same run:
//   - `toolset.call` (the Effect API, and the Promise API's `execute`) against `client.callTool` on
//     the same raw SDK server, in memory (the SDK's InMemoryTransport pair) and over stdio (a child
//     running bench/servers/echo.ts), sequential and with 64 calls in flight;
//   - time to a usable tool map for the three reference servers over stdio, against connecting
//     three SDK clients and listing their tools by hand (in parallel, as the toolset does).
// Both sides of every figure run in this process, interleaved.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { Effect } from "effect"
import { mcpTools, McpToolset } from "effect-surface/client"
import type { McpConfig } from "effect-surface/client"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { concurrent, count, emit, interleave, median, note, now, sequential } from "./lib/measure.ts"
import { hold, newClient } from "./lib/run.ts"
import { ARGS, makeRawServer, TOOL } from "./lib/workload.ts"

const here = path.dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)
const PROJECTED = `echo__${TOOL}`

interface Side {
  readonly check: () => Promise<unknown>
  readonly seq: (n: number) => Promise<number>
  readonly par: (n: number, inFlight: number) => Promise<number>
}

const sdkSide = (client: Client): Side => {
  const call = () => client.callTool({ name: TOOL, arguments: ARGS })
  return { check: call, seq: (n) => sequential(n, call), par: (n, k) => concurrent(n, k, call) }
}

const inMemoryServer = (): Transport => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  void makeRawServer().connect(serverSide)
  return clientSide
}

const stdioServer = (): McpConfig.Stdio => ({
  name: "echo",
  type: "stdio",
  command: process.execPath,
  args: ["--conditions=effect-surface-source", path.join(here, "servers", "echo.ts")]
})

const sameAnswer = async (sides: Record<string, Side>) => {
  for (const [name, side] of Object.entries(sides)) {
    const result = (await side.check()) as { readonly structuredContent?: unknown }
    if (JSON.stringify(result.structuredContent) !== JSON.stringify(ARGS)) throw new Error(`${name} answered ${JSON.stringify(result)}`)
  }
}

const callFigures = async (transport: "inmemory" | "stdio", server: McpConfig.Server, direct: Client) => {
  const held = await hold()
  const promiseApi = await mcpTools([server])
  try {
    const toolset = await held.run(McpToolset.make([server]))
    const call = toolset.call(PROJECTED, ARGS)
    const effectSide: Side = {
      check: () => held.run(call),
      seq: (n) => held.run(Effect.gen(function*() {
        const start = now()
        for (let i = 0; i < n; i++) yield* call
        return ((now() - start) * 1000) / n
      })),
      par: (n, inFlight) => held.run(Effect.gen(function*() {
        const start = now()
        yield* Effect.forEach(Array.from({ length: n }), () => call, { concurrency: inFlight, discard: true })
        return ((now() - start) * 1000) / n
      }))
    }
    const execute = promiseApi.tools[PROJECTED]!.execute
    const promiseSide: Side = {
      check: () => execute(ARGS),
      seq: (n) => sequential(n, () => execute(ARGS)),
      par: (n, k) => concurrent(n, k, () => execute(ARGS))
    }
    const sdk = sdkSide(direct)
    await sameAnswer({ effect: effectSide, promise: promiseSide, sdk })
    const all = [effectSide, promiseSide, sdk]
    const warm = count(transport === "stdio" ? 5_000 : 10_000, 300)
    const seqCalls = count(transport === "stdio" ? 1_000 : 2_000, 100)
    const parCalls = count(transport === "stdio" ? 4_096 : 8_192, 512)
    const samples = count(11, 3)
    const warmup = count(2, 1)
    note(`toolset ${transport}: warm-up ${warm} calls each, then ${samples} samples × ${seqCalls} sequential calls`)
    for (const side of all) await side.par(warm, 16)
    const [seqEffect, seqPromise, seqSdk] = (await interleave(all.map((s) => () => s.seq(seqCalls)), { samples, warmup })).map(median) as [number, number, number]
    const unit = "µs per call, median"
    emit({ bench: `toolset.call.${transport}.sequential.vs_sdk_client`, ours: seqEffect, peer: seqSdk, unit })
    emit({ bench: `toolset.execute.${transport}.sequential.vs_sdk_client`, ours: seqPromise, peer: seqSdk, unit })
    note(`toolset ${transport}: ${samples} samples × ${parCalls} calls, 64 in flight`)
    const [parEffect, parPromise, parSdk] = (await interleave(all.map((s) => () => s.par(parCalls, 64)), { samples, warmup })).map(median) as [number, number, number]
    const parUnit = "µs per call amortized (64 in flight), median"
    emit({ bench: `toolset.call.${transport}.inflight64.vs_sdk_client`, ours: parEffect, peer: parSdk, unit: parUnit })
    emit({ bench: `toolset.execute.${transport}.inflight64.vs_sdk_client`, ours: parPromise, peer: parSdk, unit: parUnit })
  } finally {
    await promiseApi.close()
    await held.close()
  }
}

const reference = (dir: string): ReadonlyArray<McpConfig.Stdio> => {
  const entry = (name: string) => require.resolve(`@modelcontextprotocol/${name}/dist/index.js`)
  return [
    { name: "everything", type: "stdio", command: process.execPath, args: [entry("server-everything"), "stdio"] },
    { name: "memory", type: "stdio", command: process.execPath, args: [entry("server-memory")], env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") } },
    { name: "files", type: "stdio", command: process.execPath, args: [entry("server-filesystem"), dir] }
  ]
}

// Time to a map: from nothing to every tool of the three servers in hand; closing is not timed.
const readyFigure = async () => {
  const dir = Fs.mkdtempSync(path.join(Os.tmpdir(), "bench-toolset-"))
  const servers = reference(dir)
  try {
    const ours = async () => {
      const held = await hold()
      const start = now()
      const toolset = await held.run(McpToolset.make(servers))
      const size = (await held.run(toolset.tools)).size
      const took = now() - start
      await held.close()
      if (size < 30) throw new Error(`the toolset listed ${size} tools`)
      return took
    }
    const byHand = async () => {
      const start = now()
      const clients = await Promise.all(servers.map(async (server) => {
        const client = newClient()
        await client.connect(new StdioClientTransport({ command: server.command, args: [...(server.args ?? [])], env: { ...server.env }, stderr: "pipe" }))
        return { client, tools: (await client.listTools()).tools.length }
      }))
      const took = now() - start
      await Promise.all(clients.map(({ client }) => client.close()))
      if (clients.reduce((n, c) => n + c.tools, 0) < 30) throw new Error("the SDK clients listed too few tools")
      return took
    }
    const samples = count(9, 2)
    note(`toolset ready: ${samples} samples of connecting three stdio servers and listing their tools`)
    const [oursMs, byHandMs] = (await interleave([ours, byHand], { samples, warmup: 1 })).map(median) as [number, number]
    emit({ bench: "toolset.ready.stdio_three_servers.vs_sdk_by_hand", ours: oursMs, peer: byHandMs, unit: "ms to a usable tool map, median" })
  } finally {
    Fs.rmSync(dir, { recursive: true, force: true })
  }
}

export const run = async (): Promise<void> => {
  const memoryClient = newClient()
  await memoryClient.connect(inMemoryServer())
  try {
    await callFigures("inmemory", { name: "echo", type: "transport", open: inMemoryServer }, memoryClient)
  } finally {
    await memoryClient.close()
  }
  const stdio = stdioServer()
  const stdioClient = newClient()
  await stdioClient.connect(new StdioClientTransport({ command: stdio.command, args: [...(stdio.args ?? [])], stderr: "inherit" }))
  try {
    await callFigures("stdio", stdio, stdioClient)
  } finally {
    await stdioClient.close()
  }
  await readyFigure()
}
