/**
 * A stdio server's process, ours from spawn to reap: the transport spoken over its pipes, what it
 * said on stderr last, how it ended, and the kill that follows every connection over it.
 *
 * The SDK's stdio transport keeps its process to itself: its exit code is dropped, and its close
 * waits out two grace periods on the wall clock before the caller hears back — so a server that
 * hung while connecting held the whole toolset up for those seconds, and one that died at start
 * could not say why. Here the process is spawned the same way (the same inherited environment, the
 * entry's on top, no shell), and closing the transport only closes the channel: the process is
 * handed to a `Reaper`, which ends it on the Effect Clock — stdin closed, then `SIGTERM`, then
 * `SIGKILL` a grace period apart — while the caller moves on. A reaper lives as long as its scope,
 * and its scope does not close before every process handed to it has exited.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import * as ChildProcess from "node:child_process"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import type * as Scope from "effect/Scope"
import type * as Diagnostic from "../Diagnostic.ts"

/** How a process ended: its exit code, or the signal that ended it. */
export interface Ended {
  readonly code: number | null
  readonly signal: string | null
}

/**
 * What to start: the command and working directory after containment, the entry's arguments, the
 * whole environment, and how messages are framed on the pipes (the SDK's, handed in by
 * `Transports.ts`, the one module here that takes the SDK's code).
 */
export interface Spec {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  readonly cwd: string | undefined
  readonly framing: Framing
}

/** Newline-delimited JSON-RPC: a reader per process, and the writer. */
export interface Framing {
  readonly reader: () => {
    readonly append: (chunk: Buffer) => void
    readonly readMessage: () => JSONRPCMessage | null
    readonly clear: () => void
  }
  readonly write: (message: JSONRPCMessage) => string
}

// How many of a child's last stderr lines are kept to say why it ended, and how long each may be.
const TAIL_LINES = 10
const MAX_LINE = 8192

/** How long a child is given after stdin closes, and after `SIGTERM`, before the next step. */
export const GRACE: Duration.Duration = Duration.seconds(2)

interface Hooks {
  readonly stderr: (chunk: Buffer | string) => void
  readonly ended: (ended: Ended) => void
}

/**
 * The MCP transport over a child's stdin and stdout. `close` closes the channel only (it announces
 * the close and answers at once); ending the process is its `Reaper`'s.
 */
export class StdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  process: ChildProcess.ChildProcess | undefined
  private readonly buffer: ReturnType<Framing["reader"]>
  private closed = false

  private readonly spec: Spec
  private readonly hooks: Hooks

  constructor(spec: Spec, hooks: Hooks) {
    this.spec = spec
    this.hooks = hooks
    this.buffer = spec.framing.reader()
  }

  start(): Promise<void> {
    if (this.process !== undefined) return Promise.reject(new Error("this stdio transport has already started"))
    return new Promise((resolve, reject) => {
      const child = ChildProcess.spawn(this.spec.command, [...this.spec.args], {
        env: { ...this.spec.env },
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
        windowsHide: process.platform === "win32",
        ...(this.spec.cwd === undefined ? {} : { cwd: this.spec.cwd })
      })
      this.process = child
      child.on("error", (error) => {
        reject(error)
        this.onerror?.(error)
      })
      child.on("spawn", () => resolve())
      // After the exit and every pipe's end: the stderr tail is complete when it is read.
      child.on("close", (code, signal) => {
        this.hooks.ended({ code, signal })
        this.announce()
      })
      child.stdin?.on("error", (error) => this.onerror?.(error))
      child.stdout?.on("data", (chunk: Buffer) => {
        this.buffer.append(chunk)
        for (;;) {
          let message: JSONRPCMessage | null
          try {
            message = this.buffer.readMessage()
          } catch (error) {
            this.onerror?.(error as Error)
            continue
          }
          if (message === null) break
          this.onmessage?.(message)
        }
      })
      child.stdout?.on("error", (error) => this.onerror?.(error))
      child.stderr?.on("data", this.hooks.stderr)
    })
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.process?.stdin
      if (this.closed || stdin === undefined || stdin === null || !stdin.writable)
        return reject(new Error("the server's process is not running"))
      if (stdin.write(this.spec.framing.write(message))) resolve()
      else stdin.once("drain", resolve)
    })
  }

  close(): Promise<void> {
    this.announce()
    return Promise.resolve()
  }

  private announce() {
    if (this.closed) return
    this.closed = true
    this.buffer.clear()
    this.onclose?.()
  }
}

/** Ends the processes handed to it, each within three grace periods, before its scope closes. */
export interface Reaper {
  readonly reap: (child: Child) => Effect.Effect<void>
}

/** One started (or startable) child: its transport, its stderr tail, and how it ended. */
export interface Child {
  readonly transport: StdioTransport
  readonly ended: Deferred.Deferred<Ended>
  /** How it ended, with its last stderr lines, once it has. */
  readonly exited: () => Diagnostic.Exited | undefined
}

// Whether the child ended within `within`.
const endsWithin = (child: Child, within: Duration.Duration) =>
  Effect.map(Effect.timeoutOption(Deferred.await(child.ended), within), (ended) => ended._tag === "Some")

const signal = (child: Child, name: NodeJS.Signals) =>
  Effect.sync(() => {
    try {
      child.transport.process?.kill(name)
    } catch {
      // gone meanwhile
    }
  })

// The stdio shutdown the MCP spec describes: stdin closed, then SIGTERM, then SIGKILL.
const end = (child: Child): Effect.Effect<void> =>
  Effect.gen(function*() {
    const process = child.transport.process
    if (process === undefined || process.exitCode !== null || process.signalCode !== null) return
    if (yield* Deferred.isDone(child.ended)) return
    yield* Effect.sync(() => process.stdin?.end())
    if (yield* endsWithin(child, GRACE)) return
    yield* signal(child, "SIGTERM")
    if (yield* endsWithin(child, GRACE)) return
    yield* signal(child, "SIGKILL")
    yield* Effect.ignore(endsWithin(child, GRACE))
  })

/**
 * A reaper for the current scope: each child handed to it is ended in the background, and the
 * scope's close waits until every one has.
 */
export const reaper: Effect.Effect<Reaper, never, Scope.Scope> = Effect.gen(function*() {
  const ending = yield* FiberSet.make<void>()
  // Added after the set, so it runs before the set interrupts what is left: nothing is.
  yield* Effect.addFinalizer(() => FiberSet.awaitEmpty(ending))
  return { reap: (child) => Effect.asVoid(FiberSet.run(ending, end(child))) }
})

/** The sentence saying how a child ended and what it said last. */
export const sentence = (exited: Diagnostic.Exited): string => {
  const how = exited.code !== null ? `exited with code ${exited.code}` : `was ended by ${exited.signal ?? "a signal"}`
  return exited.stderr.length === 0 ? `its process ${how}, saying nothing on stderr`
    : `its process ${how}; its last stderr lines: ${exited.stderr.join(" / ")}`
}

/**
 * A child for `spec`, not yet started (the connection starts it), handed to `reaper` when the
 * current scope closes. Each stderr line also goes to `line`.
 */
export const make = (
  spec: Spec,
  reaper: Reaper,
  line: (text: string) => void
): Effect.Effect<Child, never, Scope.Scope> =>
  Effect.gen(function*() {
    const ended = yield* Deferred.make<Ended>()
    const kept: Array<string> = []
    let how: Ended | undefined
    let pending = ""
    const onStderr = (chunk: Buffer | string) => {
      const parts = (pending + chunk.toString()).split("\n")
      pending = (parts.pop() ?? "").slice(0, MAX_LINE)
      for (const part of parts) {
        const text = part.trimEnd().slice(0, MAX_LINE)
        if (text === "") continue
        kept.push(text)
        if (kept.length > TAIL_LINES) kept.shift()
        line(text)
      }
    }
    const transport = new StdioTransport(spec, {
      stderr: onStderr,
      ended: (ending) => {
        if (pending.trim() !== "") onStderr("\n")
        how = ending
        Deferred.doneUnsafe(ended, Exit.succeed(ending))
      }
    })
    const child: Child = {
      transport,
      ended,
      // A command that could not be spawned never ran: its spawn error says why, not an exit code.
      exited: () =>
        how === undefined || transport.process?.pid === undefined ? undefined
          : { code: how.code, signal: how.signal, stderr: [...kept] }
    }
    yield* Effect.addFinalizer(() => reaper.reap(child))
    return child
  })
