import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Ref, Schedule, Scope } from "effect"
import { TestClock } from "effect/testing"
import * as ConnectionPool from "../../src/core/ConnectionPool.ts"
import { LinkError } from "../../src/surface/LinkError.ts"
import { call, type Client, closesClean, makeFake, settle } from "./ConnectionPool.fake.ts"

describe("ConnectionPool", () => {
  it.effect("one dial serves N concurrent first calls", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake({ delay: "10 millis" })
      const pool = yield* ConnectionPool.make({ dial: fake.dial })
      const fiber = yield* Effect.all(Array.from({ length: 8 }, () => pool.use(call)), { concurrency: "unbounded" })
        .pipe(Effect.forkChild)
      yield* settle
      yield* TestClock.adjust("10 millis")
      const answers = yield* Fiber.join(fiber)
      assert.deepStrictEqual(answers, Array.from({ length: 8 }, () => "#1"))
      assert.strictEqual(yield* fake.dials, 1)
      assert.strictEqual(yield* pool.dials, 1)
      yield* closesClean(pool, fake)
    }))

  it.effect("an announced close drops the connection at once: the next request dials fresh and none fails", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake()
      const pool = yield* ConnectionPool.make({ dial: fake.dial })
      assert.strictEqual(yield* pool.use(call), "#1")
      yield* fake.kill(1)
      // no yield between the announcement and the request: the drop must not wait for a fiber
      assert.strictEqual(yield* pool.use(call), "#2")
      assert.strictEqual(yield* fake.calls, 2)
      assert.strictEqual(yield* fake.disposes, 1)
      yield* closesClean(pool, fake)
    }))

  it.effect("a late close from an old connection does not drop its successor", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake()
      const pool = yield* ConnectionPool.make({ dial: fake.dial })
      assert.strictEqual(yield* pool.use(call), "#1")
      yield* pool.retire
      assert.strictEqual(yield* pool.use(call), "#2")
      yield* fake.kill(1)
      yield* settle
      assert.strictEqual(yield* pool.use(call), "#2")
      assert.strictEqual(yield* fake.dials, 2)
      yield* closesClean(pool, fake)
    }))

  it.effect("a connection born dead is re-dialled with backoff driven by the clock, and the live one is kept", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake({ bornDead: 2, microtask: true })
      const pool = yield* ConnectionPool.make({ dial: fake.dial, backoff: Schedule.exponential("50 millis") })
      const fiber = yield* Effect.forkChild(pool.use(call))
      yield* settle
      assert.strictEqual(yield* fake.dials, 1)
      yield* TestClock.adjust("50 millis")
      yield* settle
      assert.strictEqual(yield* fake.dials, 2)
      yield* TestClock.adjust("99 millis")
      yield* settle
      assert.strictEqual(yield* fake.dials, 2, "the second re-dial waits out the doubled backoff")
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* Fiber.join(fiber), "#3")
      assert.strictEqual(yield* fake.dials, 3)
      assert.strictEqual(yield* fake.disposes, 2)
      yield* closesClean(pool, fake)
    }))

  it.effect("born dead past the bound fails loudly, counting every dial, and the next request dials again", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake({ bornDead: 3 })
      const pool = yield* ConnectionPool.make({ dial: fake.dial, maxDials: 3, name: "app.sock" })
      const fiber = yield* Effect.forkChild(Effect.flip(pool.use(call)))
      yield* settle
      yield* TestClock.adjust("1 second")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "DialFailed")
      assert.isTrue(error._tag === "DialFailed" && error.dials === 3 && error.bornDead === 3)
      assert.strictEqual(
        error.message,
        "could not open a live connection to app.sock: all 3 dials were born dead (the transport announced its close " +
          "while the connection was being registered). Nothing was sent, so a retry is safe. The server is still running; the next request re-dials."
      )
      assert.strictEqual(yield* fake.dials, 3)
      assert.strictEqual(yield* fake.disposes, 3)
      assert.strictEqual(yield* fake.calls, 0)
      assert.strictEqual(yield* pool.use(call), "#4")
      yield* closesClean(pool, fake)
    }))

  it.effect("a close announced within the settle window still counts as born dead", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake()
      const pool = yield* ConnectionPool.make({
        dial: fake.dial,
        settle: "20 millis",
        backoff: Schedule.spaced("5 millis")
      })
      const fiber = yield* Effect.forkChild(pool.use(call))
      yield* settle
      yield* TestClock.adjust("10 millis")
      yield* fake.kill(1)
      yield* TestClock.adjust("10 millis")
      yield* settle
      yield* TestClock.adjust("5 millis")
      yield* settle
      yield* TestClock.adjust("20 millis")
      assert.strictEqual(yield* Fiber.join(fiber), "#2")
      assert.strictEqual(yield* fake.dials, 2)
      assert.strictEqual(yield* fake.disposes, 1)
      yield* closesClean(pool, fake)
    }))

  it.effect("a dial past its deadline is interrupted and counted as a failed dial", () =>
    Effect.gen(function*() {
      const interrupted = yield* Ref.make(0)
      const pool = yield* ConnectionPool.make<Client>({
        dial: Effect.onInterrupt(Effect.never, () => Ref.update(interrupted, (n) => n + 1)),
        dialTimeout: "1 second",
        maxDials: 2,
        backoff: Schedule.spaced("100 millis")
      })
      const fiber = yield* Effect.forkChild(Effect.flip(pool.get))
      yield* settle
      yield* TestClock.adjust("1 second")
      yield* settle
      assert.strictEqual(yield* Ref.get(interrupted), 1)
      yield* TestClock.adjust("100 millis")
      yield* settle
      yield* TestClock.adjust("1 second")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(
        error.message,
        "could not open a connection to the served surface after 2 dial(s), 0 born dead: no answer within 1s. " +
          "Nothing was sent, so a retry is safe. The server is still running; the next request re-dials."
      )
      assert.strictEqual(yield* Ref.get(interrupted), 2)
      assert.strictEqual(yield* pool.dials, 2)
    }))

  it.effect("retire during an in-flight dial disposes what lands, and its caller is served by a fresh dial", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake({ delay: "10 millis" })
      const pool = yield* ConnectionPool.make({ dial: fake.dial })
      const fiber = yield* Effect.forkChild(pool.use(call))
      yield* settle
      yield* pool.retire
      yield* TestClock.adjust("10 millis")
      yield* settle
      assert.strictEqual(yield* fake.dials, 1)
      assert.strictEqual(yield* fake.disposes, 1)
      yield* TestClock.adjust("10 millis")
      assert.strictEqual(yield* Fiber.join(fiber), "#2")
      assert.strictEqual(yield* fake.disposes, 1)
      yield* closesClean(pool, fake)
    }))

  it.effect("retire lets a call in flight finish before disposing its connection", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake()
      const pool = yield* ConnectionPool.make({ dial: fake.dial })
      const gate = yield* Deferred.make<void>()
      const fiber = yield* Effect.forkChild(pool.use((client) => Effect.andThen(Deferred.await(gate), client.call)))
      yield* settle
      yield* pool.retire
      assert.strictEqual(yield* fake.disposes, 0)
      yield* Deferred.succeed(gate, undefined)
      assert.strictEqual(yield* Fiber.join(fiber), "#1")
      assert.strictEqual(yield* fake.disposes, 1)
      assert.strictEqual(yield* pool.use(call), "#2")
      yield* closesClean(pool, fake)
    }))

  it.effect("after close no dial starts and the current connection is disposed", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake()
      const pool = yield* ConnectionPool.make({ dial: fake.dial, name: "app.sock" })
      assert.strictEqual(yield* pool.use(call), "#1")
      yield* pool.close
      assert.strictEqual(yield* fake.disposes, 1)
      const error = yield* Effect.flip(pool.use(call))
      assert.strictEqual(error._tag, "PoolClosed")
      assert.strictEqual(
        error.message,
        "the connection to app.sock is shut down: no new connection is dialled after close."
      )
      assert.strictEqual(yield* fake.dials, 1)
    }))

  it.effect("a death in flight is re-framed, never replayed, and the next request re-dials", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake()
      const pool = yield* ConnectionPool.make({ dial: fake.dial, name: "app.sock" })
      assert.strictEqual(yield* pool.use(call), "#1")
      const attempts = yield* Ref.make(0)
      const error = yield* Effect.flip(pool.use((client) =>
        Effect.andThen(
          Ref.update(attempts, (n) => n + 1),
          Effect.andThen(fake.kill(client.id, false), client.call)
        )
      ))
      assert.strictEqual(error._tag, "ConnectionLost")
      assert.strictEqual(
        error.message,
        "connection #1 to app.sock dropped while a call was in flight (socket closed). " +
          "The server is still running. The call's outcome is unknown: the served side may have acted and only " +
          "the reply been lost, so it was not retried. The next request re-dials."
      )
      assert.strictEqual(yield* Ref.get(attempts), 1)
      assert.strictEqual(yield* fake.disposes, 1)
      assert.strictEqual(yield* pool.use(call), "#2")
      yield* closesClean(pool, fake)
    }))

  it.effect("a link refused before the call went out is reported as not reached and drops the connection", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake()
      const pool = yield* ConnectionPool.make({ dial: fake.dial })
      const error = yield* Effect.flip(
        pool.use(() => Effect.fail(new LinkError({ phase: "closed", reason: "stdin ended" })))
      )
      assert.isTrue(error._tag === "ConnectionLost" && error.phase === "closed")
      assert.include(error.message, "not reached — safe to retry")
      assert.strictEqual(yield* pool.use(call), "#2")
      assert.strictEqual(yield* fake.disposes, 1)
      yield* closesClean(pool, fake)
    }))

  it.effect("without onClose exactly one request fails after the daemon dies", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake({ announce: false })
      const pool = yield* ConnectionPool.make({ dial: fake.dial })
      assert.strictEqual(yield* pool.use(call), "#1")
      yield* fake.kill(1, false)
      const outcomes = yield* Effect.forEach([1, 2, 3], () => Effect.result(pool.use(call)))
      assert.deepStrictEqual(outcomes.map((r) => r._tag), ["Failure", "Success", "Success"])
      assert.strictEqual(yield* fake.dials, 2)
      yield* closesClean(pool, fake)
    }))

  it.effect("a bare client is served and re-dialled with nothing to dispose", () =>
    Effect.gen(function*() {
      const dials = yield* Ref.make(0)
      const pool = yield* ConnectionPool.make({
        dial: Effect.map(Ref.updateAndGet(dials, (n) => n + 1), (id) => ({ id }))
      })
      assert.strictEqual((yield* pool.get).id, 1)
      yield* Effect.flip(pool.use(() => Effect.fail(new LinkError({ phase: "call", reason: "gone" }))))
      assert.strictEqual((yield* pool.get).id, 2)
      // an owned dial is unwrapped: callers get its client, typed as such
      const owned = yield* ConnectionPool.make({ dial: Effect.succeed({ client: { id: 7 }, dispose: Effect.void }) })
      assert.strictEqual((yield* owned.get).id, 7)
    }))

  it.effect("every connection opened is disposed when the scope closes, even one landing after its caller left", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake({ delay: "10 millis" })
      yield* Effect.gen(function*() {
        const pool = yield* ConnectionPool.make({ dial: fake.dial })
        const first = yield* Effect.forkChild(pool.use(call))
        yield* settle
        yield* TestClock.adjust("10 millis")
        assert.strictEqual(yield* Fiber.join(first), "#1")
        yield* pool.retire
        const caller = yield* Effect.forkChild(pool.use(call))
        yield* settle
        yield* Fiber.interrupt(caller)
        yield* TestClock.adjust("10 millis")
        yield* settle
        assert.strictEqual(yield* fake.dials, 2)
        assert.strictEqual(yield* fake.disposes, 1)
      }).pipe(Effect.scoped)
      assert.strictEqual(yield* fake.disposes, yield* fake.dials)
      assert.strictEqual(yield* fake.dials, 2)
    }))

  it.effect("closing the pool mid-handshake interrupts the dial and releases what it had opened", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake({ scoped: true, handshake: "10 millis" })
      const scope = yield* Scope.make()
      const pool = yield* ConnectionPool.make({ dial: fake.dial }).pipe(Scope.provide(scope))
      const caller = yield* Effect.forkChild(Effect.flip(pool.use(call)))
      yield* settle
      assert.strictEqual(yield* fake.dials, 1)
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual((yield* Fiber.join(caller))._tag, "PoolClosed")
      assert.strictEqual(yield* fake.disposes, 1)
    }))

  it.effect("a dial that cannot be interrupted and lands after close is released", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake({ scoped: true, handshake: "10 millis" })
      const pool = yield* ConnectionPool.make({ dial: Effect.uninterruptible(fake.dial) })
      const caller = yield* Effect.forkChild(Effect.flip(pool.use(call)))
      yield* settle
      const closing = yield* Effect.forkChild(pool.close)
      yield* settle
      // the scope the dial was handed is closed at once; close itself waits for the dial to finish
      assert.strictEqual(yield* fake.disposes, 1)
      yield* TestClock.adjust("10 millis")
      yield* Fiber.join(closing)
      assert.strictEqual((yield* Fiber.join(caller))._tag, "PoolClosed")
      assert.strictEqual(yield* fake.dials, 1)
      assert.strictEqual(yield* fake.disposes, 1)
    }))

  it.effect("a dial that hands its release to the pool's scope is released on drop like an owned one", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake({ scoped: true })
      const pool = yield* ConnectionPool.make({ dial: fake.dial })
      assert.strictEqual(yield* pool.use(call), "#1")
      yield* fake.kill(1, false)
      yield* Effect.flip(pool.use(call))
      assert.strictEqual(yield* fake.disposes, 1)
      assert.strictEqual(yield* pool.use(call), "#2")
      yield* closesClean(pool, fake)
    }))
})
