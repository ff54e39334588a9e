// The Mcp-Param-* headers of MCP 2026-07-28 from the server's side: a call to a tool that mirrors
// arguments is served only when each mirrored value's header says the same as the body; a tool
// that mirrors what the revision forbids (a `number`) is refused with -32602 naming why; and what a
// client writes for a value (`McpResults.paramValue`) is what the server reads back as that value.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { McpResults } from "effect-surface/mcp"
import * as Headers from "../../src/protocol/v2026/Headers.ts"
import { serveMirroring } from "./mirroring.ts"
import { raw } from "./modern.ts"

/** One `tools/call` POST with the standard headers and the given `Mcp-Param-*` ones. */
const callWith = (url: string, name: string, args: unknown, params: Record<string, string>) =>
  raw(url, 1, "tools/call", { name, arguments: args }, {}, params)

const routed = { region: "eu-west", at: { shard: 42 }, dry: true }

describe("Mcp-Param headers on the server", () => {
  it.live("a call whose mirrored string, integer and boolean headers match its body is served; an integer compares as a number", () =>
    Effect.gen(function*() {
      const { url } = yield* serveMirroring
      const plain = yield* callWith(url, "route", routed, {
        "mcp-param-region": "eu-west",
        "mcp-param-shard": "42",
        "mcp-param-dry": "true"
      })
      assert.strictEqual(plain.status, 200)
      assert.deepStrictEqual(plain.answer.result?.structuredContent, routed)
      const spelt = yield* callWith(url, "route", routed, {
        "mcp-param-region": "eu-west",
        "mcp-param-shard": "42.0",
        "mcp-param-dry": "true"
      })
      assert.deepStrictEqual(spelt.answer.result?.structuredContent, routed)
    }))

  it.live("a mirrored header that is missing or says another value is refused -32020 with 400", () =>
    Effect.gen(function*() {
      const { url } = yield* serveMirroring
      const other = yield* callWith(url, "route", routed, {
        "mcp-param-region": "eu-west",
        "mcp-param-shard": "41",
        "mcp-param-dry": "true"
      })
      assert.strictEqual(other.status, 400)
      assert.strictEqual(other.answer.error?.code, -32020)
      assert.include(other.answer.error?.message ?? "", "Mcp-Param-shard")
      const missing = yield* callWith(url, "route", routed, { "mcp-param-region": "eu-west" })
      assert.strictEqual(missing.answer.error?.code, -32020)
    }))

  it.live("a call to a tool that mirrors a number argument is refused -32602, naming the tool and the rule, header or not", () =>
    Effect.gen(function*() {
      const { url } = yield* serveMirroring
      for (const params of [{ "mcp-param-grams": "1.5" }, {}]) {
        const refused = yield* callWith(url, "weigh", { grams: 1.5 }, params)
        assert.strictEqual(refused.status, 400)
        assert.strictEqual(refused.answer.error?.code, -32602)
        assert.include(refused.answer.error?.message ?? "", "\"weigh\"")
        assert.include(refused.answer.error?.message ?? "", "not a string, integer or boolean")
      }
    }))
})

const oneMirrored = { type: "object", properties: { v: { type: "string", "x-mcp-header": "V" } } } as const
const asInteger = { type: "object", properties: { v: { type: "integer", "x-mcp-header": "V" } } } as const
const asBoolean = { type: "object", properties: { v: { type: "boolean", "x-mcp-header": "V" } } } as const

const agrees = (schema: typeof oneMirrored | typeof asInteger | typeof asBoolean, value: unknown) => {
  const written = McpResults.paramValue(value)
  assert.isDefined(written)
  assert.isUndefined(Headers.params({ "mcp-param-v": written }, "t", schema, { v: value }))
}

describe("one reading of a mirrored value at both ends", () => {
  it.prop("any string a client writes into its header reads back as that string", [Schema.String], ([value]) => {
    // A string with a lone surrogate has no UTF-8 of its own to carry.
    if (/\p{Surrogate}/u.test(value)) return
    agrees(oneMirrored, value)
  })

  it.prop("any integer a client writes into its header reads back as that integer", [Schema.Int], ([value]) => {
    agrees(asInteger, value)
  })

  it("a boolean, an integer past 2^53 and a string that looks encoded each read back as themselves", () => {
    agrees(asBoolean, true)
    agrees(asBoolean, false)
    agrees(asInteger, 2 ** 60)
    agrees(asInteger, 1e21)
    agrees(oneMirrored, "=?base64?bGl0ZXJhbA==?=")
    agrees(oneMirrored, "=?base64?not base64?=")
  })
})
