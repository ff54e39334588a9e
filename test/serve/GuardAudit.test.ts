// What a guard's audit promises, checked in front of an upstream that logs every call it receives:
// no argument's value in a row, a keyed digest, a row written before a call is sent and a call not
// sent when its row cannot be written, and rows that say how a cancelled or failed call ended.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import { Audit } from "effect-surface/serve"
import { runBin } from "../bin.ts"
import { bank, guardOf } from "./bank.ts"

const textOf = (result: { readonly content: ReadonlyArray<unknown> }): string => {
  const first = result.content[0]
  return typeof first === "object" && first !== null && "text" in first && typeof first.text === "string" ? first.text
    : ""
}

describe("the audit of a guard", () => {
  it.live(
    "a row never holds an argument's value: the caller is told the whole sentence, the row only what was expected",
    () =>
      Effect.gen(function*() {
        const b = yield* bank()
        const guard = yield* guardOf(b)
        const overMcp = yield* guard.execute("mcp", "transfer", { to: "evil-SECRET-TOKEN-123", amount: 5 })
        assert.isTrue(overMcp.isError)
        assert.include(textOf(overMcp), `got "evil-SECRET-TOKEN-123"`)
        const fromShell = yield* runBin([
          "guard",
          "call",
          b.guardFile,
          "transfer",
          "--to",
          "acct-7",
          "--amount",
          "500123"
        ])
        assert.notStrictEqual(fromShell.status, 0)
        assert.include(fromShell.stderr, "got 500123")

        const logged = Fs.readFileSync(b.audit, "utf8")
        assert.notInclude(logged, "SECRET-TOKEN")
        assert.notInclude(logged, "500123")
        assert.notInclude(logged, "acct-7")
        const rows = yield* Audit.read(b.audit)
        assert.deepStrictEqual(rows.map((row) => [row.door, row.decision, row.outcome, row.reason]), [
          ["mcp", "deny", "refused", `value at "to": expected a string matching /^acct-[0-9]+$/`],
          ["cli", "deny", "refused", `value at "amount": expected a number at most 1000`]
        ])
        assert.deepStrictEqual(yield* b.calls, [])
      }),
    60_000
  )
})
