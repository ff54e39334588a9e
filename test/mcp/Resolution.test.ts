// What resolution hands the MCP face: codecs compiled once per member (never rebuilt per read), and
// addresses a host can carry back unmangled — sibling keys of safe characters only, item ids
// percent-encoded.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Schema, Stream } from "effect"
import type { Client } from "effect-surface"
import { ItemUri, Resolver, Surface } from "effect-surface"
import { connect } from "./harness.ts"

const Dated = Surface.make({
  cells: { since: Surface.cell(Schema.Date, new Date(0)) },
  collections: { things: Surface.collection(Schema.String, Schema.Struct({ at: Schema.Date })) },
  procedures: { clock: { now: { output: Schema.Date } } }
})
const expose = { cells: { since: true }, collections: { things: true }, procedures: { "clock.now": true } } as const

describe("resolution", () => {
  it.effect("every resolved member, item template and procedure carries its JSON codecs, compiled once", () =>
    Effect.gen(function*() {
      const resolved = yield* Resolver.resolveBundle({ core: { surface: Dated, expose } })
      const since = resolved.byUri.get("surface://cells/since")
      const things = resolved.templateByCollection.get("things")
      const now = resolved.toolByName.get("clock_now")
      assert.isDefined(since)
      assert.isDefined(things)
      assert.isDefined(now)
      if (since === undefined || things === undefined || now === undefined || now.target._tag !== "Procedure") return
      assert.strictEqual(yield* since.encode(new Date(0)), "1970-01-01T00:00:00.000Z")
      assert.deepStrictEqual(yield* things.encode({ at: new Date(0) }), { at: "1970-01-01T00:00:00.000Z" })
      assert.strictEqual(yield* things.encodeKey("k"), "k")
      assert.strictEqual(yield* things.decodeKey("k"), "k")
      assert.strictEqual(yield* now.target.encode(new Date(0)), "1970-01-01T00:00:00.000Z")
      // The same compiled codec serves every read of a generation.
      assert.strictEqual(resolved.byUri.get("surface://cells/since")?.encode, since.encode)
    }))

  it.effect("a sibling key with a character a host would mangle is refused, naming the character", () =>
    Effect.gen(function*() {
      const member = { surface: Dated, expose: {} }
      for (const key of ["a b", "a?b", "a#b", "a%20", "{a}", "a.b", "ä"]) {
        const refused = yield* Effect.flip(Resolver.resolveBundle({ surfaces: { [key]: member } }))
        assert.strictEqual(refused._tag, "InvalidSiblingKey", key)
        if (refused._tag !== "InvalidSiblingKey") continue
        assert.strictEqual(refused.reason, "character", key)
        assert.include(refused.message, `"${key}"`)
        assert.include(refused.message, "outside A-Z, a-z, 0-9, _ and -")
      }
      const accepted = yield* Resolver.resolveBundle({ surfaces: { "jobs-2_b": member } })
      assert.deepStrictEqual(accepted.siblings, ["jobs-2_b"])
    }))

  it.live("an item id with reserved characters is read at its percent-encoded URI", () =>
    Effect.gen(function*() {
      const id = "a b?#/%{x}"
      const client: Client.AnyClient = {
        spec: Dated,
        cells: { since: { read: Effect.succeed(new Date(0)), subscribe: Stream.succeed(new Date(0)) } },
        collections: {
          things: {
            read: Effect.succeed(new Map([[id, { at: new Date(0) }]])),
            subscribe: Stream.succeed(new Map([[id, { at: new Date(0) }]])),
            get: (key: never) => Effect.succeed(key === id ? Option.some({ at: new Date(0) }) : Option.none())
          }
        },
        streams: {},
        events: {},
        procedures: {}
      }
      const c = yield* connect({
        core: { surface: Dated, expose },
        client: Effect.succeed({ core: client, clients: {} })
      })
      const resolved = yield* c.face.roster.current
      const template = resolved.templateByCollection.get("things")
      assert.isDefined(template)
      if (template === undefined) return
      const uri = ItemUri.itemUri(template, id)
      assert.strictEqual(uri, `surface://collections/things/${encodeURIComponent(id)}`)
      assert.notMatch(uri.slice("surface://".length), /[ ?#{}]/)
      const read = yield* Effect.promise(() => c.client.readResource({ uri }))
      assert.deepStrictEqual(read.contents, [{
        uri,
        mimeType: "application/json",
        text: JSON.stringify({ at: "1970-01-01T00:00:00.000Z" })
      }])
    }))
})
