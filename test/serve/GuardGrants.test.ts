// What a guard forwards, checked in front of an upstream that logs every call it receives: only
// keys the reviewed schema names, only definitions that have not moved, and no call a request guard
// of the guard file refuses.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Audit } from "effect-surface/guard"
import { runBin } from "../bin.ts"
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

describe("the shell door", () => {
  it.live(
    "a tool not granted is refused in the MCP door's sentence, with the same deny row",
    () =>
      Effect.gen(function*() {
        const b = yield* bank()
        const client = yield* servedOver(b)
        const overMcp = yield* Effect.flip(
          Effect.tryPromise(() => client.callTool({ name: "close_account", arguments: { account: "acct-1" } }))
        )
        assert.include(String(overMcp.cause), `unknown tool "close_account"`)
        const denied = yield* runBin(["guard", "call", b.guardFile, "close-account", "--account", "acct-1"])
        assert.notStrictEqual(denied.status, 0)
        assert.strictEqual(denied.stdout, "")
        assert.strictEqual(denied.stderr, `effect-surface: tool "close_account" is not granted by this guard\n`)
        const unnamed = yield* runBin(["guard", "call", b.guardFile, "launder", "--amount", "1e6"])
        assert.strictEqual(unnamed.stderr, `effect-surface: tool "launder" is not granted by this guard\n`)
        const rows = yield* Audit.read(b.audit)
        assert.deepStrictEqual(rows.map((row) => [row.door, row.tool, row.decision, row.outcome, row.reason]), [
          ["mcp", "close_account", "deny", "refused", `tool "close_account" is not granted by this guard`],
          ["cli", "close_account", "deny", "refused", `tool "close_account" is not granted by this guard`],
          ["cli", "launder", "deny", "refused", `tool "launder" is not granted by this guard`]
        ])
        assert.deepStrictEqual(yield* b.calls, [])
      }),
    60_000
  )

  it.live(
    "a mistake in the arguments is one sentence on stderr and a failing exit; stdout holds answers only",
    () =>
      Effect.gen(function*() {
        const b = yield* bank()
        for (
          const [args, says] of [
            [["transfer", "--to", "acct-1", "--amount", "lots"], "Invalid value for flag --amount"],
            [["transfer", "--to", "acct-1", "--amount", "5", "--AMOUNT", "5000"], "Unrecognized flag: --AMOUNT"]
          ] as const
        ) {
          const wrong = yield* runBin(["guard", "call", b.guardFile, ...args])
          assert.notStrictEqual(wrong.status, 0)
          assert.strictEqual(wrong.stdout, "", args.join(" "))
          assert.include(wrong.stderr, says)
          assert.include(wrong.stderr, `(see effect-surface guard call ${b.guardFile} transfer --help)`)
          assert.strictEqual(wrong.stderr.trimEnd().split("\n").length, 1, wrong.stderr)
        }
        const stray = yield* runBin(["guard", "frobnicate"])
        assert.notStrictEqual(stray.status, 0)
        assert.strictEqual(stray.stdout, "")
        assert.strictEqual(stray.stderr.trimEnd().split("\n").length, 1, stray.stderr)
        const answered = yield* runBin(["guard", "call", b.guardFile, "transfer", "--to", "acct-1", "--amount", "5"])
        assert.strictEqual(answered.status, 0, answered.stderr)
        assert.strictEqual(answered.stdout, "transfer ran\n")
        assert.deepStrictEqual(yield* b.calls, [{ name: "transfer", arguments: { to: "acct-1", amount: 5 } }])
      }),
    60_000
  )
})

describe("request guards (fail-when)", () => {
  const guarded = {
    ...grants,
    transfer: {
      ...grants.transfer,
      "fail-when": [
        {
          match: { currency: { enum: ["BTC"] }, amount: { minimum: 100 } },
          reason: "a bitcoin transfer of 100 or more needs a person"
        },
        { match: { memo: { present: false }, amount: { minimum: 500 } } }
      ]
    }
  }

  it.live(
    "refuse a call whose arguments meet a condition, at both doors in the same words, with one deny row",
    () =>
      Effect.gen(function*() {
        const b = yield* bank({ grants: guarded })
        const guard = yield* guardOf(b)
        const bitcoin =
          `the guard refuses this call to tool "transfer": a bitcoin transfer of 100 or more needs a person`
        const overMcp = yield* guard.execute("mcp", "transfer", { to: "acct-1", amount: 250, currency: "BTC" })
        assert.isTrue(overMcp.isError)
        assert.strictEqual(textOf(overMcp), `effect-surface: ${bitcoin}`)
        const fromShell = yield* runBin(
          ["guard", "call", b.guardFile, "transfer", "--to", "acct-1", "--amount", "250", "--currency", "BTC"]
        )
        assert.notStrictEqual(fromShell.status, 0)
        assert.strictEqual(fromShell.stderr, `effect-surface: ${bitcoin}\n`)
        const unexplained = yield* guard.execute("mcp", "transfer", { to: "acct-1", amount: 600 })
        const spelled = `the guard refuses this call to tool "transfer": grants.transfer.fail-when[1] holds: ` +
          `"memo" is not given, and "amount" is at least 500`
        assert.strictEqual(textOf(unexplained), `effect-surface: ${spelled}`)

        for (
          const args of [
            { to: "acct-1", amount: 250, currency: "EUR" },
            { to: "acct-1", amount: 50, currency: "BTC" },
            { to: "acct-1", amount: 600, memo: "rent" }
          ]
        )
          assert.strictEqual(
            textOf(yield* guard.execute("mcp", "transfer", args)),
            "transfer ran",
            JSON.stringify(args)
          )
        assert.deepStrictEqual((yield* b.calls).map((call) => call.arguments), [
          { to: "acct-1", amount: 250, currency: "EUR" },
          { to: "acct-1", amount: 50, currency: "BTC" },
          { to: "acct-1", amount: 600, memo: "rent" }
        ])
        const rows = yield* Audit.read(b.audit)
        assert.deepStrictEqual(rows.slice(0, 3).map((row) => [row.door, row.decision, row.outcome, row.reason]), [
          ["mcp", "deny", "refused", bitcoin],
          ["cli", "deny", "refused", bitcoin],
          ["mcp", "deny", "refused", spelled]
        ])
      }),
    60_000
  )
})
