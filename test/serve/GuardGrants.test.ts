// What a guard forwards, checked in front of an upstream that logs every call it receives: only
// keys the reviewed schema names, only definitions that have not moved, and no call a request guard
// of the guard file refuses.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Audit } from "effect-surface/serve"
import { balance, bank, closeAccount, grants, guardOf, hold, servedOver, textOf, transfer } from "./bank.ts"

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

describe("a definition that moved from the lock", () => {
  it.live(
    "is refused when its annotations or its _meta changed, and the refusal is audited",
    () =>
      Effect.gen(function*() {
        const b = yield* bank()
        yield* b.set([
          { ...transfer, annotations: { ...transfer.annotations, destructiveHint: true } },
          { ...balance, _meta: { "bank.example/route": "elsewhere" } },
          hold,
          closeAccount
        ])
        const guard = yield* guardOf(b)
        const flipped = yield* guard.execute("mcp", "transfer", { to: "acct-1", amount: 5 })
        assert.include(textOf(flipped), `tool "transfer" changed upstream since the lock was written`)
        const rerouted = yield* guard.execute("mcp", "balance", { account: "acct-1" })
        assert.include(textOf(rerouted), `tool "balance" changed upstream since the lock was written`)
        assert.deepStrictEqual(yield* b.calls, [])
        const rows = yield* Audit.read(b.audit)
        assert.deepStrictEqual(rows.map((row) => [row.tool, row.decision, row.outcome]), [
          ["transfer", "deny", "refused"],
          ["balance", "deny", "refused"]
        ])
      }),
    60_000
  )

  it.live("is served with every annotation the lock holds, verbatim", () =>
    Effect.gen(function*() {
      const b = yield* bank()
      const client = yield* servedOver(b)
      const { tools } = yield* Effect.promise(() => client.listTools())
      const listed = (name: string) => tools.find((tool) => tool.name === name)
      assert.deepStrictEqual(listed("transfer")?.annotations, transfer.annotations)
      assert.deepStrictEqual(listed("transfer")?._meta, transfer._meta)
      assert.deepStrictEqual(listed("balance")?.annotations, balance.annotations)
    }), 60_000)
})
