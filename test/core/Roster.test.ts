import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Schema, Stream } from "effect"
import type * as Bundle from "../../src/core/Bundle.ts"
import * as Resolver from "../../src/core/Resolver.ts"
import * as Roster from "../../src/core/Roster.ts"
import * as Tombstones from "../../src/core/Tombstones.ts"
import * as Surface from "../../src/surface/Surface.ts"
import * as Tools from "../../src/tools.ts"

// A core that never moves and a row surface that siblings are made of.
const Core = Surface.make({
  cells: { mode: Surface.cell(Schema.String, "on") },
  procedures: { app: { ping: { mutates: false, description: "Ping the app" } } }
})

const Row = Surface.make({
  cells: { status: Surface.cell(Schema.String, "idle") },
  collections: { items: Surface.collection(Schema.String, Schema.String) },
  procedures: { ops: { run: {}, stop: {} } }
})

const hello = Tools.make({ description: "Say hello", mutates: false, handler: () => Effect.succeed("hello") })

const core: Bundle.Member = { surface: Core, expose: { cells: { mode: true }, procedures: { "app.ping": true } } }
const bundle: Bundle.Bundle = { core, tools: { hello } }

const full: Bundle.Sibling = {
  surface: Row,
  expose: { cells: { status: true }, collections: { items: true }, procedures: { "ops.run": true, "ops.stop": true } },
  tools: { read: hello }
}
const narrow: Bundle.Sibling = { surface: Row, expose: { procedures: { "ops.stop": true } } }
const none: Bundle.Sibling = { surface: Row, expose: {} }

const toolTag = (roster: Roster.Roster, name: string) => Effect.map(roster.lookupTool(name), (found) => found._tag)

const retired = (roster: Roster.Roster, name: string) =>
  Effect.flatMap(
    roster.lookupTool(name),
    (found) =>
      found._tag === "Retired" ? Effect.succeed(found.tombstone)
        : Effect.die(`expected ${name} retired, got ${found._tag}`)
  )

const retiredUri = (roster: Roster.Roster, uri: string) =>
  Effect.flatMap(
    roster.lookupUri(uri),
    (found) =>
      found._tag === "Retired" ? Effect.succeed(found.tombstone)
        : Effect.die(`expected ${uri} retired, got ${found._tag}`)
  )

const everyName = ["t_ops_run", "t_ops_stop", "t_read"]
const everyUri = ["surface://cells/t/status", "surface://collections/t/items", "surface://collections/t/items/42"]

describe("Roster", () => {
  it.effect("make resolves the bundle at boot as generation 0", () =>
    Effect.gen(function*() {
      const roster = yield* Roster.make({ ...bundle, surfaces: { t: full } })
      const resolved = yield* roster.current
      assert.strictEqual(yield* roster.generation, 0)
      assert.deepStrictEqual(resolved.tools.map((t) => t.name), [
        "app_ping",
        "hello",
        "t_ops_run",
        "t_ops_stop",
        "t_read"
      ])
      assert.strictEqual(yield* toolTag(roster, "t_ops_run"), "Served")
      assert.deepStrictEqual(yield* roster.lookupTool("nope"), { _tag: "Unknown", name: "nope" })
    }))

  it.effect("make refuses a bundle exactly as the resolver does", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Roster.make({}))
      assert.strictEqual(error._tag, "EmptyBundle")
    }))

  it.effect("a reroster replaces the sibling map whole while the core and root tools stay", () =>
    Effect.gen(function*() {
      const roster = yield* Roster.make({ ...bundle, surfaces: { t: full } })
      const next = yield* roster.reroster({ u: narrow })
      assert.strictEqual(yield* roster.current, next)
      assert.strictEqual(yield* roster.generation, 1)
      assert.deepStrictEqual(next.siblings, ["u"])
      assert.deepStrictEqual(next.advertisedTools.map((t) => t["name"]), ["app_ping", "hello", "u_ops_stop"])
      assert.deepStrictEqual(next.advertisedResources.map((r) => r["uri"]), ["surface://cells/mode"])
      assert.strictEqual(next.bundle.core, core)
    }))

  it.effect("a refused roster leaves the current one as the same object at the same generation", () =>
    Effect.gen(function*() {
      const roster = yield* Roster.make({ ...bundle, surfaces: { t: full } })
      const before = yield* roster.snapshot
      const error = yield* Effect.flip(
        roster.reroster({ t: full, x: { surface: Row, expose: {}, tools: { "bad name": hello } } })
      )
      assert.strictEqual(error._tag, "InvalidToolName")
      const emptyKey = yield* Effect.flip(roster.reroster({ a: none, "": none }))
      assert.strictEqual(emptyKey._tag, "InvalidSiblingKey")
      const after = yield* roster.snapshot
      assert.strictEqual(after, before)
      assert.strictEqual(after.resolved, before.resolved)
      assert.strictEqual(yield* roster.generation, 0)
      assert.strictEqual(yield* toolTag(roster, "t_ops_run"), "Served")
    }))

  it.effect("the list answers are built once per generation: every read gives the same arrays", () =>
    Effect.gen(function*() {
      const roster = yield* Roster.make({ ...bundle, surfaces: { t: full } })
      const a = yield* roster.current
      const b = yield* roster.current
      assert.strictEqual(a.advertisedTools, b.advertisedTools)
      assert.strictEqual(a.advertisedResources, b.advertisedResources)
      assert.strictEqual(a.advertisedResourceTemplates, b.advertisedResourceTemplates)
      yield* roster.reroster({ t: full })
      const c = yield* roster.current
      assert.notStrictEqual(c.advertisedTools, a.advertisedTools)
      assert.strictEqual((yield* roster.current).advertisedTools, c.advertisedTools)
    }))

  it.effect("changes starts with the current roster and then follows every accepted move, not refused ones", () =>
    Effect.gen(function*() {
      const roster = yield* Roster.make({ ...bundle, surfaces: { t: full } })
      const subscribed = yield* Deferred.make<void>()
      const seen = yield* roster.changes.pipe(
        Stream.tap(() => Deferred.succeed(subscribed, undefined)),
        Stream.take(3),
        Stream.runCollect,
        Effect.forkChild
      )
      yield* Deferred.await(subscribed)
      yield* roster.reroster({})
      yield* Effect.flip(roster.reroster({ "a/b": none }))
      yield* roster.reroster({ t: narrow })
      const siblings = (yield* Fiber.join(seen)).map((r) => r.siblings)
      assert.deepStrictEqual(siblings, [["t"], [], ["t"]])
    }))

  it.effect("a name whose sibling left is tombstoned as SiblingLeft with a sentence naming it", () =>
    Effect.gen(function*() {
      const roster = yield* Roster.make({ ...bundle, surfaces: { t: full } })
      yield* roster.reroster({})
      const tool = yield* retired(roster, "t_ops_run")
      assert.strictEqual(tool.reason, "SiblingLeft")
      assert.strictEqual(tool.sibling, "t")
      assert.strictEqual(tool.retiredAt, 1)
      assert.strictEqual(
        tool.message,
        "tool \"t_ops_run\" is no longer served: sibling \"t\" left the roster; re-read the tool list"
      )
      const bespoke = yield* retired(roster, "t_read")
      assert.strictEqual(bespoke.reason, "SiblingLeft")
      const cell = yield* retiredUri(roster, "surface://cells/t/status")
      assert.strictEqual(
        cell.message,
        "resource \"surface://cells/t/status\" is no longer served: sibling \"t\" left the roster; re-read the resource list"
      )
      const item = yield* retiredUri(roster, "surface://collections/t/items/42")
      assert.strictEqual(
        item.message,
        "resources under \"surface://collections/t/items/{id}\" are no longer served: sibling \"t\" left the roster; re-read the resource template list"
      )
      // The core and the root tools are in every generation.
      assert.strictEqual(yield* toolTag(roster, "app_ping"), "Served")
      assert.strictEqual(yield* toolTag(roster, "hello"), "Served")
    }))

  it.effect("a name a standing sibling stopped exposing is tombstoned as NoLongerExposed", () =>
    Effect.gen(function*() {
      const roster = yield* Roster.make({ ...bundle, surfaces: { t: full } })
      yield* roster.reroster({ t: narrow })
      const tool = yield* retired(roster, "t_ops_run")
      assert.strictEqual(tool.reason, "NoLongerExposed")
      assert.strictEqual(
        tool.message,
        "tool \"t_ops_run\" is no longer served: sibling \"t\" is still on the roster but no longer exposes it; re-read the tool list"
      )
      assert.strictEqual(yield* toolTag(roster, "t_ops_stop"), "Served")
      assert.strictEqual((yield* retiredUri(roster, "surface://collections/t/items")).reason, "NoLongerExposed")
    }))

  it.effect("ownership comes from resolution, not from the name's first segment", () =>
    Effect.gen(function*() {
      const roster = yield* Roster.make({ ...bundle, surfaces: { a: none, a_b: full } })
      yield* roster.reroster({ a: none })
      const tool = yield* retired(roster, "a_b_ops_run")
      assert.strictEqual(tool.sibling, "a_b")
      assert.strictEqual(tool.reason, "SiblingLeft")
    }))

  it.effect("a sibling that narrows to zero members and then leaves keeps every tombstone, now as SiblingLeft", () =>
    Effect.gen(function*() {
      const roster = yield* Roster.make({ ...bundle, surfaces: { t: full } })
      yield* roster.reroster({ t: none })
      for (const name of everyName) assert.strictEqual((yield* retired(roster, name)).reason, "NoLongerExposed")
      yield* roster.reroster({})
      for (const name of everyName) assert.strictEqual((yield* retired(roster, name)).reason, "SiblingLeft")
      for (const uri of everyUri) assert.strictEqual((yield* retiredUri(roster, uri)).reason, "SiblingLeft")
    }))

  it.effect("a tombstone survives its sibling's return and that return's own departure", () =>
    Effect.gen(function*() {
      const roster = yield* Roster.make({ ...bundle, surfaces: { t: full } })
      yield* roster.reroster({})
      yield* roster.reroster({ t: narrow })
      // Served again resolves as served; what the return did not bring back stays retired, re-worded.
      assert.strictEqual(yield* toolTag(roster, "t_ops_stop"), "Served")
      assert.strictEqual((yield* retired(roster, "t_ops_run")).reason, "NoLongerExposed")
      yield* roster.reroster({})
      for (const name of everyName) assert.strictEqual((yield* retired(roster, name)).reason, "SiblingLeft")
      assert.strictEqual((yield* retired(roster, "t_ops_stop")).retiredAt, 3)
      assert.strictEqual((yield* retired(roster, "t_ops_run")).retiredAt, 1)
    }))

  it.effect("a name retired again gets the new retirement's reason", () =>
    Effect.gen(function*() {
      const roster = yield* Roster.make({ ...bundle, surfaces: { t: full } })
      yield* roster.reroster({ t: narrow })
      assert.strictEqual((yield* retired(roster, "t_ops_run")).reason, "NoLongerExposed")
      yield* roster.reroster({ t: full })
      assert.strictEqual(yield* toolTag(roster, "t_ops_run"), "Served")
      yield* roster.reroster({})
      const again = yield* retired(roster, "t_ops_run")
      assert.strictEqual(again.reason, "SiblingLeft")
      assert.strictEqual(again.retiredAt, 3)
    }))

  it.effect("the tombstone table holds at most cap entries, forgetting the oldest retirement first", () =>
    Effect.gen(function*() {
      assert.strictEqual(Tombstones.DEFAULT_CAP, 10_000)
      const only = (name: string): Bundle.Sibling => ({ surface: Row, expose: {}, tools: { [name]: hello } })
      const roster = yield* Roster.make({ ...bundle, surfaces: { t: only("a") } }, { cap: 2 })
      yield* roster.reroster({ t: only("b") })
      yield* roster.reroster({ t: only("c") })
      yield* roster.reroster({ t: only("d") })
      assert.strictEqual(yield* toolTag(roster, "t_a"), "Unknown")
      assert.strictEqual(yield* toolTag(roster, "t_b"), "Retired")
      assert.strictEqual(yield* toolTag(roster, "t_c"), "Retired")
      assert.strictEqual((yield* roster.snapshot).tombstones.size, 2)
      // One move retiring more than the cap keeps the last retired of that move.
      yield* roster.reroster({})
      assert.deepStrictEqual([...(yield* roster.snapshot).tombstones.values()].map((t) => t.name), ["t_c", "t_d"])
    }))

  it.effect("a cap of zero remembers nothing and every retired name answers unknown", () =>
    Effect.gen(function*() {
      const roster = yield* Roster.make({ ...bundle, surfaces: { t: full } }, { cap: 0 })
      yield* roster.reroster({})
      assert.strictEqual(yield* toolTag(roster, "t_ops_run"), "Unknown")
      assert.deepStrictEqual(yield* roster.lookupUri("surface://cells/t/status"), {
        _tag: "Unknown",
        uri: "surface://cells/t/status"
      })
    }))

  it.effect("lookupUri answers a resource, an item with its decoded id, or unknown", () =>
    Effect.gen(function*() {
      const roster = yield* Roster.make({ ...bundle, surfaces: { t: full } })
      const resource = yield* roster.lookupUri("surface://collections/t/items")
      assert.strictEqual(resource._tag, "Resource")
      const item = yield* roster.lookupUri("surface://collections/t/items/a%2Fb")
      assert.strictEqual(item._tag === "Item" ? item.id : undefined, "a/b")
      assert.strictEqual((yield* roster.lookupUri("surface://cells/nothing"))._tag, "Unknown")
    }))

  it.effect("concurrent moves apply one at a time, each counted", () =>
    Effect.gen(function*() {
      const roster = yield* Roster.make({ ...bundle, surfaces: { t: full } })
      yield* Effect.forEach([full, narrow, none, full, narrow], (t) => roster.reroster({ t }), {
        concurrency: "unbounded"
      })
      assert.strictEqual(yield* roster.generation, 5)
    }))

  it.effect("the layer provides the roster as a service and fails with the bundle's refusal", () =>
    Effect.gen(function*() {
      const generation = yield* Effect.gen(function*() {
        const roster = yield* Roster.Roster
        yield* roster.reroster({ t: full })
        return yield* roster.generation
      }).pipe(Effect.provide(Roster.layer(bundle)), Effect.provide(Resolver.layer))
      assert.strictEqual(generation, 1)
      const needsRoster = Effect.gen(function*() {
        return yield* Roster.Roster
      })
      const error = yield* Effect.flip(
        Effect.provide(needsRoster, Roster.layer({}).pipe(Layer.provide(Resolver.layer)))
      )
      assert.strictEqual(error._tag, "EmptyBundle")
    }))
})
