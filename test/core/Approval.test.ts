import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Approval from "../../src/core/Approval.ts"

const request: Approval.Request = { toolName: "files__write", server: "files", tool: "write", args: { path: "a" } }

describe("Approval", () => {
  it.effect("asking with no Approval provided is a denial that says no one was there to ask", () =>
    Effect.gen(function*() {
      const decision = yield* Approval.ask(request)
      assert.strictEqual(decision._tag, "Deny")
      assert.include(decision._tag === "Deny" ? decision.reason : "", "no one is there to ask")
    }))

  it.effect("asking puts the whole request to the provided Approval and answers its decision", () =>
    Effect.gen(function*() {
      const seen: Array<Approval.Request> = []
      const decision = yield* Approval.ask(request).pipe(
        Effect.provideService(
          Approval.Approval,
          Approval.Approval.of({ decide: (r) => Effect.sync(() => (seen.push(r), Approval.allow)) })
        )
      )
      assert.deepStrictEqual(decision, Approval.allow)
      assert.deepStrictEqual(seen, [request])
    }))

  it.effect("a fixed layer answers every question the same way", () =>
    Effect.gen(function*() {
      const decision = yield* Approval.ask(request).pipe(
        Effect.provide(Approval.layer(Approval.deny("not in batch mode")))
      )
      assert.deepStrictEqual(decision, { _tag: "Deny", reason: "not in batch mode" })
    }))
})
