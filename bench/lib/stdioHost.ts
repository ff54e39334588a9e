// One stdio server launched as a host launches it (bench/servers/host.ts, or a bundle or snapshot of
// it) and taken by the SDK's `Client` to its first answered `tools/call`: initialize, `tools/list`,
// then the call. Its time, its CPU (main thread and helpers apart) and its resident memory by then
// are read from outside, through its pid.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { ADD_ANSWER, ADD_ARGS, ADD_TOOL } from "./adder.ts"
import { builtPackage, rssKiBOf, type ThreadCpu, threadCpuOf, totalCpu, unreadCpu } from "./built.ts"
import { serverNodeFlags } from "./child.ts"
import { now } from "./measure.ts"

const here = path.dirname(fileURLToPath(import.meta.url))
const script = path.join(here, "..", "servers", "host.ts")

export const kinds = ["ours", "raw", "effect-ai"] as const
export const bounds = ["effect-floor", "ours-mcp-barrel", "ours-deep-imports"] as const
export type Kind = (typeof kinds)[number] | (typeof bounds)[number]

/** How a server is launched: its kind, and the launch options taken. */
export interface Launch {
  readonly kind: Kind
  /** A compile-cache directory for `NODE_COMPILE_CACHE`. */
  readonly cache?: string
  /** Run this bundled file instead of the server's modules. */
  readonly bundle?: string
  /** Start from this V8 startup snapshot (node arguments) instead. */
  readonly snapshot?: ReadonlyArray<string>
}

export interface Started {
  readonly client: Client
  /** The server process's id (its main thread's too); undefined if the spawn gave none. */
  readonly pid: number | undefined
  /** Milliseconds from before the spawn to the first answered `tools/call`. */
  readonly firstMs: number
  /** The server's CPU milliseconds by then (NaN where they cannot be read). */
  readonly firstCpuMs: number
  /** The same, main thread and helper threads apart. */
  readonly firstCpu: ThreadCpu
  /** The server's resident memory right after its first answer, KiB (NaN where it cannot be read). */
  readonly rssKiB: number
  /** The server's CPU milliseconds so far. */
  readonly cpuMs: () => Promise<number>
  /** The same, main thread and helper threads apart. */
  readonly threadCpu: () => Promise<ThreadCpu>
  readonly call: () => Promise<unknown>
}

/** Spawn one server and take it as far as a host's first answered call. */
export const start = async (launch: Launch): Promise<Started> => {
  const conditions = await builtPackage()
  const t0 = now()
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: launch.snapshot !== undefined
      ? [...serverNodeFlags, ...launch.snapshot]
      : launch.bundle === undefined
      ? [...serverNodeFlags, ...conditions, script, launch.kind]
      : [...serverNodeFlags, launch.bundle],
    ...(launch.cache === undefined ? {} : { env: { NODE_COMPILE_CACHE: launch.cache } }),
    stderr: "inherit"
  })
  const client = new Client({ name: "bench-host", version: "0.0.0" }, { capabilities: {} })
  await client.connect(transport)
  await client.listTools()
  const call = () => client.callTool({ name: ADD_TOOL, arguments: ADD_ARGS })
  const first = (await call()) as { readonly structuredContent?: unknown; readonly isError?: boolean }
  const firstMs = now() - t0
  const pid = transport.pid ?? undefined
  const threadCpu = async () => (await threadCpuOf(pid)) ?? unreadCpu
  const [firstCpu, rssKiB] = await Promise.all([threadCpu(), rssKiBOf(pid)])
  if (JSON.stringify(first.structuredContent) !== JSON.stringify(ADD_ANSWER) || first.isError === true) {
    await client.close()
    throw new Error(`${launch.kind} answered ${JSON.stringify(first)}`)
  }
  const cpuMs = async () => totalCpu(await threadCpu())
  return {
    client,
    pid,
    firstMs,
    firstCpuMs: totalCpu(firstCpu),
    firstCpu,
    rssKiB: rssKiB ?? Number.NaN,
    cpuMs,
    threadCpu,
    call
  }
}
