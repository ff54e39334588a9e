import { assert, describe, it } from "@effect/vitest"
import {
  Cause,
  Clock,
  Deferred,
  Effect,
  Exit,
  Fiber,
  Option,
  Ref,
  Result,
  Schedule,
  Schema,
  Scope,
  Stream,
  SubscriptionRef
} from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as ConnectionPool from "../../src/core/ConnectionPool.ts"
import * as Expose from "../../src/surface/Expose.ts"
import * as Implementation from "../../src/surface/Implementation.ts"
import * as Surface from "../../src/surface/Surface.ts"
import * as Wire from "../../src/wire/Wire.ts"
import { makeTodos, Todos } from "./fixture.ts"
import * as WireDaemon from "./wire-daemon.ts"

/** A short socket path in a fresh temp dir, removed with the scope. */
const socketPath = Effect.map(
  Effect.acquireRelease(
    Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "wire-"))),
    (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  ),
  (dir) => Path.join(dir, "s.sock")
)

/**
 * Collect the first `n` elements of a subscription in the background. `live` completes with the
 * first element: the subscription has landed on the served side, so later changes reach it.
 */
const collect = <A, E>(stream: Stream.Stream<A, E>, n: number) =>
  Effect.gen(function*() {
    const first = yield* Deferred.make<void>()
    const fiber = yield* stream.pipe(
      Stream.tap(() => Deferred.succeed(first, undefined)),
      Stream.take(n),
      Stream.runCollect,
      Effect.forkChild({ startImmediately: true })
    )
    return { fiber, live: Deferred.await(first) }
  })

/** Wait (up to 5 seconds) until a check holds: for effects the served side has on its own time. */
const eventually = (check: Effect.Effect<boolean>) =>
  check.pipe(
    Effect.repeat({ until: (ok) => ok, schedule: Schedule.spaced("10 millis") }),
    Effect.timeout("5 seconds")
  )

/** Serve the fixture in this process and dial it. */
const served = Effect.gen(function*() {
  const path = yield* socketPath
  const fx = yield* makeTodos
  yield* Wire.serve(fx.implemented, { path, expose: Expose.all(Todos) })
  const owned = yield* Wire.dial(Todos, { path })
  return { ...fx, path, owned, client: owned.client }
})

describe("Wire in process", () => {
  it.live("a cell read answers the current value and a subscription starts with it, then every change", () =>
    Effect.gen(function*() {
      const { cells, client } = yield* served
      assert.strictEqual(yield* client.cells.filter.read, "all")
      yield* SubscriptionRef.set(cells.filter, "open")
      const { fiber, live } = yield* collect(client.cells.filter.subscribe, 2)
      yield* live
      yield* SubscriptionRef.set(cells.filter, "done")
      assert.deepStrictEqual(yield* Fiber.join(fiber), ["open", "done"])
    }))

  it.live("a collection crosses as a map: snapshot first, then every later state, and an item by key", () =>
    Effect.gen(function*() {
      const { client } = yield* served
      yield* client.procedures.todo.add({ id: "a", title: "milk" })
      const read = yield* client.collections.todos.read
      assert.deepStrictEqual([...read.entries()], [["a", { title: "milk", done: false }]])
      const { fiber, live } = yield* collect(client.collections.todos.subscribe, 2)
      yield* live
      yield* client.procedures.todo.add({ id: "b", title: "eggs" })
      const [first, second] = yield* Fiber.join(fiber)
      assert.deepStrictEqual([...(first?.keys() ?? [])], ["a"])
      assert.deepStrictEqual([...(second?.keys() ?? [])], ["a", "b"])
      assert.deepStrictEqual(yield* client.collections.todos.get("b"), Option.some({ title: "eggs", done: false }))
      assert.deepStrictEqual(yield* client.collections.todos.get("zz"), Option.none())
    }))

  it.live("a stream's first frame is its backlog and later frames carry only what was appended", () =>
    Effect.gen(function*() {
      const { client, log } = yield* served
      yield* log.append("1", "2", "3", "4")
      assert.deepStrictEqual(yield* client.streams.log.read, ["2", "3", "4"])
      const { fiber, live } = yield* collect(client.streams.log.subscribe, 3)
      yield* live
      yield* log.append("5")
      yield* log.append("6", "7")
      assert.deepStrictEqual(yield* Fiber.join(fiber), [["2", "3", "4"], ["5"], ["6", "7"]])
    }))

  it.live("an event has no snapshot: a subscriber sees only pulses published after it started", () =>
    Effect.gen(function*() {
      const { client } = yield* served
      yield* client.procedures.todo.add({ id: "before", title: "x" })
      const { fiber } = yield* collect(client.events.saved.subscribe, 1)
      // The served side subscribes when the request lands; pulse until one arrives.
      const pulse = Effect.gen(function*() {
        for (let i = 0;; i++) {
          yield* client.procedures.todo.add({ id: `after-${i}`, title: "y" })
          yield* Effect.sleep("20 millis")
        }
      })
      const [received] = yield* Effect.raceFirst(Fiber.join(fiber), pulse)
      assert.match(received?.id ?? "", /^after-/)
    }))

  it.live("a procedure's declared tagged errors arrive as the same tagged errors, fields and all", () =>
    Effect.gen(function*() {
      const { client } = yield* served
      const missing = yield* Effect.flip(client.procedures.todo.complete("nope"))
      assert.strictEqual(missing._tag, "NotFound")
      assert.deepInclude(missing, { id: "nope" })
      yield* client.procedures.todo.add({ id: "a", title: "milk" })
      assert.deepStrictEqual(yield* client.procedures.todo.complete("a"), { title: "milk", done: true })
      const again = yield* Effect.flip(client.procedures.todo.complete("a"))
      assert.strictEqual(again._tag, "Conflict")
      const dup = yield* Effect.flip(client.procedures.todo.add({ id: "a", title: "again" }))
      assert.deepInclude(dup, { _tag: "Conflict", id: "a" })
      assert.strictEqual(yield* client.procedures.todo.count(), 1)
    }))

  it.live("interrupting a call interrupts the implementation on the served side", () =>
    Effect.gen(function*() {
      const { client, waitInterrupted, waitStarted } = yield* served
      const fiber = yield* client.procedures.todo.wait().pipe(Effect.forkChild)
      yield* Deferred.await(waitStarted)
      yield* Fiber.interrupt(fiber)
      assert.isTrue(Exit.hasInterrupts(yield* Fiber.await(fiber)))
      yield* eventually(Ref.get(waitInterrupted))
    }))
})

/** What a defect says, or `"no defect"`. */
const defectOf = (exit: Exit.Exit<unknown, unknown>): string => {
  if (Exit.isSuccess(exit)) return "no defect"
  const defect = Cause.findDefect(exit.cause)
  return Result.isSuccess(defect) && defect.success instanceof Error ? defect.success.message : "no defect"
}

describe("Wire exposure", () => {
  it.live("only what the expose map names is served: any other member is refused on the served side, never run, and the link stays up", () =>
    Effect.gen(function*() {
      const path = yield* socketPath
      const { implemented, todos } = yield* makeTodos
      yield* Wire.serve(implemented, { path, expose: { cells: { filter: true }, procedures: { "todo.add": true } } })
      // Dialled with the whole spec: what the socket serves is the server's to say.
      const { client } = yield* Wire.dial(Todos, { path })
      yield* client.procedures.todo.add({ id: "a", title: "milk" })
      assert.strictEqual(yield* client.cells.filter.read, "all")
      const refusals = [
        defectOf(yield* Effect.exit(client.procedures.todo.complete("a"))),
        defectOf(yield* Effect.exit(client.collections.todos.read)),
        defectOf(yield* Effect.exit(Stream.runHead(client.streams.log.subscribe)))
      ]
      assert.deepStrictEqual(refusals, [
        `${path} does not serve procedure/todo/complete: the expose map it is served with does not name it`,
        `${path} does not serve collection.read/todos: the expose map it is served with does not name it`,
        `${path} does not serve stream.subscribe/log: the expose map it is served with does not name it`
      ])
      assert.deepStrictEqual(yield* todos.get("a"), Option.some({ title: "milk", done: false }))
      yield* client.procedures.todo.add({ id: "b", title: "bread" })
      assert.strictEqual((yield* todos.snapshot).size, 2)
    }))

  it.live("an expose map naming what the surface does not declare is refused before anything listens", () =>
    Effect.gen(function*() {
      const path = yield* socketPath
      const { implemented } = yield* makeTodos
      const error = yield* Effect.flip(
        Wire.serve(implemented, { path, expose: { cells: { filtr: true } } as Expose.ExposeMap<typeof Todos> })
      )
      assert.strictEqual(
        error.message,
        `the expose map for wire names cell "filtr", which its surface does not declare; did you mean "filter"?`
      )
      assert.isFalse(Fs.existsSync(path))
    }))

  it.live("the socket is its owner's alone (mode 0600), nothing else is left beside it, and it goes when serving stops", () =>
    Effect.gen(function*() {
      const path = yield* socketPath
      const { implemented } = yield* makeTodos
      const server = yield* Scope.make()
      yield* Wire.serve(implemented, { path, expose: Expose.all(Todos) }).pipe(Scope.provide(server))
      assert.strictEqual(Fs.lstatSync(path).mode & 0o777, 0o600)
      assert.deepStrictEqual(Fs.readdirSync(Path.dirname(path)), [Path.basename(path)])
      const { client } = yield* Wire.dial(Todos, { path })
      assert.strictEqual(yield* client.cells.filter.read, "all")
      yield* Scope.close(server, Exit.void)
      assert.deepStrictEqual(Fs.readdirSync(Path.dirname(path)), [])
    }))
})

describe("Wire link lifecycle", () => {
  it.live("dialling a path nothing listens on fails at once with a dial-phase LinkError", () =>
    Effect.gen(function*() {
      const path = yield* socketPath
      const start = yield* Clock.currentTimeMillis
      const error = yield* Effect.flip(Wire.dial(Todos, { path }))
      assert.deepInclude(error, { _tag: "LinkError", phase: "dial" })
      assert.isBelow((yield* Clock.currentTimeMillis) - start, 1000)
    }))

  it.live("serving refuses a path a live server holds, and a path that is not a socket", () =>
    Effect.gen(function*() {
      const { implemented } = yield* makeTodos
      const path = yield* socketPath
      yield* Wire.serve(implemented, { path, expose: Expose.all(Todos) })
      assert.deepInclude(yield* Effect.flip(Wire.serve(implemented, { path, expose: Expose.all(Todos) })), {
        _tag: "WireServeError"
      })
      const file = `${path}.txt`
      Fs.writeFileSync(file, "not a socket")
      assert.deepInclude(yield* Effect.flip(Wire.serve(implemented, { path: file, expose: Expose.all(Todos) })), {
        _tag: "WireServeError"
      })
      assert.isTrue(Fs.existsSync(file))
    }))

  it.live("stopping the server fails calls and subscriptions in flight with a call-phase LinkError", () =>
    Effect.gen(function*() {
      const { implemented, waitStarted } = yield* makeTodos
      const path = yield* socketPath
      const server = yield* Scope.make()
      yield* Wire.serve(implemented, { path, expose: Expose.all(Todos) }).pipe(Scope.provide(server))
      const { client } = yield* Wire.dial(Todos, { path })
      const call = yield* client.procedures.todo.wait().pipe(Effect.forkChild)
      const subscription = yield* collect(client.cells.filter.subscribe, 2)
      yield* subscription.live
      yield* Deferred.await(waitStarted)
      yield* Scope.close(server, Exit.void)
      // the served side interrupts its handlers as it stops; the caller was not interrupted
      assert.deepInclude(yield* Effect.flip(Fiber.join(call)), { _tag: "LinkError", phase: "call" })
      assert.deepInclude(yield* Effect.flip(Fiber.join(subscription.fiber)), { _tag: "LinkError", phase: "call" })
    }))

  it.live("a defect in one call fails that call alone, not the others on the connection", () =>
    Effect.gen(function*() {
      const Fragile = Surface.make({
        procedures: { fragile: { boom: { output: Schema.String }, slow: { output: Schema.String } } }
      })
      const path = yield* socketPath
      const slowStarted = yield* Deferred.make<void>()
      const slowImpl = () =>
        Deferred.succeed(slowStarted, undefined).pipe(Effect.andThen(Effect.sleep("200 millis")), Effect.as("done"))
      yield* Wire.serve(
        Implementation.make(Fragile, { procedures: { fragile: { boom: () => Effect.die("boom"), slow: slowImpl } } }),
        { path, expose: Expose.all(Fragile) }
      )
      const { client } = yield* Wire.dial(Fragile, { path })
      const slow = yield* client.procedures.fragile.slow().pipe(Effect.forkChild)
      yield* Deferred.await(slowStarted)
      const boom = yield* Effect.exit(client.procedures.fragile.boom())
      assert.isTrue(Exit.hasDies(boom))
      assert.strictEqual(yield* Fiber.join(slow), "done")
    }))

  it.live("stopping the server announces the close to each client once; dispose announces nothing", () =>
    Effect.gen(function*() {
      const { implemented } = yield* makeTodos
      const path = yield* socketPath
      const server = yield* Scope.make()
      yield* Wire.serve(implemented, { path, expose: Expose.all(Todos) }).pipe(Scope.provide(server))
      const kept = yield* Wire.dial(Todos, { path })
      const disposed = yield* Wire.dial(Todos, { path })
      const keptClosed = yield* Deferred.make<void>()
      let keptAnnouncements = 0
      let disposedAnnouncements = 0
      kept.onClose?.(() => {
        keptAnnouncements++
        Deferred.doneUnsafe(keptClosed, Exit.void)
      })
      disposed.onClose?.(() => disposedAnnouncements++)
      assert.strictEqual(yield* kept.client.procedures.todo.count(), 0)

      yield* disposed.dispose
      assert.deepInclude(yield* Effect.flip(disposed.client.procedures.todo.count()), {
        _tag: "LinkError",
        phase: "closed"
      })

      yield* Scope.close(server, Exit.void)
      yield* Deferred.await(keptClosed).pipe(Effect.timeout("5 seconds"))
      yield* Effect.sleep("50 millis")
      assert.strictEqual(keptAnnouncements, 1)
      assert.strictEqual(disposedAnnouncements, 0)
      assert.isFalse(Fs.existsSync(path), "the socket file is removed when serving stops")
      assert.deepInclude(yield* Effect.flip(kept.client.procedures.todo.count()), {
        _tag: "LinkError",
        phase: "closed"
      })
      // A listener that arrives after the drop hears it at once: the pool's born-dead check.
      let late = 0
      kept.onClose?.(() => late++)
      assert.strictEqual(late, 1)
    }))
})

describe("Wire across processes", () => {
  const provided = <A, E>(effect: Effect.Effect<A, E, Scope.Scope | WireDaemon.Services>) =>
    Effect.provide(effect, WireDaemon.layer)

  it.live("a client in one process calls a surface served by another, declared errors included", () =>
    provided(Effect.gen(function*() {
      const path = yield* socketPath
      const daemon = yield* WireDaemon.spawn(path)
      const { client } = yield* Wire.dial(WireDaemon.Daemon, { path })
      assert.strictEqual(yield* client.procedures.daemon.pid(), daemon.pid)
      assert.notStrictEqual(daemon.pid, process.pid)
      yield* client.procedures.todo.add({ id: "a", title: "milk" })
      assert.deepInclude(yield* Effect.flip(client.procedures.todo.complete("zz")), { _tag: "NotFound", id: "zz" })
      assert.deepStrictEqual(yield* client.cells.calls.read, { "daemon.pid": 1, "todo.add": 1, "todo.complete": 1 })
      assert.deepStrictEqual(yield* client.collections.todos.get("a"), Option.some({ title: "milk", done: false }))
    })))

  it.live("killing the daemon fires onClose exactly once, fails live subscriptions, and later calls fail as closed", () =>
    provided(Effect.gen(function*() {
      const path = yield* socketPath
      const daemon = yield* WireDaemon.spawn(path)
      const owned = yield* Wire.dial(WireDaemon.Daemon, { path })
      const closed = yield* Deferred.make<void>()
      let announcements = 0
      owned.onClose?.(() => {
        announcements++
        Deferred.doneUnsafe(closed, Exit.void)
      })
      const subscription = yield* collect(owned.client.cells.filter.subscribe, 2)
      yield* subscription.live
      assert.strictEqual(yield* owned.client.procedures.daemon.pid(), daemon.pid)

      yield* daemon.kill
      yield* Deferred.await(closed).pipe(Effect.timeout("5 seconds"))
      const dropped = yield* Effect.flip(Fiber.join(subscription.fiber))
      assert.deepInclude(dropped, { _tag: "LinkError", phase: "call" })
      yield* Effect.sleep("100 millis")
      assert.strictEqual(announcements, 1)
      assert.deepInclude(yield* Effect.flip(owned.client.procedures.daemon.pid()), {
        _tag: "LinkError",
        phase: "closed"
      })
      assert.deepInclude(yield* Effect.flip(Stream.runHead(owned.client.cells.filter.subscribe)), {
        _tag: "LinkError",
        phase: "closed"
      })
    })))

  it.live("a call in flight when the daemon dies fails as a call-phase LinkError and is never replayed", () =>
    provided(Effect.gen(function*() {
      const path = yield* socketPath
      const journal = `${path}.journal`
      const first = yield* WireDaemon.spawn(path, { journal })
      const owned = yield* Wire.dial(WireDaemon.Daemon, { path })
      const call = yield* owned.client.procedures.daemon.slow({ ms: 60_000 }).pipe(Effect.forkChild)
      yield* first.awaitLine((line) => line === "invoked daemon.slow")

      yield* first.kill
      const error = yield* Effect.flip(Fiber.join(call))
      assert.deepInclude(error, { _tag: "LinkError", phase: "call" })
      assert.include(error.reason, path, "the failure names the link that dropped")
      assert.strictEqual(yield* first.invocations("daemon.slow"), 1)

      // A stale socket file is left behind; the next generation takes the path over and the
      // journal, which spans both, still shows the one invocation.
      assert.deepInclude(yield* Effect.flip(Wire.dial(WireDaemon.Daemon, { path })), { phase: "dial" })
      const second = yield* WireDaemon.spawn(path, { journal })
      const fresh = yield* Wire.dial(WireDaemon.Daemon, { path })
      assert.strictEqual(yield* fresh.client.procedures.daemon.pid(), second.pid)
      // The old connection stays dead: it never reconnects to the new daemon on its own.
      assert.deepInclude(yield* Effect.flip(owned.client.procedures.daemon.pid()), { phase: "closed" })
      // The daemon's stdout is read asynchronously: the reply may arrive before its line does.
      yield* second.awaitLine((line) => line === "invoked daemon.pid")
      assert.strictEqual(yield* second.invocations("daemon.pid"), 1)
      yield* Effect.sleep("200 millis")
      assert.strictEqual(yield* second.invocations("daemon.slow"), 0)
      const journalled = Fs.readFileSync(journal, "utf8").split("\n").filter((line) => line === "invoked daemon.slow")
      assert.strictEqual(journalled.length, 1)
    })))

  it.live("interrupting a call interrupts the implementation in the serving process", () =>
    provided(Effect.gen(function*() {
      const path = yield* socketPath
      const daemon = yield* WireDaemon.spawn(path)
      const { client } = yield* Wire.dial(WireDaemon.Daemon, { path })
      const call = yield* client.procedures.daemon.hang().pipe(Effect.forkChild)
      yield* daemon.awaitLine((line) => line === "invoked daemon.hang")
      yield* Fiber.interrupt(call)
      yield* daemon.awaitLine((line) => line === "interrupted daemon.hang", "5 seconds")
      // the connection outlives the interrupted call
      assert.strictEqual(yield* client.procedures.daemon.pid(), daemon.pid)
    })))

  it.live("after the daemon restarts, the pool's first request succeeds on a fresh dial", () =>
    provided(Effect.gen(function*() {
      const path = yield* socketPath
      const pool = yield* ConnectionPool.make({ dial: Wire.dial(WireDaemon.Daemon, { path }), name: "wire-daemon" })
      const pid = pool.use((client) => client.procedures.daemon.pid())
      yield* Effect.scoped(Effect.gen(function*() {
        const daemon = yield* WireDaemon.spawn(path)
        assert.strictEqual(yield* pid, daemon.pid)
        yield* daemon.kill
        yield* daemon.exited
      }))
      // A restart takes longer than the close announcement takes to reach the pool, which drops the
      // dead connection on it; no request is spent discovering the drop.
      yield* Effect.sleep("200 millis")
      const second = yield* WireDaemon.spawn(path)
      assert.strictEqual(yield* pid, second.pid)
      assert.strictEqual(yield* pool.dials, 2)
    })))

  it.live("closing the spawning scope leaves no daemon process behind", () =>
    provided(Effect.gen(function*() {
      const path = yield* socketPath
      const pid = yield* Effect.scoped(Effect.map(WireDaemon.spawn(path), (daemon) => daemon.pid))
      // signal 0 only checks that the process exists
      const probe = yield* Effect.exit(Effect.try(() => process.kill(pid, 0)))
      assert.isTrue(Exit.isFailure(probe), `daemon ${pid} is still running`)
    })))
})
