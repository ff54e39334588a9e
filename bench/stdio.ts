// `tools/call` over stdio between two processes: each server is a child (bench/servers/stdio.ts,
// this Node, `--conditions=effect-surface-source`), the client the SDK's `StdioClientTransport`
// here. All three speak 2025-11-25 newline-delimited JSON-RPC with the same client.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { callFigures, local } from "./lib/calls.ts"
import { connectTransport } from "./lib/run.ts"

const here = path.dirname(fileURLToPath(import.meta.url))
const script = path.join(here, "servers", "stdio.ts")

const spawnServer = (kind: "ours" | "raw" | "effect-ai") =>
  connectTransport(
    new StdioClientTransport({
      command: process.execPath,
      args: ["--conditions=effect-surface-source", script, kind],
      stderr: "inherit"
    })
  )

export const run = async (): Promise<void> => {
  const clients: Array<Client> = []
  try {
    for (const kind of ["ours", "raw", "effect-ai"] as const) clients.push(await spawnServer(kind))
    const [ours, raw, ai] = clients as [Client, Client, Client]
    await callFigures("stdio", { ours: local(ours), raw: local(raw), ai: local(ai) }, "")
  } finally {
    await Promise.all(clients.map((client) => client.close()))
  }
}
