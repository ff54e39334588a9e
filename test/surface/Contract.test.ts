import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema, Stream, SubscriptionRef } from "effect"
import * as Client from "../../src/surface/Client.ts"
import * as Expose from "../../src/surface/Expose.ts"
import * as Implementation from "../../src/surface/Implementation.ts"
import * as Project from "../../src/surface/Project.ts"
import * as Surface from "../../src/surface/Surface.ts"
import { makeTodos, Todos } from "./fixture.ts"

const Counter = Surface.make({
  cells: { count: Surface.cell(Schema.Int, 0) },
  procedures: { counter: { incr: { input: Schema.Int, output: Schema.Int } } }
})

describe("the declaration types every implementation", () => {
  it.effect("an implementation that matches its declaration compiles and runs", () =>
    Effect.gen(function*() {
      const cells = yield* Implementation.cells(Counter)
      const client = Client.directDispatch(Implementation.make(Counter, {
        cells,
        procedures: { counter: { incr: (by) => SubscriptionRef.updateAndGet(cells.count, (n) => n + by) } }
      }))
      assert.strictEqual(yield* client.procedures.counter.incr(2), 2)
      assert.strictEqual(yield* client.cells.count.read, 2)
    }))

  it.effect("an implementation that does not match its declaration does not compile", () =>
    Effect.gen(function*() {
      const cells = yield* Implementation.cells(Counter)
      // Each line is a distinct mismatch the checker must refuse; `npm run typecheck` fails if any
      // of them stops being an error.
      Implementation.make(Counter, {
        cells,
        // @ts-expect-error the output is declared Int, not string
        procedures: { counter: { incr: () => Effect.succeed("two") } }
      })
      Implementation.make(Counter, {
        cells,
        // @ts-expect-error the procedure declares no error, so it may not fail
        procedures: { counter: { incr: () => Effect.fail("boom") } }
      })
      // @ts-expect-error the procedures group is declared and may not be left out
      Implementation.make(Counter, { cells })
      const wrongCell = yield* SubscriptionRef.make("zero")
      Implementation.make(Counter, {
        // @ts-expect-error the cell holds an Int, not a string
        cells: { count: wrongCell },
        procedures: { counter: { incr: (n) => Effect.succeed(n) } }
      })
      assert.ok(true)
    }))
})

describe("Expose", () => {
  it("a key that names nothing does not compile where the surface is known", () => {
    // @ts-expect-error "filtr" is not a cell of Todos
    Expose.make(Todos, { cells: { filtr: true } })
    // @ts-expect-error "todo.remove" is not a procedure of Todos
    Expose.make(Todos, { procedures: { "todo.remove": true } })
    const ok = Expose.make(Todos, { cells: { filter: true }, procedures: { "todo.add": true } })
    assert.deepStrictEqual(ok.procedures, { "todo.add": true })
  })

  it.effect("a key that names nothing is refused at run time by name and face", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Expose.check(Todos, { cells: { filtr: true } }, "mcp sibling tasks"))
      assert.strictEqual(error._tag, "UnknownExposeKey")
      assert.strictEqual(error.key, "filtr")
      assert.include(error.message, `cell "filtr"`)
      assert.include(error.message, "mcp sibling tasks")
      const procedure = yield* Effect.flip(Expose.check(Todos, { procedures: { "todo.nope": true } }, "mcp"))
      assert.include(procedure.message, `procedure "todo.nope"`)
      // A map read from a config file may name an inherited property; only own members count.
      const fromConfig: Expose.AnyExposeMap = JSON.parse(`{"cells":{"toString":true}}`)
      const inherited = yield* Effect.flip(Expose.check(Todos, fromConfig, "mcp"))
      assert.strictEqual(inherited.key, "toString")
    }))

  it.effect("exposure is default-deny and a procedure mutates unless it or its entry says otherwise", () =>
    Effect.gen(function*() {
      const none = yield* Expose.check(Todos, {}, "mcp")
      assert.deepStrictEqual(none, { cells: [], collections: [], streams: [], events: [], procedures: [] })
      const some = yield* Expose.check(Todos, {
        collections: { todos: true },
        procedures: { "todo.add": true, "todo.count": true, "todo.complete": { mutates: false } }
      }, "mcp")
      assert.deepStrictEqual(some.collections, ["todos"])
      assert.deepStrictEqual(
        some.procedures.map((p) => [p.ns, p.verb, p.mutates]),
        [["todo", "add", true], ["todo", "count", false], ["todo", "complete", false]]
      )
    }))

  it.effect("a namespace may contain dots; the verb is what follows the last one", () =>
    Effect.gen(function*() {
      const Dotted = Surface.make({ procedures: { "a.b": { c: {} } } })
      const checked = yield* Expose.check(Dotted, Expose.make(Dotted, { procedures: { "a.b.c": true } }), "mcp")
      assert.deepStrictEqual(checked.procedures.map((p) => [p.ns, p.verb]), [["a.b", "c"]])
    }))

  it.effect("Expose.all names every member of its spec", () =>
    Effect.gen(function*() {
      const checked = yield* Expose.check(Todos, Expose.all(Todos), "test")
      assert.deepStrictEqual(checked.cells, ["filter"])
      assert.strictEqual(checked.procedures.length, 4)
    }))
})

describe("Project", () => {
  it.effect("a projection derives an observer-safe surface that reads like any other client", () =>
    Effect.gen(function*() {
      const { implemented } = yield* makeTodos
      const source = Client.directDispatch(implemented)
      const Observer = Surface.make({
        cells: { open: Surface.cell(Schema.Int, 0) },
        collections: { todos: Todos.collections.todos },
        streams: { log: Todos.streams.log }
      })
      const observer = Project.make(Observer, {
        cells: {
          open: source.collections.todos.subscribe.pipe(
            Stream.map((items) => [...items.values()].filter((todo) => !todo.done).length)
          )
        },
        collections: { todos: source.collections.todos.subscribe },
        streams: { log: source.streams.log.subscribe }
      })
      yield* source.procedures.todo.add({ id: "a", title: "milk" })
      yield* source.procedures.todo.add({ id: "b", title: "eggs" })
      yield* source.procedures.todo.complete("a")
      assert.strictEqual(yield* observer.cells.open.read, 1)
      assert.strictEqual((yield* observer.collections.todos.get("b"))._tag, "Some")
      assert.deepStrictEqual(yield* observer.streams.log.read, ["added a", "added b"])
      assert.deepStrictEqual(Object.keys(observer.procedures), [])
      const checked = yield* Expose.check(Observer, Expose.all(Observer), "observer")
      assert.deepStrictEqual(checked.procedures, [])
    }))

  it.effect("a derived member that ends without a value reads as a closed link, never as nothing", () =>
    Effect.gen(function*() {
      const Empty = Surface.make({ cells: { x: Surface.cell(Schema.Int, 0) } })
      const client = Project.make(Empty, { cells: { x: Stream.empty } })
      const error = yield* Effect.flip(client.cells.x.read)
      assert.strictEqual(error.phase, "closed")
      assert.include(error.message, "cell x")
    }))
})
