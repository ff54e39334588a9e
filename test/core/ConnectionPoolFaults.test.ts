import { assert, describe, it } from "@effect/vitest"
import { Data, Deferred, Effect, Fiber, Ref, Schedule } from "effect"
import { TestClock } from "effect/testing"
import * as ConnectionPool from "../../src/core/ConnectionPool.ts"
import { LinkError } from "../../src/surface/LinkError.ts"
import type * as Owned from "../../src/surface/Owned.ts"
import { call, type Client, closesClean, makeFake, settle } from "./ConnectionPool.fake.ts"

/** A dial error with no message of its own: only its tag and fields can word it. */
class Refused extends Data.TaggedError("Refused")<{ readonly code: number }> {}

describe("ConnectionPool faults", () => {
  it.effect("a dial that dies fails its request as DialFailed naming the defect, and the next request dials again", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake({ scoped: true, fault: (n) => n === 1 ? "die" : undefined })
      const pool = yield* ConnectionPool.make({ dial: fake.dial, maxDials: 1, name: "app.sock" })
      const error = yield* Effect.flip(pool.use(call))
      assert.strictEqual(error._tag, "DialFailed")
      assert.strictEqual(
        error.message,
        "could not open a connection to app.sock after 1 dial(s), 0 born dead: the dial died: dial #1 crashed. " +
          "Nothing was sent, so a retry is safe. The server is still running; the next request re-dials."
      )
      assert.strictEqual(yield* fake.disposes, 1, "what the dead dial opened is released")
      assert.strictEqual(yield* pool.use(call), "#2")
      assert.strictEqual(yield* pool.dials, 2)
      yield* closesClean(pool, fake)
    }))

  it.effect("a dial that dies is re-dialled like a failed one and releases what it acquired in its scope, every time", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake({ scoped: true, fault: () => "die" })
      const pool = yield* ConnectionPool.make({ dial: fake.dial, maxDials: 3, backoff: Schedule.spaced("10 millis") })
      const fiber = yield* Effect.forkChild(Effect.flip(pool.use(call)))
      yield* settle
      assert.strictEqual(yield* fake.disposes, 1)
      yield* TestClock.adjust("10 millis")
      yield* settle
      yield* TestClock.adjust("10 millis")
      const error = yield* Fiber.join(fiber)
      assert.isTrue(error._tag === "DialFailed" && error.dials === 3 && error.bornDead === 0)
      assert.include(error.message, "the dial died: dial #3 crashed")
      assert.strictEqual(yield* fake.dials, 3)
      assert.strictEqual(yield* fake.disposes, 3, "each dead dial's scope was closed")
      assert.strictEqual(yield* fake.calls, 0)
      yield* closesClean(pool, fake)
    }))

  it.effect("a dial that interrupts itself is a failed dial: it is re-dialled and its caller is served", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake({ scoped: true, fault: (n) => n === 1 ? "interrupt" : undefined })
      const pool = yield* ConnectionPool.make({ dial: fake.dial, backoff: Schedule.spaced("50 millis") })
      const fiber = yield* Effect.forkChild(pool.use(call))
      yield* settle
      assert.strictEqual(yield* fake.disposes, 1)
      yield* TestClock.adjust("50 millis")
      assert.strictEqual(yield* Fiber.join(fiber), "#2")
      assert.strictEqual(yield* pool.dials, 2)
      yield* closesClean(pool, fake)
    }))

  it.effect("a dial that interrupts itself past the bound fails loudly and leaves the pool dialling again", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake({ scoped: true, fault: (n) => n === 1 ? "interrupt" : undefined })
      const pool = yield* ConnectionPool.make({ dial: fake.dial, maxDials: 1 })
      const error = yield* Effect.flip(pool.get)
      assert.include(error.message, "after 1 dial(s), 0 born dead: the dial was interrupted.")
      assert.strictEqual((yield* pool.get).id, 2)
      yield* closesClean(pool, fake)
    }))

  it.effect("a close announced while a leased call is pending answers it as ConnectionLost, interrupted, never replayed", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake()
      const pool = yield* ConnectionPool.make({ dial: fake.dial, name: "app.sock" })
      assert.strictEqual(yield* pool.use(call), "#1")
      const attempts = yield* Ref.make(0)
      const interrupted = yield* Ref.make(0)
      // a client that never rejects its pending calls when its transport goes away
      const pending = Effect.andThen(
        Ref.update(attempts, (n) => n + 1),
        Effect.onInterrupt(Effect.never, () => Ref.update(interrupted, (n) => n + 1))
      )
      const fiber = yield* Effect.forkChild(Effect.flip(pool.use(() => pending)))
      yield* settle
      yield* fake.kill(1)
      yield* settle
      assert.isDefined(fiber.pollUnsafe(), "the caller is answered once the transport announces its close")
      const error = yield* Fiber.join(fiber)
      assert.isTrue(error._tag === "ConnectionLost" && error.phase === "call" && error.connection === 1)
      assert.strictEqual(
        error.message,
        "connection #1 to app.sock dropped while a call was in flight (the transport announced its close). " +
          "The server is still running. The call's outcome is unknown: the served side may have acted and only " +
          "the reply been lost, so it was not retried. The next request re-dials."
      )
      assert.strictEqual(yield* Ref.get(interrupted), 1, "the pending call was interrupted")
      assert.strictEqual(yield* Ref.get(attempts), 1)
      assert.strictEqual(yield* fake.disposes, 1)
      assert.strictEqual(yield* pool.use(call), "#2")
      yield* closesClean(pool, fake)
    }))

  it.effect("a client that settles its own pending calls is left to: its failure, not a race with the close, answers the call, re-framed and never replayed", () =>
    Effect.gen(function*() {
      const dials = yield* Ref.make(0)
      const sent = yield* Ref.make(0)
      const interrupted = yield* Ref.make(0)
      const closes: Array<() => void> = []
      // Like the MCP SDK's client: when its transport closes, every pending call fails with a
      // LinkError of its own, here a moment after the close is announced.
      const dial = Effect.gen(function*() {
        const id = yield* Ref.updateAndGet(dials, (n) => n + 1)
        const gone = yield* Deferred.make<void>()
        const owned: Owned.Owned<Client> = {
          client: {
            id,
            call: Effect.andThen(
              Ref.update(sent, (n) => n + 1),
              Effect.onInterrupt(
                Effect.andThen(
                  Deferred.await(gone),
                  Effect.fail(new LinkError({ phase: "call", reason: "socket reset by peer" }))
                ),
                () => Ref.update(interrupted, (n) => n + 1)
              )
            )
          },
          dispose: Effect.void,
          settlesPending: true,
          onClose: (listener) => {
            closes.push(() => {
              listener()
              Effect.runFork(Effect.andThen(Effect.yieldNow, Deferred.succeed(gone, undefined)))
            })
          }
        }
        return owned
      })
      const pool = yield* ConnectionPool.make({ dial, name: "app.sock" })
      const fiber = yield* Effect.forkChild(Effect.flip(pool.use((client) => client.call)))
      yield* settle
      closes[0]!()
      const error = yield* Fiber.join(fiber)
      assert.isTrue(error._tag === "ConnectionLost" && error.phase === "call" && error.connection === 1)
      assert.include(error.message, "socket reset by peer", "the client's own answer, not the close's")
      assert.strictEqual(yield* Ref.get(interrupted), 0, "nothing raced the call")
      assert.strictEqual(yield* Ref.get(sent), 1, "never replayed")
      // The close still drops the connection: the next request dials a new one.
      assert.strictEqual(yield* pool.use((client) => Effect.succeed(client.id)), 2)
    }))

  it.effect("a dial failing with a message-less tagged error is worded by its tag and fields", () =>
    Effect.gen(function*() {
      const pool = yield* ConnectionPool.make<Client, Refused>({
        dial: Effect.fail(new Refused({ code: 7 })),
        maxDials: 1,
        name: "app.sock"
      })
      const error = yield* Effect.flip(pool.get)
      assert.strictEqual(
        error.message,
        "could not open a connection to app.sock after 1 dial(s), 0 born dead: Refused {\"code\":7}. " +
          "Nothing was sent, so a retry is safe. The server is still running; the next request re-dials."
      )
    }))

  it.effect("an onClose that throws is a failed dial, worded like any error, and what was opened is disposed", () =>
    Effect.gen(function*() {
      const disposes = yield* Ref.make(0)
      const pool = yield* ConnectionPool.make({
        dial: Effect.succeed<Owned.Owned<Client>>({
          client: { id: 1, call: Effect.succeed("#1") },
          dispose: Ref.update(disposes, (n) => n + 1),
          onClose: () => {
            throw new Refused({ code: 9 })
          }
        }),
        maxDials: 1
      })
      const error = yield* Effect.flip(pool.get)
      assert.include(error.message, "0 born dead: onClose threw: Refused {\"code\":9}. Nothing was sent")
      assert.strictEqual(yield* Ref.get(disposes), 1)
    }))

  it.effect("a dial starts only for a request: retiring a dial whose caller left dials nothing more", () =>
    Effect.gen(function*() {
      const fake = yield* makeFake({ delay: "10 millis" })
      const pool = yield* ConnectionPool.make({ dial: fake.dial })
      const caller = yield* Effect.forkChild(pool.use(call))
      yield* settle
      yield* Fiber.interrupt(caller)
      yield* pool.retire
      yield* TestClock.adjust("10 millis")
      yield* settle
      yield* TestClock.adjust("1 second")
      yield* settle
      assert.strictEqual(yield* pool.dials, 1, "no dial started for nobody")
      assert.strictEqual(yield* fake.dials, 1)
      assert.strictEqual(yield* fake.disposes, 1, "the retired dial's connection was disposed when it landed")
      const next = yield* Effect.forkChild(pool.use(call))
      yield* settle
      yield* TestClock.adjust("10 millis")
      assert.strictEqual(yield* Fiber.join(next), "#2")
      assert.strictEqual(yield* pool.dials, 2)
      yield* closesClean(pool, fake)
    }))
})
