import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Option, Ref, Stream, SubscriptionRef } from "effect"
import { TestClock } from "effect/testing"
import * as Client from "../../src/surface/Client.ts"
import { makeTodos, Todos } from "./fixture.ts"

const setup = Effect.map(makeTodos, (fx) => ({ ...fx, client: Client.directDispatch(fx.implemented) }))

/** Collect the first `n` elements of a stream in a background fiber, started now. */
const collect = <A, E>(stream: Stream.Stream<A, E>, n: number) =>
  Stream.take(stream, n).pipe(Stream.runCollect, Effect.forkChild({ startImmediately: true }))

describe("Client.directDispatch", () => {
  it.effect("a cell subscription starts with the current value, then every change", () =>
    Effect.gen(function*() {
      const { cells, client } = yield* setup
      assert.strictEqual(yield* client.cells.filter.read, "all")
      yield* SubscriptionRef.set(cells.filter, "open")
      const fiber = yield* collect(client.cells.filter.subscribe, 2)
      yield* SubscriptionRef.set(cells.filter, "done")
      assert.deepStrictEqual(yield* Fiber.join(fiber), ["open", "done"])
    }))

  it.effect("a collection subscription starts with the items now, then every later state", () =>
    Effect.gen(function*() {
      const { client } = yield* setup
      yield* client.procedures.todo.add({ id: "a", title: "milk" })
      const fiber = yield* collect(client.collections.todos.subscribe, 2)
      yield* client.procedures.todo.add({ id: "b", title: "eggs" })
      const [first, second] = yield* Fiber.join(fiber)
      assert.deepStrictEqual([...(first?.keys() ?? [])], ["a"])
      assert.deepStrictEqual([...(second?.keys() ?? [])], ["a", "b"])
      assert.deepStrictEqual(yield* client.collections.todos.get("b"), Option.some({ title: "eggs", done: false }))
      assert.deepStrictEqual(yield* client.collections.todos.get("zz"), Option.none())
    }))

  it.effect("a stream's first frame is its bounded backlog and later frames carry only what was appended", () =>
    Effect.gen(function*() {
      const { client, log } = yield* setup
      yield* log.append("1", "2", "3", "4")
      assert.deepStrictEqual(yield* client.streams.log.read, ["2", "3", "4"])
      const fiber = yield* collect(client.streams.log.subscribe, 3)
      yield* log.append("5")
      yield* log.append("6", "7")
      assert.deepStrictEqual(yield* Fiber.join(fiber), [["2", "3", "4"], ["5"], ["6", "7"]])
    }))

  it.effect("an event has no snapshot: a subscriber sees only pulses after it started", () =>
    Effect.gen(function*() {
      const { client } = yield* setup
      yield* client.procedures.todo.add({ id: "before", title: "x" })
      const fiber = yield* collect(client.events.saved.subscribe, 1)
      const next = yield* client.events.saved.next.pipe(Effect.forkChild({ startImmediately: true }))
      yield* client.procedures.todo.add({ id: "after", title: "y" })
      assert.deepStrictEqual(yield* Fiber.join(fiber), [{ id: "after" }])
      assert.deepStrictEqual(yield* Fiber.join(next), { id: "after" })
    }))

  it.effect("a procedure fails with its declared tagged error, typed as that union", () =>
    Effect.gen(function*() {
      const { client } = yield* setup
      const missing = yield* Effect.flip(client.procedures.todo.complete("nope"))
      assert.strictEqual(missing._tag, "NotFound")
      yield* client.procedures.todo.add({ id: "a", title: "milk" })
      assert.deepStrictEqual(yield* client.procedures.todo.complete("a"), { title: "milk", done: true })
      const again = yield* Effect.flip(client.procedures.todo.complete("a"))
      assert.strictEqual(again._tag, "Conflict")
      assert.strictEqual(yield* client.procedures.todo.count(), 1)
    }))

  it.effect("interrupting a call interrupts the implementation", () =>
    Effect.gen(function*() {
      const { client, waitInterrupted, waitStarted } = yield* setup
      const fiber = yield* client.procedures.todo.wait().pipe(Effect.forkChild)
      yield* Deferred.await(waitStarted)
      yield* Fiber.interrupt(fiber)
      assert.isTrue(Exit.hasInterrupts(yield* Fiber.await(fiber)))
      assert.isTrue(yield* Ref.get(waitInterrupted))
    }))

  it.effect("a run-time call by address reaches the same procedure, and a missing one is a link error", () =>
    Effect.gen(function*() {
      const { client } = yield* setup
      const any = Client.erase(client)
      yield* Client.call(any, "todo", "add", { id: "a", title: "milk" })
      assert.strictEqual(yield* Client.call(any, "todo", "count", undefined), 1)
      const error = yield* Effect.flip(Client.call(any, "todo", "nope", undefined))
      assert.deepInclude(error, { _tag: "LinkError", phase: "closed" })
    }))

  it.effect("a subscription keeps delivering while time passes", () =>
    Effect.gen(function*() {
      const { cells, client } = yield* setup
      const fiber = yield* collect(client.cells.filter.subscribe, 3)
      yield* TestClock.adjust("1 hour")
      yield* SubscriptionRef.set(cells.filter, "open")
      yield* TestClock.adjust("1 hour")
      yield* SubscriptionRef.set(cells.filter, "done")
      assert.deepStrictEqual(yield* Fiber.join(fiber), ["all", "open", "done"])
    }))

  it("a typed client is a run-time client for a concrete spec", () => {
    const check = (client: Client.Client<typeof Todos>): Client.AnyClient => client
    assert.isFunction(check)
  })
})
