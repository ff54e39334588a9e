import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Option, Stream } from "effect"
import * as Log from "../../src/surface/Log.ts"

describe("Log", () => {
  it.effect("a log's capacity is a whole number of at least one, or the log is not made", () =>
    Effect.gen(function*() {
      for (const capacity of [Number.NaN, 2.5, 0, -1, Number.POSITIVE_INFINITY]) {
        const exit = yield* Effect.exit(Log.make<string>({ capacity }))
        assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause), `capacity ${capacity} was accepted`)
        if (Exit.isFailure(exit))
          assert.include(
            String(Cause.squash(exit.cause)),
            `capacity must be a whole number of at least 1, got ${capacity}`
          )
      }
    }))

  it.effect("a log keeps exactly its capacity of backlog", () =>
    Effect.gen(function*() {
      const log = yield* Log.make<number>({ capacity: 2 })
      yield* log.append(1, 2, 3)
      assert.deepStrictEqual(yield* log.backlog, [2, 3])
      assert.deepStrictEqual(yield* Stream.runHead(log.frames), Option.some([2, 3]))
      const byDefault = yield* Log.make<number>()
      yield* byDefault.append(...Array.from({ length: 1001 }, (_, i) => i))
      assert.strictEqual((yield* byDefault.backlog).length, 1000)
    }))
})
