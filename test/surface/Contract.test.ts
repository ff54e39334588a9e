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
      assert.deepInclude(error, { _tag: "UnknownExposeKey", key: "filtr" })
      assert.include(error.message, `cell "filtr"`)
      assert.include(error.message, "mcp sibling tasks")
      const procedure = yield* Effect.flip(Expose.check(Todos, { procedures: { "todo.nope": true } }, "mcp"))
      assert.include(procedure.message, `procedure "todo.nope"`)
      // A map read from a config file may name an inherited property; only own members count.
      const fromConfig: Expose.AnyExposeMap = JSON.parse(`{"cells":{"toString":true}}`)
      const inherited = yield* Effect.flip(Expose.check(Todos, fromConfig, "mcp"))
      assert.deepInclude(inherited, { _tag: "UnknownExposeKey", key: "toString" })
    }))

  it.effect("exposure is default-deny and a procedure mutates unless it or its entry says otherwise", () =>
    Effect.gen(function*() {
      const none = yield* Expose.check(Todos, {}, "mcp")
      assert.deepStrictEqual(none, {
        cells: [],
        collections: [],
        streams: [],
        events: [],
        procedures: [],
        scopes: new Map()
      })
      const some = yield* Expose.check(Todos, {
        collections: { todos: true },
        procedures: { "todo.add": true, "todo.count": true, "todo.complete": { mutates: false } }
      }, "mcp")
      assert.deepStrictEqual(some.collections, ["todos"])
      assert.deepStrictEqual(
        some.procedures.map((p) => [p.ns, p.verb, p.mutates]),
        [["todo", "add", true], ["todo", "complete", false], ["todo", "count", false]]
      )
    }))

  it.effect("a namespace may contain dots; the verb is what follows the last one", () =>
    Effect.gen(function*() {
      const Dotted = Surface.make({ procedures: { "a.b": { c: {} } } })
      const checked = yield* Expose.check(Dotted, Expose.make(Dotted, { procedures: { "a.b.c": true } }), "mcp")
      assert.deepStrictEqual(checked.procedures.map((p) => [p.ns, p.verb]), [["a.b", "c"]])
    }))

  it.effect("only true or { mutates?: boolean } exposes a procedure; false and absence deny", () =>
    Effect.gen(function*() {
      const fromConfig: unknown = JSON.parse(
        `{"procedures":{"todo.add":false,"todo.count":{},"todo.complete":{"mutates":false}}}`
      )
      const checked = yield* Expose.check(Todos, fromConfig, "mcp")
      assert.deepStrictEqual(
        checked.procedures.map((p) => [`${p.ns}.${p.verb}`, p.mutates]),
        [["todo.complete", false], ["todo.count", false]]
      )
      const members = yield* Expose.check(Todos, { cells: { filter: false }, events: { saved: undefined } }, "mcp")
      assert.deepStrictEqual([members.cells, members.events], [[], []])
    }))

  it.effect("a malformed expose map is a typed refusal naming the key and what was wrong", () =>
    Effect.gen(function*() {
      const refusal = (map: unknown) => Effect.flip(Expose.check(Todos, map, "mcp"))
      const cases: ReadonlyArray<readonly [unknown, Partial<Expose.InvalidExposeEntry>, string]> = [
        [
          { procedures: { "todo.add": null } },
          { group: "procedures", key: "todo.add" },
          `procedure "todo.add": null is not an entry`
        ],
        [
          { procedures: { "todo.add": { mutates: "no" } } },
          { group: "procedures", key: "todo.add" },
          `"mutates" is "no": it must be true or false`
        ],
        [
          { procedures: { "todo.add": { mutate: false } } },
          { group: "procedures", key: "todo.add" },
          `unknown field "mutate"`
        ],
        [{ procedures: { "todo.add": "yes" } }, { group: "procedures", key: "todo.add" }, `"yes" is not an entry`],
        [{ procedures: { "todo.add": [] } }, { group: "procedures", key: "todo.add" }, `an array is not an entry`],
        [{ cells: { filter: 1 } }, { group: "cells", key: "filter" }, `cell "filter": 1 is not an entry`],
        [
          { collections: { todos: { mutates: false } } },
          { group: "collections", key: "todos" },
          `unknown field "mutates": a member is exposed by true or { scope: string }`
        ],
        [
          { cells: { filter: { scope: "has space" } } },
          { group: "cells", key: "filter" },
          `"scope" is "has space": it must be one OAuth scope`
        ],
        [
          { procedures: { "todo.add": { scope: 7 } } },
          { group: "procedures", key: "todo.add" },
          `"scope" is 7: it must be one OAuth scope`
        ],
        [{ cells: null }, { key: "cells" }, `invalid group "cells": it is null`],
        [{ procedure: { "todo.add": true } }, { key: "procedure" }, `invalid group "procedure"`],
        [null, { key: "" }, `the expose map for mcp is invalid: it is null`],
        [["cells"], { key: "" }, `it is an array`]
      ]
      for (const [map, fields, text] of cases) {
        const error = yield* refusal(map)
        assert.instanceOf(error, Expose.InvalidExposeEntry, JSON.stringify(map))
        assert.deepInclude(error, { _tag: "InvalidExposeEntry", face: "mcp", ...fields })
        assert.include(error.message, text)
      }
    }))

  it.effect("a key inherited through the map's prototype exposes nothing", () =>
    Effect.gen(function*() {
      const inheritedEntry = { cells: Object.create({ filter: true }), procedures: Object.create({ "todo.add": true }) }
      const inheritedGroup = Object.create({ cells: { filter: true }, procedures: { "todo.add": true } })
      for (const map of [inheritedEntry, inheritedGroup]) {
        const checked = yield* Expose.check(Todos, map, "mcp")
        assert.deepStrictEqual([checked.cells, checked.procedures], [[], []])
      }
    }))

  it.effect("checked procedures come back in spec order, whatever order the map was written in", () =>
    Effect.gen(function*() {
      const checked = yield* Expose.check(Todos, {
        procedures: { "todo.wait": true, "todo.count": true, "todo.add": true }
      }, "mcp")
      assert.deepStrictEqual(checked.procedures.map((p) => p.verb), ["add", "count", "wait"])
    }))

  it.effect("a dotted verb does not compile, and a spec that has one is refused at run time", () =>
    Effect.gen(function*() {
      // @ts-expect-error a verb may not contain a dot; put it in the namespace
      Surface.make({ procedures: { a: { "b.c": {} } } })
      // Both spellings below would be the address "a.b.c": a run-time spec carrying the dotted verb
      // is refused before any map is read, so they cannot collapse into one exposed procedure.
      const Colliding: Surface.Spec = {
        cells: {},
        collections: {},
        streams: {},
        events: {},
        procedures: { "a.b": { c: { mutates: false } }, a: { "b.c": {} } }
      }
      const error = yield* Effect.flip(Expose.check(Colliding, Expose.all(Colliding), "mcp"))
      assert.instanceOf(error, Expose.DottedVerb)
      assert.deepInclude(error, { _tag: "DottedVerb", face: "mcp", ns: "a", verb: "b.c" })
      assert.include(error.message, "a verb may not contain a dot")
      const unexposed = yield* Effect.flip(Expose.check(Colliding, {}, "mcp"))
      assert.strictEqual(unexposed._tag, "DottedVerb")
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

  it.effect("a derived member that ends without a value reads as NoSnapshot, never as nothing or a broken link", () =>
    Effect.gen(function*() {
      const Empty = Surface.make({ cells: { x: Surface.cell(Schema.Int, 0) } })
      const client = Project.make(Empty, { cells: { x: Stream.empty } })
      const error = yield* Effect.flip(client.cells.x.read)
      assert.strictEqual(error._tag, "NoSnapshot")
      assert.include(error.message, "cell x")
    }))
})
