import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Scope } from "effect"
import * as Exit from "effect/Exit"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Client, Expose } from "effect-surface"
import * as Face from "../../src/mcp/face/Face.ts"
import * as Wire from "../../src/wire/Wire.ts"
import * as WireDaemon from "../surface/wire-daemon.ts"
import { call, connectTo, textOf } from "./harness.ts"

/** A short socket path in a fresh temp dir (unix socket paths are limited to ~107 bytes). */
const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "es-mcp-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

/**
 * The "bridge a live surface" shape: the MCP face's client factory dials a daemon serving the
 * surface over a socket. `announceClose: false` drops the transport's close announcement, leaving
 * the face to discover a dead link by spending a request on it.
 */
const bridge = (path: string, announceClose: boolean) =>
  Effect.flatMap(
    Face.make({
      core: { surface: WireDaemon.Daemon, expose: Expose.all(WireDaemon.Daemon) },
      client: Effect.map(Wire.dial(WireDaemon.Daemon, { path }), (owned) => ({
        client: { core: Client.erase(owned.client), clients: {} },
        dispose: owned.dispose,
        ...(announceClose && owned.onClose !== undefined ? { onClose: owned.onClose } : {})
      }))
    }),
    connectTo
  )

/** Run a daemon in its own scope, so a test can kill it and start another on the same path. */
const daemonAt = (path: string, journal: string) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const daemon = yield* WireDaemon.spawn(path, { journal }).pipe(Scope.provide(scope))
    const stop = daemon.kill.pipe(Effect.andThen(daemon.exited), Effect.andThen(Scope.close(scope, Exit.void)))
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    return { daemon, stop }
  })

const journalCount = (journal: string, line: string) =>
  Effect.sync(() =>
    (Fs.existsSync(journal) ? Fs.readFileSync(journal, "utf8") : "").split("\n").filter((l) => l === line).length
  )

const pidOf = (result: { readonly structuredContent?: unknown }) =>
  (result.structuredContent as { readonly value?: unknown } | undefined)?.value

describe("a bridged surface whose daemon restarts", () => {
  it.live("with onClose, the first request after a restart succeeds", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const path = Path.join(dir, "s.sock")
      const journal = Path.join(dir, "journal")
      const first = yield* daemonAt(path, journal)
      const c = yield* bridge(path, true)
      assert.strictEqual(pidOf(yield* call(c, "daemon_pid")), first.daemon.pid)
      yield* first.stop
      const second = yield* daemonAt(path, journal)
      const after = yield* call(c, "daemon_pid")
      assert.isUndefined(after.isError, textOf(after))
      assert.strictEqual(pidOf(after), second.daemon.pid)
    }).pipe(Effect.provide(WireDaemon.layer)), { timeout: 60_000 })

  it.live(
    "without onClose, exactly one request fails, saying the MCP server is still running",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const path = Path.join(dir, "s.sock")
        const journal = Path.join(dir, "journal")
        const first = yield* daemonAt(path, journal)
        const c = yield* bridge(path, false)
        assert.strictEqual(pidOf(yield* call(c, "daemon_pid")), first.daemon.pid)
        yield* first.stop
        const second = yield* daemonAt(path, journal)
        const spent = yield* call(c, "daemon_pid")
        assert.isTrue(spent.isError)
        assert.include(textOf(spent), "The MCP server is still running")
        assert.include(textOf(spent), "re-dials")
        const next = yield* call(c, "daemon_pid")
        assert.isUndefined(next.isError, textOf(next))
        assert.strictEqual(pidOf(next), second.daemon.pid)
        assert.strictEqual(pidOf(yield* call(c, "daemon_pid")), second.daemon.pid)
      }).pipe(Effect.provide(WireDaemon.layer)),
    { timeout: 60_000 }
  )

  it.live("a call cut in flight reports an unknown outcome and is never replayed", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const path = Path.join(dir, "s.sock")
      const journal = Path.join(dir, "journal")
      const first = yield* daemonAt(path, journal)
      const c = yield* bridge(path, true)
      const pending = yield* call(c, "daemon_slow", { ms: 30_000 }).pipe(Effect.forkChild)
      yield* first.daemon.awaitLine((line) => line === "invoked daemon.slow")
      yield* first.stop
      const cut = yield* Fiber.join(pending)
      assert.isTrue(cut.isError)
      assert.include(textOf(cut), "outcome is unknown")
      assert.include(textOf(cut), "The MCP server is still running")
      // A fresh daemon and more traffic: the cut call must not run again anywhere.
      const second = yield* daemonAt(path, journal)
      assert.strictEqual(pidOf(yield* call(c, "daemon_pid")), second.daemon.pid)
      yield* Effect.sleep("200 millis")
      assert.strictEqual(yield* journalCount(journal, "invoked daemon.slow"), 1)
      assert.strictEqual(yield* second.daemon.invocations("daemon.slow"), 0)
    }).pipe(Effect.provide(WireDaemon.layer)), { timeout: 60_000 })
})
