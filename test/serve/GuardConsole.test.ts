// A guard with the operator's console in context shows each audit row it writes on the console's page,
// and the row there holds no more than the audit's own: the keyed digest, never an argument's value.
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { McpConsole } from "effect-surface/mcp"
import { Audit, Guard } from "effect-surface/serve"
import { bank } from "./bank.ts"

describe("a guard's audit on the console", () => {
  it.live("each row the guard writes is shown on the console, with no argument's value", () =>
    Effect.gen(function*() {
      const b = yield* bank()
      const console = yield* McpConsole.make()
      const context = yield* Layer.build(
        Guard.layerFile(b.guardFile).pipe(Layer.provide(Layer.succeed(McpConsole.Console, console)))
      )
      const guard = Context.get(context, Guard.Guard)
      const refused = yield* guard.execute("mcp", "transfer", { to: "evil-SECRET-TOKEN-123", amount: 5 })
      assert.isTrue(refused.isError)
      const allowed = yield* guard.execute("mcp", "transfer", { to: "acct-1", amount: 5 })
      assert.isNotTrue(allowed.isError)
      const shown = (yield* console.state.snapshot).audit
      const written = yield* Audit.read(b.audit)
      assert.deepStrictEqual(shown, written.map((row) => ({ ...row })))
      assert.deepStrictEqual(shown.map((row) => [row["tool"], row["decision"], row["outcome"]]), [
        ["transfer", "deny", "refused"],
        ["transfer", "allow", "started"],
        ["transfer", "allow", "ok"]
      ])
      assert.notInclude(JSON.stringify(shown), "SECRET-TOKEN")
      assert.notInclude(JSON.stringify(shown), "acct-1")
    }), 60_000)
})
