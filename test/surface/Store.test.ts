import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Store from "../../src/surface/Store.ts"

describe("Store", () => {
  it.effect("a stored undefined is present: get is Some(undefined) and update sees it", () =>
    Effect.gen(function*() {
      const store = yield* Store.make<string, number | undefined>([["a", undefined]])
      assert.deepStrictEqual(yield* store.get("a"), Option.some(undefined))
      assert.deepStrictEqual(yield* store.get("b"), Option.none())
      let seen: Option.Option<number | undefined> = Option.none()
      yield* store.update("a", (current) => {
        seen = current
        return current
      })
      assert.deepStrictEqual(seen, Option.some(undefined))
      assert.isTrue((yield* store.snapshot).has("a"))
    }))
})
