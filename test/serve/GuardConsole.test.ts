// A guard with the operator's console in context shows each audit row it writes on the console's page,
// and the row there holds no more than the audit's own: the keyed digest, never an argument's value.
// serveTools over HTTP mounts the console too, and a plain tool it holds waits there.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Context, Effect, Fiber, Layer, Schedule } from "effect"
import { McpConsole, McpHttp } from "effect-surface/mcp"
import { ServeTools } from "effect-surface/serve"
import { Audit, Guard } from "effect-surface/guard"
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

  it.live(
    "serveTools over HTTP serves the console, and a plain tool it holds is refused when the operator denies it",
    () =>
      Effect.gen(function*() {
        const refunds: Array<unknown> = []
        const refund: ServeTools.PlainTool = {
          name: "refund",
          description: "Refund an order.",
          inputSchema: { type: "object", properties: { order: { type: "string" } }, required: ["order"] },
          mutates: true,
          execute: (args) => {
            refunds.push(args)
            return "refunded"
          }
        }
        const console = yield* McpConsole.make({ hold: ["refund"] })
        const context = yield* Layer.build(
          ServeTools.layerHttp([refund], { port: 0 }).pipe(Layer.provide(Layer.succeed(McpConsole.Console, console)))
        )
        const endpoint = Context.get(context, McpHttp.Endpoint)
        assert.strictEqual(endpoint.console, endpoint.url.replace(/\/mcp$/, console.link))
        const client = new Client({ name: "plain-agent", version: "1.0.0" })
        yield* Effect.acquireRelease(
          Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(endpoint.url)))),
          () => Effect.promise(() => client.close())
        )
        const calling = yield* Effect.forkChild(
          Effect.promise(() =>
            client.callTool({ name: "refund", arguments: { order: "o-1" } }) as Promise<CallToolResult>
          )
        )
        const held = yield* console.state.snapshot.pipe(
          Effect.flatMap((s) => s.held[0] === undefined ? Effect.fail("not yet") : Effect.succeed(s.held[0])),
          Effect.retry(Schedule.spaced("20 millis")),
          Effect.timeout("10 seconds")
        )
        assert.strictEqual(held.tool, "refund")
        assert.isTrue(yield* console.decide(held.id, "deny", "operator at 127.0.0.1"))
        const result = yield* Fiber.join(calling)
        assert.isTrue(result.isError)
        assert.deepStrictEqual(refunds, [])
      }),
    60_000
  )
})
