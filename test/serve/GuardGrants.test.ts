// What a guard forwards, checked in front of an upstream that logs every call it receives: only
// keys the reviewed schema names, only definitions that have not moved, and no call a request guard
// of the guard file refuses.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Audit } from "effect-surface/serve"
import { bank, grants, guardOf } from "./bank.ts"

const textOf = (result: { readonly content: ReadonlyArray<unknown> }): string => {
  const first = result.content[0]
  return typeof first === "object" && first !== null && "text" in first && typeof first.text === "string" ? first.text
    : ""
}

describe("keys the lock does not name", () => {
  it.live(
    "are refused, not forwarded, at the top and inside an argument; the served schema closes each object",
    () =>
      Effect.gen(function*() {
        const b = yield* bank()
        const guard = yield* guardOf(b)
        const alias = yield* guard.execute("mcp", "transfer", { to: "acct-1", amount: 5, AMOUNT: 5000 })
        assert.strictEqual(textOf(alias), `effect-surface: value at "AMOUNT": unexpected field`)
        const nested = yield* guard.execute("mcp", "transfer", { to: "acct-1", amount: 5, extra: { amount: 9999 } })
        assert.strictEqual(textOf(nested), `effect-surface: value at "extra": unexpected field`)
        assert.deepStrictEqual(yield* b.calls, [])
        const served = guard.tools.find((tool) => tool.name === "transfer")
        assert.strictEqual(served?.inputSchema["additionalProperties"], false)
        const rows = yield* Audit.read(b.audit)
        assert.deepStrictEqual(rows.map((row) => row.reason), [
          `value at "AMOUNT": unexpected field`,
          `value at "extra": unexpected field`
        ])
      }),
    60_000
  )

  it.live(`are forwarded when the grant says "allow-extra-keys"`, () =>
    Effect.gen(function*() {
      const b = yield* bank({ grants: { ...grants, transfer: { ...grants.transfer, "allow-extra-keys": true } } })
      const guard = yield* guardOf(b)
      const sent = yield* guard.execute("mcp", "transfer", { to: "acct-1", amount: 5, note: "rent" })
      assert.strictEqual(textOf(sent), "transfer ran")
      assert.deepStrictEqual(yield* b.calls, [{
        name: "transfer",
        arguments: { to: "acct-1", amount: 5, note: "rent" }
      }])
      assert.isUndefined(guard.tools.find((tool) => tool.name === "transfer")?.inputSchema["additionalProperties"])
    }), 60_000)
})
