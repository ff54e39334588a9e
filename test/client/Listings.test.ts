// Listings no one would publish on purpose, from a raw stdio server beside a healthy one: a page of
// 150,000 tools, a schema nested a thousand levels, tens of thousands of names to rewrite. Whatever
// one server lists, the toolset stands: a listing past its bounds is refused as a diagnostic, a tool
// past the nesting bound is left out with one, and the cost of reporting stays linear. The healthy
// server loads every time.
import { assert, describe, it } from "@effect/vitest"
import { Effect, References } from "effect"
import { McpCallResult, McpToolset } from "effect-surface/client"
import type { McpConfig } from "effect-surface/client"
import { fileURLToPath } from "node:url"
import { everythingStdio } from "./servers.ts"

const script = fileURLToPath(new URL("./fixtures/listing-server.ts", import.meta.url))
const listing = (name: string, mode: "huge" | "deep" | "rewritten", n: number): McpConfig.Stdio => ({
  name,
  type: "stdio",
  command: process.execPath,
  args: [script, mode, String(n)]
})

// Thousands of diagnostics are logged on the way; the test reads them from the toolset instead.
const quiet = Effect.provideService(References.MinimumLogLevel, "None")

describe("hostile listings", () => {
  it.live(
    "a server listing 150,000 tools in one page is refused with a diagnostic, and the healthy server beside it loads",
    () =>
      Effect.gen(function*() {
        const toolset = yield* McpToolset.make([everythingStdio(), listing("raw", "huge", 150_000)])
        const tools = yield* toolset.tools
        assert.isTrue(tools.has("everything__echo"))
        assert.isFalse([...tools.keys()].some((name) => name.startsWith("raw__")))
        const refused = (yield* toolset.diagnostics).find((d) => d.kind === "server-unavailable")
        assert.deepInclude(refused, { server: "raw" })
        assert.include(refused?.message ?? "", "10000 tools")
        assert.strictEqual(McpCallResult.textOf(yield* toolset.call("everything__echo", { message: "hi" })), "Echo: hi")
      }).pipe(quiet),
    { timeout: 60_000 }
  )

  it.live(
    "a tool whose input schema nests 1,000 levels is left out with a diagnostic; the server's other tools and the healthy server load",
    () =>
      Effect.gen(function*() {
        const toolset = yield* McpToolset.make([everythingStdio(), listing("raw", "deep", 1_000)])
        const tools = yield* toolset.tools
        assert.isTrue(tools.has("everything__echo"))
        assert.isTrue(tools.has("raw__ok"))
        assert.isFalse(tools.has("raw__deep"))
        const skipped = (yield* toolset.diagnostics).find((d) => d.kind === "tool-skipped")
        assert.deepInclude(skipped, { server: "raw" })
        assert.include(skipped?.message ?? "", "\"deep\"")
        assert.include(skipped?.message ?? "", "nests deeper than 64 levels")
        assert.strictEqual(McpCallResult.textOf(yield* toolset.call("raw__ok", {})), "ok ran")
      }).pipe(quiet),
    { timeout: 60_000 }
  )

  it.live(
    "50,000 rewritten names across five servers are each reported once",
    () =>
      Effect.gen(function*() {
        let told = 0
        const servers = ["a", "b", "c", "d", "e"].map((name) => listing(name, "rewritten", 10_000))
        const toolset = yield* McpToolset.make(servers, {
          onDiagnostic: (d) => void (d.kind === "tool-name-rewritten" && told++)
        })
        assert.strictEqual(told, 50_000)
        assert.strictEqual((yield* toolset.diagnostics).filter((d) => d.kind === "tool-name-rewritten").length, 50_000)
      }).pipe(quiet),
    { timeout: 120_000 }
  )
})
