import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Option, Ref, Schema, Stream, SubscriptionRef } from "effect"
import { TestClock } from "effect/testing"
import * as ConnectionPool from "../../src/core/ConnectionPool.ts"
import type { LinkError } from "../../src/surface/LinkError.ts"
import * as Client from "../../src/surface/Client.ts"
import * as Implementation from "../../src/surface/Implementation.ts"
import * as Project from "../../src/surface/Project.ts"
import * as Surface from "../../src/surface/Surface.ts"
import type { Conflict, NotFound } from "./fixture.ts"
import { makeTodos, Todos } from "./fixture.ts"

/** True exactly when `A` and `B` are the same type (not merely mutually assignable through `any`). */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false

/** A pool over one shared client that counts its dials and disposals. */
const pooled = <C>(client: C) =>
  Effect.gen(function*() {
    const disposed = yield* Ref.make(0)
    const pool = yield* ConnectionPool.make({
      dial: Effect.succeed({ client, dispose: Ref.update(disposed, (n) => n + 1), onClose: () => {} }),
      name: "the test surface"
    })
    return { pool, disposed }
  })

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

  it.effect("a run-time call reaches the same procedure, and one the client does not serve is NotServed, never a link error", () =>
    Effect.gen(function*() {
      const { client } = yield* setup
      const any = Client.erase(client)
      yield* Client.call(any, "todo", "add", { id: "a", title: "milk" })
      assert.strictEqual(yield* Client.call(any, "todo", "count", undefined), 1)
      const error = yield* Effect.flip(Client.call(any, "todo", "nope", undefined))
      assert.instanceOf(error, Client.NotServed)
      assert.isTrue(Schema.is(Client.NotServed)(error))
      assert.deepInclude(error, { _tag: "NotServed", member: "procedure todo.nope" })
      assert.strictEqual((error as Client.NotServed).message, "the surface serves no procedure todo.nope")
      assert.deepInclude(yield* Effect.flip(Client.call(any, "nope", "add", undefined)), { _tag: "NotServed" })
      // An address inherited through the prototype is not served either.
      assert.deepInclude(yield* Effect.flip(Client.call(any, "todo", "toString", undefined)), { _tag: "NotServed" })
    }))

  it.effect("a call to an unserved procedure through a pool keeps the healthy shared connection", () =>
    Effect.gen(function*() {
      const { client } = yield* setup
      const { disposed, pool } = yield* pooled(Client.erase(client))
      const error = yield* Effect.flip(pool.use((any) => Client.call(any, "todo", "nope", undefined)))
      assert.deepInclude(error, { _tag: "NotServed" })
      assert.strictEqual(yield* pool.use((any) => Client.call(any, "todo", "count", undefined)), 0)
      assert.strictEqual(yield* pool.dials, 1)
      assert.strictEqual(yield* Ref.get(disposed), 0)
    }))

  it.effect("a snapshot-first member that ends empty fails with NoSnapshot and a pool keeps the connection", () =>
    Effect.gen(function*() {
      const Empty = Surface.make({
        cells: { x: Surface.cell(Schema.Int, 0) },
        collections: { items: Surface.collection(Schema.String, Schema.Int) },
        streams: { log: Surface.stream(Schema.String) },
        events: { ping: Surface.event(Schema.Int) }
      })
      const client = Project.make(Empty, {
        cells: { x: Stream.empty },
        collections: { items: Stream.empty },
        streams: { log: Stream.empty },
        events: { ping: Stream.empty }
      })
      const reads = [
        ["cell x", client.cells.x.read],
        ["collection items", client.collections.items.read],
        ["collection items", client.collections.items.get("a")],
        ["stream log", client.streams.log.read],
        ["event ping", client.events.ping.next]
      ] as const
      for (const [member, read] of reads) {
        const error = yield* Effect.flip(read as Effect.Effect<unknown, LinkError | Client.NoSnapshot>)
        assert.instanceOf(error, Client.NoSnapshot)
        assert.deepInclude(error, { _tag: "NoSnapshot", member })
        assert.strictEqual(error.message, `${member} ended without a value`)
      }
      const { disposed, pool } = yield* pooled(client)
      assert.deepInclude(yield* Effect.flip(pool.use((c) => c.cells.x.read)), { _tag: "NoSnapshot" })
      yield* Effect.flip(pool.use((c) => c.streams.log.read))
      assert.strictEqual(yield* pool.dials, 1)
      assert.strictEqual(yield* Ref.get(disposed), 0)
    }))

  it.effect("an implementation's undeclared verb is never callable, in process or projected", () =>
    Effect.gen(function*() {
      const Spec = Surface.make({ procedures: { a: { open: { output: Schema.String } } } })
      // Not a fresh literal, so the extra verb passes the excess-property check, as a wider object would.
      const procedures = { a: { open: () => Effect.succeed("open"), secret: () => Effect.succeed("leaked") } }
      const direct = Client.directDispatch(Implementation.make(Spec, { procedures }))
      const projected = Project.make(Spec, { procedures })
      for (const client of [direct, projected]) {
        const any = Client.erase(client)
        assert.strictEqual(yield* Client.call(any, "a", "open", undefined), "open")
        assert.deepInclude(yield* Effect.flip(Client.call(any, "a", "secret", undefined)), { _tag: "NotServed" })
        assert.deepStrictEqual(Object.keys(any.procedures["a"] ?? {}), ["open"])
      }
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

  it("a procedure's error channel is exactly its declared union and LinkError", () => {
    type Procedures = Client.Client<typeof Todos>["procedures"]["todo"]
    const complete: Equals<Effect.Error<ReturnType<Procedures["complete"]>>, NotFound | Conflict | LinkError> = true
    const add: Equals<Effect.Error<ReturnType<Procedures["add"]>>, Conflict | LinkError> = true
    const count: Equals<Effect.Error<ReturnType<Procedures["count"]>>, LinkError> = true
    // @ts-expect-error LinkError belongs to every call's channel
    const withoutLink: Equals<Effect.Error<ReturnType<Procedures["complete"]>>, NotFound | Conflict> = true
    // @ts-expect-error a read's NoSnapshot is not a procedure error
    const widened: Equals<
      Effect.Error<ReturnType<Procedures["complete"]>>,
      NotFound | Conflict | LinkError | Client.NoSnapshot
    > = true
    // @ts-expect-error "add" declares Conflict only
    const undeclared: Equals<Effect.Error<ReturnType<Procedures["add"]>>, NotFound | Conflict | LinkError> = true
    assert.deepStrictEqual([complete, add, count, withoutLink, widened, undeclared], [
      true,
      true,
      true,
      true,
      true,
      true
    ])
  })

  it("a read's error channel is exactly LinkError or NoSnapshot, and a subscription's is LinkError", () => {
    type C = Client.Client<typeof Todos>
    const cell: Equals<Effect.Error<C["cells"]["filter"]["read"]>, LinkError | Client.NoSnapshot> = true
    const item: Equals<Effect.Error<ReturnType<C["collections"]["todos"]["get"]>>, LinkError | Client.NoSnapshot> = true
    const backlog: Equals<Effect.Error<C["streams"]["log"]["read"]>, LinkError | Client.NoSnapshot> = true
    const next: Equals<Effect.Error<C["events"]["saved"]["next"]>, LinkError | Client.NoSnapshot> = true
    const changes: Equals<Stream.Error<C["cells"]["filter"]["subscribe"]>, LinkError> = true
    // @ts-expect-error a read can find its source empty, so NoSnapshot is in its channel
    const linkOnly: Equals<Effect.Error<C["cells"]["filter"]["read"]>, LinkError> = true
    assert.deepStrictEqual([cell, item, backlog, next, changes, linkOnly], [true, true, true, true, true, true])
  })

  it("a typed client is a run-time client for a concrete spec", () => {
    const check = (client: Client.Client<typeof Todos>): Client.AnyClient => client
    assert.isFunction(check)
  })
})
