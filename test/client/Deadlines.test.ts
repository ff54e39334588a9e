// A connection's request deadlines are kept by one fiber on the Clock: whatever the mix of
// durations, arming times and disarms, each armed deadline fires once, at its expiry and not
// before, and a disarmed one never fires.
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Schema } from "effect"
import { TestClock } from "effect/testing"
import * as Deadlines from "../../src/client/internal/deadlines.ts"

const Plan = Schema.Array(Schema.Struct({
  // a few durations, so several entries share one
  ms: Schema.Literals([1, 5, 20, 37]),
  armAt: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 40 })),
  disarm: Schema.Boolean
})).check(Schema.isMaxLength(30))

const HORIZON = 90

describe("request deadlines", () => {
  it.effect.prop(
    "each armed deadline fires once at its expiry, a disarmed one never",
    { plan: Plan },
    ({ plan }) =>
      Effect.gen(function*() {
        const deadlines = yield* Deadlines.make
        const clock = yield* Clock.Clock
        const fired = plan.map(() => [] as Array<number>)
        const disarms: Array<() => void> = []
        for (let t = 0; t <= HORIZON; t++) {
          plan.forEach((entry, i) => {
            if (entry.armAt !== t) return
            disarms[i] = deadlines.arm(entry.ms, () => void fired[i]!.push(clock.currentTimeMillisUnsafe()))
            if (entry.disarm) disarms[i]!()
          })
          yield* TestClock.adjust("1 millis")
        }
        plan.forEach((entry, i) => {
          assert.deepStrictEqual(fired[i], entry.disarm ? [] : [entry.armAt + entry.ms], JSON.stringify(entry))
        })
      })
  )

  it.effect("a deadline sooner than the one slept towards wakes the fiber; disarming after expiry does nothing", () =>
    Effect.gen(function*() {
      const deadlines = yield* Deadlines.make
      const order: Array<string> = []
      deadlines.arm(60_000, () => void order.push("slow"))
      yield* TestClock.adjust("1 second")
      const quick = deadlines.arm(1_000, () => void order.push("quick"))
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(order, ["quick"])
      quick()
      yield* TestClock.adjust("58 seconds")
      assert.deepStrictEqual(order, ["quick", "slow"])
    }))
})
