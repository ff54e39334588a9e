import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
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

  it("names the constructor of an answer with no JSON form", () => {
    const cyclic: { self?: unknown } = {}
    cyclic.self = cyclic
    const failure = Result.getFailure(Json.serialize(cyclic))
    assert.isTrue(failure._tag === "Some" && failure.value.constructorName === "Object")
    const big = Result.getFailure(Json.serialize(10n))
    assert.isTrue(big._tag === "Some" && big.value.constructorName === "BigInt")
  })
})
