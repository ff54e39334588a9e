// Connection stores and rebuild from storage, against a cold connect in this same run:
//   - time to a usable tool map for the three reference servers over stdio: opening a SQLite store
//     and rebuilding from it (no tools/list, no dial waited on), against McpToolset.make connecting
//     and listing them (target: the rebuild at least 5× faster);
//   - the SQLite file's bytes per stored server, against the bytes of the rows themselves as JSON
//     (what the enumerated fields cost, and what the file adds around them).
import { Effect } from "effect"
import { McpStoreSqlite, McpToolset } from "effect-surface/client"
import type { McpConfig } from "effect-surface/client"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as path from "node:path"
import { count, emit, interleave, median, note, now } from "./lib/measure.ts"
import { hold } from "./lib/run.ts"

const require = createRequire(import.meta.url)

const reference = (dir: string): ReadonlyArray<McpConfig.Stdio> => {
  const entry = (name: string) => require.resolve(`@modelcontextprotocol/${name}/dist/index.js`)
  return [
    { name: "everything", type: "stdio", command: process.execPath, args: [entry("server-everything"), "stdio"] },
    {
      name: "memory",
      type: "stdio",
      command: process.execPath,
      args: [entry("server-memory")],
      env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") }
    },
    { name: "files", type: "stdio", command: process.execPath, args: [entry("server-filesystem"), dir] }
  ]
}

const MIN_TOOLS = 30

// From nothing to every tool of the three servers in hand; waiting for the reconcile and closing are not timed.
const rebuildFigure = async (dir: string, file: string, servers: ReadonlyArray<McpConfig.Stdio>) => {
  const fromStorage = async () => {
    const held = await hold()
    try {
      const start = now()
      const toolset = await held.run(
        Effect.flatMap(McpStoreSqlite.make(file), (storage) => McpToolset.rebuild(servers, { storage }))
      )
      const size = (await held.run(toolset.tools)).size
      const took = now() - start
      if (size < MIN_TOOLS) throw new Error(`the rebuild projected ${size} tools`)
      await held.run(toolset.reconciled)
      return took
    } finally {
      await held.close()
    }
  }
  const cold = async () => {
    const held = await hold()
    try {
      const start = now()
      const toolset = await held.run(McpToolset.make(servers))
      const size = (await held.run(toolset.tools)).size
      const took = now() - start
      if (size < MIN_TOOLS) throw new Error(`the cold connect listed ${size} tools`)
      return took
    } finally {
      await held.close()
    }
  }
  const samples = count(9, 2)
  note(`stores: ${samples} samples each of rebuilding three stdio servers from SQLite, and of connecting them cold`)
  const [oursMs, coldMs] = (await interleave([fromStorage, cold], { samples, warmup: 1 })).map(median) as [
    number,
    number
  ]
  emit({
    bench: "stores.rebuild.stdio_three_servers.vs_cold_connect",
    ours: oursMs,
    peer: coldMs,
    ratio: "peer/ours",
    unit: "ms to a usable tool map, median (target ≥ 5)"
  })
}

const bytesFigure = async (file: string) => {
  const rows = await Effect.runPromise(Effect.scoped(Effect.flatMap(McpStoreSqlite.make(file), (store) => store.list)))
  const fileBytes = Fs.statSync(file).size
  const rowBytes = rows.reduce((n, row) => n + Buffer.byteLength(JSON.stringify(row)), 0)
  note(`stores: ${rows.length} rows, ${fileBytes} bytes on disk, ${rowBytes} bytes of row JSON`)
  emit({
    bench: "stores.sqlite.bytes_per_server.vs_row_json",
    ours: fileBytes / rows.length,
    peer: rowBytes / rows.length,
    unit: "bytes per stored server (file size over rows)"
  })
}

export const run = async (): Promise<void> => {
  const dir = Fs.mkdtempSync(path.join(Os.tmpdir(), "bench-stores-"))
  const file = path.join(dir, "toolset.db")
  const servers = reference(dir)
  try {
    const held = await hold()
    try {
      await held.run(Effect.flatMap(McpStoreSqlite.make(file), (storage) => McpToolset.make(servers, { storage })))
    } finally {
      await held.close()
    }
    await rebuildFigure(dir, file, servers)
    await bytesFigure(file)
  } finally {
    Fs.rmSync(dir, { recursive: true, force: true })
  }
}
