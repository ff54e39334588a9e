// The Mcp-Param-* headers of MCP 2026-07-28 from the toolset's side, against this project's own
// server: a tool's mirrored string, integer and boolean arguments travel as headers the server
// reads back as the body's values (encoded where plain text would mislead), and a tool that
// mirrors a `number` — which the revision forbids, and the server refuses to run — is left out.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { McpToolset } from "effect-surface/client"
import { serveMirroring } from "../mcp/mirroring.ts"
import { recordingProxy } from "./servers.ts"

const base64 = (text: string) => `=?base64?${Buffer.from(text, "utf8").toString("base64")}?=`

describe("mirrored arguments", () => {
  it.live("a call carries each mirrored argument as its header, in the revision's text, and the server serves it", () =>
    Effect.gen(function*() {
      const served = yield* serveMirroring
      const proxy = yield* recordingProxy(new URL(served.url).origin)
      const toolset = yield* McpToolset.make(
        [{ name: "edge", type: "streamable-http", url: `${proxy.origin}${new URL(served.url).pathname}` }],
        { allowedHosts: ["127.0.0.1"], protocol: "2026-07-28" }
      )
      const cases = [
        { args: { region: "eu-west", at: { shard: 42 }, dry: false }, region: "eu-west", shard: "42", dry: "false" },
        { args: { region: " Zürich ", at: { shard: -7 } }, region: base64(" Zürich "), shard: "-7", dry: undefined },
        {
          args: { region: "=?base64?bGl0ZXJhbA==?=", dry: true },
          region: base64("=?base64?bGl0ZXJhbA==?="),
          shard: undefined,
          dry: "true"
        }
      ]
      for (const { args, dry, region, shard } of cases) {
        const result = yield* toolset.call("edge__route", args)
        assert.deepStrictEqual(result.structuredContent, args)
        const sent = proxy.bodies("tools/call").at(-1)?.headers
        assert.strictEqual(sent?.["mcp-param-region"], region)
        assert.strictEqual(sent?.["mcp-param-shard"], shard)
        assert.strictEqual(sent?.["mcp-param-dry"], dry)
      }
    }))

  it.live("a tool that mirrors a number argument is left out of the map; the others stay", () =>
    Effect.gen(function*() {
      const served = yield* serveMirroring
      const toolset = yield* McpToolset.make([{ name: "edge", type: "streamable-http", url: served.url }], {
        allowedHosts: ["127.0.0.1"],
        protocol: "2026-07-28"
      })
      const names = [...(yield* toolset.tools).keys()]
      assert.include(names, "edge__route")
      assert.notInclude(names, "edge__weigh")
      const refused = yield* Effect.flip(toolset.call("edge__weigh", { grams: 1.5 }))
      assert.strictEqual(refused._tag, "UnknownTool")
    }))
})
