import { Effect, Schema, SubscriptionRef } from "effect"
import { Client, Expose, Implementation, Surface } from "effect-surface"

// 1. Declare what the app offers, once, with Effect Schema.
export const Counter = Surface.make({
  cells: { count: Surface.cell(Schema.Int, 0) },
  procedures: {
    counter: {
      add: { input: Schema.Int, output: Schema.Int, description: "Add to the count and return it" },
      reset: { description: "Set the count back to zero" }
    }
  }
})

// 2. Say what crosses to an agent. Nothing does until it is named; a typo does not compile.
export const expose = Expose.make(Counter, { cells: { count: true }, procedures: { "counter.add": true } })

// 3. Implement it with Effect values; a mismatch with the declaration does not compile.
export const counter = Effect.gen(function*() {
  const cells = yield* Implementation.cells(Counter)
  return Implementation.make(Counter, {
    cells,
    procedures: {
      counter: {
        add: (n) => SubscriptionRef.updateAndGet(cells.count, (count) => count + n),
        reset: () => SubscriptionRef.set(cells.count, 0)
      }
    }
  })
})

// 4. Reach it through a typed client — in process here; every face dispatches the same way.
export const program = Effect.gen(function*() {
  const client = Client.directDispatch(yield* counter)
  yield* client.procedures.counter.add(2)
  return yield* client.cells.count.read // 2
})

// 5. Run this file (`node examples/quickstart.ts`) to see it answer; imported, it only declares.
if (import.meta.main) {
  console.log(`counter.add(2) through the in-process client: count is now ${await Effect.runPromise(program)}`)
  console.log("Nothing is served yet: examples/serve/stdio.ts serves this counter to an agent over stdio.")
}
