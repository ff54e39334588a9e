import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as Json from "../../src/core/Json.ts"

describe("Json", () => {
  it("reads both arms of an answer off one serialization", () => {
    const out = Result.getOrThrow(Json.serialize({ at: new Date(0), n: 1 }))
    assert.strictEqual(out.text, JSON.stringify(out.structured))
    assert.deepStrictEqual(out.structured, { at: "1970-01-01T00:00:00.000Z", n: 1 })
  })

  it("wraps every non-object answer under value", () => {
    assert.deepStrictEqual(Result.getOrThrow(Json.serialize(undefined)).structured, { value: null })
    assert.deepStrictEqual(Result.getOrThrow(Json.serialize([1])).structured, { value: [1] })
  })

  // The structured arm is what the text reads back as, however it is built (a plain value is copied).
  const readBack = (value: unknown) => Json.toStructured(JSON.parse(JSON.stringify(value) ?? "null"))

  it.prop(
    "the structured arm of any JSON value is what its text reads back as, and a copy of it",
    [Schema.Json],
    ([value]) => {
      const out = Result.getOrThrow(Json.serialize(value))
      assert.strictEqual(out.text, JSON.stringify(value))
      assert.deepStrictEqual(out.structured, readBack(value))
      if (typeof value === "object" && value !== null) assert.notStrictEqual(out.structured, value)
    }
  )

  it("the structured arm of a value that is not plain JSON is what its text reads back as", () => {
    class Point {
      readonly x = 1
    }
    class Tags extends Array<string> {
      toJSON() {
        return this.join(",")
      }
    }
    let deep: unknown = { leaf: [1, -0, Number.NaN] }
    for (let i = 0; i < 200; i++) deep = { deep }
    const tricky: ReadonlyArray<unknown> = [
      { at: new Date(0), nested: [{ at: new Date(1) }] },
      { n: Number.NaN, inf: Number.POSITIVE_INFINITY, zero: -0, gone: undefined, list: [undefined, 1] },
      { custom: { toJSON: () => "custom" } },
      { point: new Point() },
      { tags: Tags.from(["a", "b"]) },
      Object.assign(Object.create(null) as object, { bare: true }),
      JSON.parse(`{"__proto__": {"polluted": true}, "ok": 1}`),
      // oxlint-disable-next-line no-sparse-arrays
      [1, , 3],
      { boxed: new String("s"), map: new Map([[1, 2]]), fn: () => 1, sym: Symbol("s") },
      -0,
      Number.NaN,
      deep
    ]
    for (const value of tricky) {
      const out = Result.getOrThrow(Json.serialize(value))
      assert.deepStrictEqual(out.structured, readBack(value))
      assert.strictEqual(JSON.stringify(out.structured), JSON.stringify(Json.toStructured(JSON.parse(out.text))))
      assert.deepStrictEqual(Result.getOrThrow(Json.normalize(value)), JSON.parse(JSON.stringify(value) ?? "null"))
    }
    // A polluted key stays a key, and no prototype was set.
    const polluted = Result.getOrThrow(Json.serialize(JSON.parse(`{"__proto__": {"polluted": true}}`))).structured
    assert.isTrue(Object.hasOwn(polluted, "__proto__"))
    assert.strictEqual(Object.getPrototypeOf(polluted), Object.prototype)
  })

  it("names the constructor of an answer with no JSON form", () => {
    const cyclic: { self?: unknown } = {}
    cyclic.self = cyclic
    const failure = Result.getFailure(Json.serialize(cyclic))
    assert.isTrue(failure._tag === "Some" && failure.value.constructorName === "Object")
    const big = Result.getFailure(Json.serialize(10n))
    assert.isTrue(big._tag === "Some" && big.value.constructorName === "BigInt")
  })
})
