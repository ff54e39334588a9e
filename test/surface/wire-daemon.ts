/**
 * A served surface in a child process: the far end of the wire tests and of the MCP face's restart
 * tests. A test can only trust "never replayed" if it can count what reached the daemon from outside
 * it — after the daemon is killed, and across a restart on the same path — so every procedure
 * invocation is reported as a line before the procedure runs.
 *
 * Run as a script: `node test/surface/wire-daemon.ts <socket path>` (or `WIRE_DAEMON_SOCKET=<path>`).
 * stdout, one line each:
 *   `ready <pid>`               once the socket listens
 *   `invoked <ns.verb>`         when a procedure starts, before its implementation runs
 *   `interrupted <ns.verb>`     when a procedure is interrupted (the client interrupted the call)
 * `WIRE_DAEMON_JOURNAL=<file>` appends the `invoked`/`interrupted` lines to a file as well, so counts
 * add up across daemon generations. The `calls` cell holds the count per procedure in this process.
 *
 * Imported as a module it only exports the spec and `spawn`, which runs it as a child process.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Data, Duration, Effect, Layer, Logger, Schema, Scope, Stream, SubscriptionRef } from "effect"
import { ChildProcess } from "effect/process"
import type { ChildProcessSpawner } from "effect/process/ChildProcessSpawner"
import * as Fs from "node:fs"
import { fileURLToPath } from "node:url"
import * as Expose from "../../src/surface/Expose.ts"
import * as Implementation from "../../src/surface/Implementation.ts"
import * as Surface from "../../src/surface/Surface.ts"
import * as Wire from "../../src/wire/Wire.ts"
import { makeTodos, Todos } from "./fixture.ts"

/** The fixture surface plus what a restart test needs: a slow call, a hanging call, an identity. */
export const Daemon = Surface.make({
  cells: { ...Todos.cells, calls: Surface.cell(Schema.Record(Schema.String, Schema.Int), {}) },
  collections: Todos.collections,
  streams: Todos.streams,
  events: Todos.events,
  procedures: {
    ...Todos.procedures,
    daemon: {
      slow: { input: Schema.Struct({ ms: Schema.Int }), output: Schema.Int, description: "Sleep, then answer the pid" },
      hang: { description: "Never answer until interrupted" },
      pid: { output: Schema.Int, mutates: false }
    }
  }
})

const report = (line: string): Effect.Effect<void> =>
  Effect.sync(() => {
    // Both writes are synchronous (stdout to a pipe or file is, on POSIX), so the line is out before
    // the procedure runs even if the process is killed the next instant; the journal goes first, so
    // a reader that saw the stdout line can kill the daemon and still find it in the journal.
    const journal = process.env["WIRE_DAEMON_JOURNAL"]
    if (journal !== undefined && !line.startsWith("ready")) Fs.appendFileSync(journal, `${line}\n`)
    process.stdout.write(`${line}\n`)
  })

const makeDaemon = Effect.gen(function*() {
  const fx = yield* makeTodos
  const calls = yield* SubscriptionRef.make<{ readonly [name: string]: number }>({})
  const counted = <I, A, E>(name: string, f: (input: I) => Effect.Effect<A, E>) => (input: I) =>
    SubscriptionRef.update(calls, (all) => ({ ...all, [name]: (all[name] ?? 0) + 1 })).pipe(
      Effect.andThen(report(`invoked ${name}`)),
      Effect.andThen(f(input).pipe(Effect.onInterrupt(() => report(`interrupted ${name}`))))
    )
  const todo = fx.implemented.implementation.procedures.todo
  return Implementation.make(Daemon, {
    cells: { filter: fx.cells.filter, calls },
    collections: { todos: fx.todos },
    streams: { log: fx.log.frames },
    events: { saved: Stream.fromPubSub(fx.saved) },
    procedures: {
      todo: {
        add: counted("todo.add", todo.add),
        complete: counted("todo.complete", todo.complete),
        count: counted("todo.count", todo.count),
        wait: counted("todo.wait", todo.wait)
      },
      daemon: {
        slow: counted("daemon.slow", ({ ms }) => Effect.as(Effect.sleep(Duration.millis(ms)), process.pid)),
        hang: counted("daemon.hang", () => Effect.never),
        pid: counted("daemon.pid", () => Effect.succeed(process.pid))
      }
    }
  })
})

const main = Effect.gen(function*() {
  const path = process.argv[2] ?? process.env["WIRE_DAEMON_SOCKET"]
  if (path === undefined) return yield* Effect.die("usage: wire-daemon.ts <socket path>")
  // The test's own daemon, on a socket only its owner can dial: everything crosses.
  yield* Wire.serve(yield* makeDaemon, { path, expose: Expose.all(Daemon) })
  yield* report(`ready ${process.pid}`)
  return yield* Effect.never
})

/** This script, for spawning it. */
export const entry = fileURLToPath(import.meta.url)

/**
 * The daemon did not come up: it exited or never printed its ready line.
 */
export class DaemonFailed extends Data.TaggedError("DaemonFailed")<{ readonly reason: string }> {}

/**
 * A running daemon child process.
 */
export interface DaemonProcess {
  readonly pid: number
  /** Every stdout line so far. */
  readonly lines: Effect.Effect<ReadonlyArray<string>>
  /** How many `invoked <name>` lines so far. */
  readonly invocations: (name: string) => Effect.Effect<number>
  /** Wait (up to `within`, default 10 seconds) until a line satisfies `p`. */
  readonly awaitLine: (p: (line: string) => boolean, within?: Duration.Input) => Effect.Effect<string, DaemonFailed>
  /** SIGKILL: no finalizer runs, the socket file is left behind, the connection just drops. */
  readonly kill: Effect.Effect<void>
  /** Resolves once the process has exited. */
  readonly exited: Effect.Effect<void>
}

/**
 * Run the daemon as a real child process serving on `path`, waiting for its ready line. The child
 * is killed when the scope closes, whatever state it is in.
 */
export const spawn = (
  path: string,
  options?: { readonly journal?: string | undefined }
): Effect.Effect<DaemonProcess, DaemonFailed, Scope.Scope | ChildProcessSpawner> =>
  Effect.gen(function*() {
    const env: Record<string, string> = options?.journal === undefined ? {} : { WIRE_DAEMON_JOURNAL: options.journal }
    const handle = yield* ChildProcess.make(process.execPath, [entry, path], {
      env,
      extendEnv: true,
      stdout: "pipe",
      stderr: "inherit",
      killSignal: "SIGKILL"
    }).pipe(Effect.mapError((e) => new DaemonFailed({ reason: e.message })))
    const lines = yield* SubscriptionRef.make<ReadonlyArray<string>>([])
    yield* handle.stdout.pipe(
      Stream.decodeText,
      Stream.splitLines,
      Stream.runForEach((line) => SubscriptionRef.update(lines, (all) => [...all, line])),
      Effect.ignore,
      Effect.forkScoped
    )
    const awaitLine = (p: (line: string) => boolean, within: Duration.Input = "10 seconds") =>
      SubscriptionRef.changes(lines).pipe(
        Stream.map((all) => all.find(p)),
        Stream.filter((line): line is string => line !== undefined),
        Stream.runHead,
        Effect.flatMap((line) =>
          line._tag === "Some" ? Effect.succeed(line.value)
            : Effect.fail(new DaemonFailed({ reason: "the line watch ended" }))
        ),
        Effect.timeoutOrElse({
          duration: within,
          orElse: () =>
            Effect.fail(
              new DaemonFailed({
                reason: `no matching line within ${Duration.format(Duration.fromInputUnsafe(within))}`
              })
            )
        })
      )
    // A daemon that dies while starting fails the spawn at once rather than at the timeout.
    const died = Effect.andThen(
      Effect.ignore(handle.exitCode),
      Effect.fail(new DaemonFailed({ reason: "the daemon exited before it was ready" }))
    )
    const ready = yield* Effect.raceFirst(awaitLine((line) => line.startsWith("ready ")), died)
    return {
      pid: Number(ready.slice("ready ".length)),
      lines: SubscriptionRef.get(lines),
      invocations: (name) =>
        Effect.map(SubscriptionRef.get(lines), (all) => all.filter((line) => line === `invoked ${name}`).length),
      awaitLine,
      kill: Effect.ignore(handle.kill({ killSignal: "SIGKILL" })),
      // a signalled exit has no exit code, which `exitCode` reports as a failure
      exited: Effect.ignore(handle.exitCode)
    } satisfies DaemonProcess
  })

/** The services `spawn` needs, and the layer that provides them. */
export type Services = ChildProcessSpawner
export const layer = NodeServices.layer

if (import.meta.main) {
  // stdout carries the line protocol above; logs go to stderr.
  main.pipe(Effect.scoped, Effect.provide(Layer.succeed(Logger.LogToStderr, true)), NodeRuntime.runMain)
}
