// The example served over stdio as a real child process (`examples/main.ts --stdio`, run by this very
// Node with the source condition), driven by the SDK client over a transport that can also write raw
// bytes to the child's stdin — garbage between well-formed frames.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import type { Scope } from "effect"
import * as ChildProcess from "node:child_process"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../..", import.meta.url))

/** A client transport over a child's stdio that counts what on its stdout was not a JSON-RPC message. */
class ChildTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  /** Lines on the child's stdout that were not JSON-RPC messages. */
  strayLines = 0
  private readonly buffer = new ReadBuffer({ maxBufferSize: 64 * 1024 * 1024 })

  readonly child: ChildProcess.ChildProcessWithoutNullStreams

  constructor(child: ChildProcess.ChildProcessWithoutNullStreams) {
    this.child = child
  }

  async start(): Promise<void> {
    this.child.stdout.on("data", (chunk: Buffer) => {
      this.buffer.append(chunk)
      for (let i = 0; i < 100_000; i++) {
        let message: JSONRPCMessage | null
        try {
          message = this.buffer.readMessage()
        } catch {
          // The line was consumed: count it and read on.
          this.strayLines++
          continue
        }
        if (message === null) break
        this.onmessage?.(message)
      }
    })
    this.child.once("exit", () => this.onclose?.())
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(serializeMessage(message))
  }

  /** Write bytes to the child's stdin as they are, resolving once written (or once the pipe broke). */
  write(bytes: string | Uint8Array): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.stdin.destroyed || !this.child.stdin.writable) return resolve()
      this.child.stdin.write(bytes, () => resolve())
    })
  }

  async close(): Promise<void> {
    this.child.stdin.end()
  }
}

export interface StdioServer {
  readonly client: Client
  readonly transport: ChildTransport
  readonly child: ChildProcess.ChildProcessWithoutNullStreams
  /** Everything the child wrote to stderr so far. */
  readonly stderr: () => string
  /** The child's exit, once it has exited: code and signal. */
  readonly exit: () => { readonly code: number | null; readonly signal: NodeJS.Signals | null } | undefined
}

/** Start the example over stdio and connect the SDK client; the child is stopped (then killed) with the scope. */
export const startStdio: Effect.Effect<StdioServer, never, Scope.Scope> = Effect.gen(function*() {
  const child = yield* Effect.acquireRelease(
    Effect.sync(() =>
      ChildProcess.spawn(process.execPath, ["--conditions=effect-surface-source", "examples/main.ts", "--stdio"], {
        cwd: root,
        stdio: ["pipe", "pipe", "pipe"],
        env: { ...process.env, NO_COLOR: "1" }
      })
    ),
    (child) =>
      Effect.callback<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        const killer = setTimeout(() => child.kill("SIGKILL"), 3_000)
        child.once("exit", () => {
          clearTimeout(killer)
          resume(Effect.void)
        })
        child.stdin.end()
      })
  )
  // A child that exits while bytes are still being written breaks the pipe: that is an outcome the
  // tests assert on, not a crash of the test process.
  child.stdin.on("error", () => {})
  let stderr = ""
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  let exit: { readonly code: number | null; readonly signal: NodeJS.Signals | null } | undefined
  child.once("exit", (code, signal) => {
    exit = { code, signal }
  })
  const transport = new ChildTransport(child)
  const client = new Client({ name: "reliability-stdio", version: "1.0.0" })
  yield* Effect.promise(() => client.connect(transport))
  return { client, transport, child, stderr: () => stderr, exit: () => exit }
})
