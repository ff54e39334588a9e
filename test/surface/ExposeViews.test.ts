// A procedure is shown as a view where it is exposed: its entry's `view`, or the map's `views` for the
// whole surface, typed against the surface and checked again at run time as any entry is; the
// resolved tool carries what the map said (and nothing where it said nothing), for the face that
// renders views to decide on.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Expose, Resolver } from "effect-surface"
import { Todos } from "./fixture.ts"

describe("views in the expose map", () => {
  it.effect("an entry's view is what the map's views says for every procedure it does not name itself", () =>
    Effect.gen(function*() {
      const viewOf = (map: Expose.ExposeMap<typeof Todos>) =>
        Effect.map(
          Expose.check(Todos, map, "mcp"),
          (checked) => Object.fromEntries(checked.procedures.map((p) => [`${p.ns}.${p.verb}`, p.view]))
        )
      const procedures = { "todo.add": { view: true }, "todo.count": { view: false }, "todo.wait": true } as const
      assert.deepStrictEqual(yield* viewOf({ procedures }), {
        "todo.add": true,
        "todo.count": false,
        "todo.wait": undefined
      })
      assert.deepStrictEqual(yield* viewOf({ procedures, views: true }), {
        "todo.add": true,
        "todo.count": false,
        "todo.wait": true
      })
      assert.deepStrictEqual(yield* viewOf({ procedures, views: false }), {
        "todo.add": true,
        "todo.count": false,
        "todo.wait": false
      })
    }))

  it.effect("the resolved tool carries the map's word, and a surface's map speaks only for its own tools", () =>
    Effect.gen(function*() {
      const resolved = yield* Resolver.resolveBundle({
        core: {
          surface: Todos,
          expose: { procedures: { "todo.add": true, "todo.count": { view: false } }, views: true }
        },
        surfaces: { t: { surface: Todos, expose: { procedures: { "todo.add": true } } } }
      })
      const viewOf = (name: string) => resolved.toolByName.get(name)?.view
      assert.deepStrictEqual(
        ["todo_add", "todo_count", "t_todo_add"].map(viewOf),
        [true, false, undefined]
      )
    }))

  it.effect("a view or views that is not true or false is refused, naming where it was written", () =>
    Effect.gen(function*() {
      const refused = (map: unknown) => Effect.flip(Expose.check(Todos, map, "mcp"))
      const entry = yield* refused({ procedures: { "todo.add": { view: "yes" } } })
      assert.deepInclude(entry, { _tag: "InvalidExposeEntry", group: "procedures", key: "todo.add" })
      assert.include(entry.message, `procedure "todo.add": "view" is "yes": it must be true or false`)
      const map = yield* refused({ procedures: { "todo.add": true }, views: 1 })
      assert.deepInclude(map, { _tag: "InvalidExposeEntry", key: "views" })
      assert.strictEqual(map.message, `the expose map for mcp has an invalid "views": it is 1, not true or false`)
      // A member that is not a procedure has no tool, and so no view.
      const member = yield* refused({ cells: { filter: { scope: "a", view: true } } })
      assert.include(member.message, `unknown field "view"`)
      // Beside the groups, views is the one other key a map may hold.
      const group = yield* refused({ view: true })
      assert.include(
        group.message,
        `invalid group "view": an expose map's groups are cells, collections, streams, events, procedures (beside them, views: true or false)`
      )
    }))

  it("views is typed against the map", () => {
    Expose.make(Todos, { procedures: { "todo.add": { view: true, scope: "todos:write" } }, views: true })
    // @ts-expect-error an entry's view is true or false
    Expose.make(Todos, { procedures: { "todo.add": { view: "yes" } } })
    // @ts-expect-error a cell has no tool, so no view
    Expose.make(Todos, { cells: { filter: { scope: "a", view: true } } })
    // @ts-expect-error the map's views is true or false
    Expose.make(Todos, { views: "all" })
  })
})
