// Faults on the far side of a bridge: the MCP face serves a surface whose implementation runs in a
// daemon child process, reached over a unix socket (the wire face), and the daemon is SIGKILLed —
// mid-call, between calls, and over and over — while callers keep a steady load on the face.
//
// What is proved, by counting from outside both processes:
// - nothing is replayed: the daemons' shared journal (one `invoked <ns.verb>` line, written before
//   the procedure runs, per invocation across every generation) never counts more invocations than
//   calls that succeeded plus calls reported as cut in flight ("outcome is unknown");
// - nothing leaks: the face's live connections (counted by the dial's own scope), this process's
//   sockets (/proc/self/fd) and child processes return to what they were before;
// - every failure tells the agent what happened and what a retry does.
import { assert, describe, it } from "@effect/vitest"
import { type CallToolResult, McpError } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Exit, Fiber, Ref, Result, Scope } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Client, Expose } from "effect-surface"
import * as Face from "../../src/mcp/face/Face.ts"
import * as Wire from "../../src/wire/Wire.ts"
import * as WireDaemon from "../surface/wire-daemon.ts"
import { type Connected, connectTo, textOf } from "../mcp/harness.ts"
import { childProcesses, eventually, socketFds, socketHandles } from "./resources.ts"
import { sized } from "./sizes.ts"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "es-rel-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

/** A daemon in a scope of its own, so it can be killed and another started on the same path. */
const daemonAt = (path: string, journal: string) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const daemon = yield* WireDaemon.spawn(path, { journal }).pipe(Scope.provide(scope))
    const stop = daemon.kill.pipe(Effect.andThen(daemon.exited), Effect.andThen(Scope.close(scope, Exit.void)))
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    return { daemon, stop }
  })

/**
 * The face bridging the daemon (as Connections.test.ts does, the transport's close announced), in a
 * scope the test closes itself; every connection the face dials is counted while its scope is open.
 */
const countedBridge = (path: string) =>
  Effect.gen(function*() {
    const live = yield* Ref.make(0)
    const peak = yield* Ref.make(0)
    const dials = yield* Ref.make(0)
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    const face = yield* Face.make({
      core: { surface: WireDaemon.Daemon, expose: Expose.all(WireDaemon.Daemon) },
      client: Effect.gen(function*() {
        const owned = yield* Wire.dial(WireDaemon.Daemon, { path })
        // In the dial's scope, which the pool keeps exactly as long as the connection.
        yield* Effect.acquireRelease(
          Ref.updateAndGet(live, (n) => n + 1).pipe(
            Effect.tap((n) => Ref.update(peak, (p) => Math.max(p, n))),
            Effect.andThen(Ref.update(dials, (n) => n + 1))
          ),
          () => Ref.update(live, (n) => n - 1)
        )
        return {
          client: { core: Client.erase(owned.client), clients: {} },
          dispose: owned.dispose,
          ...(owned.onClose === undefined ? {} : { onClose: owned.onClose })
        }
      })
    }).pipe(Scope.provide(scope))
    const c = yield* connectTo(face).pipe(Scope.provide(scope))
    return { c, live, peak, dials, close: Scope.close(scope, Exit.void) }
  })

type Outcome =
  | { readonly _tag: "Ok"; readonly tool: string }
  | { readonly _tag: "Refused"; readonly tool: string; readonly text: string }
  | { readonly _tag: "RpcError"; readonly tool: string; readonly message: string }

const callOnce = (c: Connected, tool: string, args: Record<string, unknown>) =>
  Effect.tryPromise(() =>
    c.client.callTool({ name: tool, arguments: args }, undefined, { timeout: 20_000 }) as Promise<CallToolResult>
  ).pipe(
    Effect.result,
    Effect.map((r): Outcome => {
      if (Result.isFailure(r)) {
        const error: unknown = r.failure.cause
        return { _tag: "RpcError", tool, message: error instanceof McpError ? error.message : String(error) }
      }
      return r.success.isError === true ? { _tag: "Refused", tool, text: textOf(r.success) } : { _tag: "Ok", tool }
    })
  )

const journalCount = (journal: string, name: string) =>
  (Fs.existsSync(journal) ? Fs.readFileSync(journal, "utf8") : "").split("\n").filter((l) => l === `invoked ${name}`)
    .length

/** A failure cut in flight: the call reached the daemon, and whether it acted is not known. */
const isUnknownOutcome = (text: string) => text.includes("outcome is unknown")
/** The brief's rule for every failure: it says the server is still running and what a retry does. */
const saysWhatRetryDoes = (text: string) =>
  text.includes("still running") && (text.includes("re-dials") || text.includes("safe to retry"))
/** A dial that found no daemon listening (the daemon was down): nothing was sent. */
const isDialFailed = (text: string) => text.includes("could not open a connection") && text.includes("Nothing was sent")

const restarts = sized(5, 20)
const callers = sized(3, 6)

describe("a bridged daemon killed under steady load", () => {
  it.live(
    `across ${restarts} kills and restarts (mid-call and between calls) no call is replayed, no connection, socket or child process leaks, and every failure says what happened and what a retry does`,
    () =>
      Effect.gen(function*() {
        const socketsBefore = socketFds()
        const handlesBefore = socketHandles()
        const childrenBefore = childProcesses()
        const dir = yield* tempDir
        const path = Path.join(dir, "s.sock")
        const journal = Path.join(dir, "journal")

        const measured = yield* Effect.gen(function*() {
          let current = yield* daemonAt(path, journal)
          const pids = [current.daemon.pid]
          const bridge = yield* countedBridge(path)
          const outcomes: Array<Outcome> = []
          // Callers pause at the gate; `inFlight` says how many calls are out right now.
          const paused = yield* Ref.make(false)
          const stopped = yield* Ref.make(false)
          const inFlight = yield* Ref.make(0)
          const caller = (index: number) =>
            Effect.gen(function*() {
              for (let i = 0; i < 100_000 && !(yield* Ref.get(stopped)); i++) {
                if (yield* Ref.get(paused)) {
                  yield* Effect.sleep("5 millis")
                  continue
                }
                // Mostly slow calls, so a kill usually lands on one in flight; some instant ones.
                const [tool, args] = (i + index) % 4 === 3 ? ["daemon_pid", {}] as const
                  : ["daemon_slow", { ms: 15 + ((i * 7 + index) % 30) }] as const
                yield* Ref.update(inFlight, (n) => n + 1)
                outcomes.push(
                  yield* callOnce(bridge.c, tool, args).pipe(Effect.ensuring(Ref.update(inFlight, (n) => n - 1)))
                )
              }
            })
          const load = yield* Effect.forkChild(
            Effect.all(Array.from({ length: callers }, (_, i) => caller(i)), { concurrency: "unbounded" })
          )

          let midCall = 0
          let betweenCalls = 0
          for (let round = 1; round <= restarts; round++) {
            yield* Effect.sleep("150 millis")
            if (round % 2 === 1) {
              // Mid-call: kill the moment this daemon starts a slow call it has not answered.
              const seen = yield* current.daemon.invocations("daemon.slow")
              yield* eventually(current.daemon.invocations("daemon.slow"), (n) => n > seen, 500, "2 millis")
              yield* current.stop
              midCall++
            } else {
              // Between calls: nothing in flight when the daemon dies; callers resume after the restart.
              yield* Ref.set(paused, true)
              yield* eventually(Ref.get(inFlight), (n) => n === 0, 1_000, "2 millis")
              assert.strictEqual(yield* Ref.get(inFlight), 0)
              yield* current.stop
              betweenCalls++
            }
            // Down for a moment: calls made now find no daemon listening.
            yield* Effect.sleep("50 millis")
            current = yield* daemonAt(path, journal)
            pids.push(current.daemon.pid)
            yield* Ref.set(paused, false)
          }
          yield* Effect.sleep("200 millis")
          yield* Ref.set(stopped, true)
          yield* Fiber.join(load)

          // The face serves on, on the last daemon.
          const last = yield* Effect.promise(() =>
            bridge.c.client.callTool({ name: "daemon_pid", arguments: {} }) as Promise<CallToolResult>
          )
          assert.isUndefined(last.isError, textOf(last))
          assert.strictEqual(
            (last.structuredContent as { readonly value?: unknown } | undefined)?.value,
            current.daemon.pid
          )
          const liveAtEnd = yield* Ref.get(bridge.live)
          const peak = yield* Ref.get(bridge.peak)
          const dials = yield* Ref.get(bridge.dials)
          yield* bridge.close
          const liveAfterClose = yield* Ref.get(bridge.live)
          yield* current.stop
          return { outcomes, midCall, betweenCalls, pids, liveAtEnd, peak, dials, liveAfterClose }
        }).pipe(Effect.scoped)

        const { outcomes } = measured
        const count = (tool: string, p: (o: Outcome) => boolean) =>
          outcomes.filter((o) => o.tool === tool && p(o)).length
        assert.strictEqual(measured.midCall + measured.betweenCalls, restarts)
        assert.isAtLeast(outcomes.length, restarts * 10, "the load was not steady")

        // No protocol errors: every call got a tool result.
        assert.deepStrictEqual(outcomes.filter((o) => o._tag === "RpcError"), [])

        // Never replayed: each procedure ran at least once per success, and at most once more per call
        // cut in flight; a call refused before it was sent never ran.
        for (const [tool, procedure] of [["daemon_slow", "daemon.slow"], ["daemon_pid", "daemon.pid"]] as const) {
          const ok = count(tool, (o) => o._tag === "Ok")
          const unknown = count(tool, (o) => o._tag === "Refused" && isUnknownOutcome(o.text))
          const issued = count(tool, () => true)
          // The final daemon_pid call above, outside the recorded load.
          const invoked = journalCount(journal, procedure) - (procedure === "daemon.pid" ? 1 : 0)
          assert.isAtLeast(invoked, ok, `${procedure}: ${ok} calls succeeded but only ${invoked} ran`)
          assert.isAtMost(
            invoked,
            ok + unknown,
            `${procedure} ran ${invoked} times for ${ok} successes and ${unknown} cut in flight: a call was replayed`
          )
          assert.isAtMost(invoked, issued)
        }
        // The mid-call kills really did cut calls in flight.
        assert.isAtLeast(outcomes.filter((o) => o._tag === "Refused" && isUnknownOutcome(o.text)).length, 1)

        // Every failure is one of two kinds, each saying what happened and what a retry does.
        for (const o of outcomes) {
          if (o._tag !== "Refused") continue
          assert.isTrue(
            saysWhatRetryDoes(o.text) || isDialFailed(o.text),
            `a failure that does not say what happened and what a retry does: ${o.text}`
          )
        }

        // Connections: one at a time (a replacement may be dialled while the dead one is disposed),
        // one live at the end, none once the face has closed.
        assert.isAtMost(measured.peak, 2)
        assert.strictEqual(measured.liveAtEnd, 1)
        assert.strictEqual(measured.liveAfterClose, 0)
        assert.isAtLeast(measured.dials, restarts + 1)

        // This process holds no more sockets or children than before (bounded wait for closes to land).
        if (socketsBefore !== undefined) {
          assert.strictEqual(
            yield* eventually(Effect.sync(socketFds), (n) => n === socketsBefore, 300),
            socketsBefore,
            "socket descriptors leaked"
          )
        }
        assert.strictEqual(
          yield* eventually(Effect.sync(socketHandles), (n) => n <= handlesBefore, 300),
          handlesBefore,
          "socket handles leaked"
        )
        assert.strictEqual(
          yield* eventually(Effect.sync(childProcesses), (n) => n === childrenBefore, 300),
          childrenBefore,
          "child processes leaked"
        )
        for (const pid of measured.pids) assert.isFalse(alive(pid), `daemon ${pid} outlived the test`)
      }).pipe(Effect.provide(WireDaemon.layer)),
    { timeout: sized(45_000, 180_000) }
  )

  // DEFECT (see the report): a call made while the daemon is down fails with DialFailed, whose text
  // says the dial failed and that "the next request dials again", but — unlike ConnectionLost — not
  // that the MCP server is still running, so an agent may take the whole server for dead.
  it.live(
    "a call made while the daemon is down says the MCP server is still running and what a retry will do",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const path = Path.join(dir, "s.sock")
        const first = yield* daemonAt(path, Path.join(dir, "journal"))
        const bridge = yield* countedBridge(path)
        const before = yield* callOnce(bridge.c, "daemon_pid", {})
        assert.strictEqual(before._tag, "Ok")
        yield* first.stop
        const down = yield* callOnce(bridge.c, "daemon_pid", {})
        assert.strictEqual(down._tag, "Refused")
        if (down._tag === "Refused") assert.isTrue(saysWhatRetryDoes(down.text), down.text)
      }).pipe(Effect.provide(WireDaemon.layer)),
    { timeout: 30_000 }
  )
})

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
