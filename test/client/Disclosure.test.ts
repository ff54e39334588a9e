// The disclosure budget, decided per server: full schemas when a server's definitions fit the
// budget or it is in alwaysLoad; deferred schemas (names, scalar types, required) when they do not;
// the bare object schema when even those do not; the catalogue never trimmed, and reported when it
// alone is over; a tool-count cap whose leftovers are named.
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { McpDisclosure } from "effect-surface/client"

const tool = (server: string, name: string, properties: number): { readonly tool: McpDisclosure.Disclosed } => ({
  tool: {
    name: `${server}__${name}`,
    server,
    description: `Does ${name} with care.`,
    inputSchema: {
      type: "object",
      properties: Object.fromEntries(Array.from({ length: properties }, (_, i) => [
        `p${i}`,
        { type: "string", description: `The ${i}th parameter, which matters a great deal.`, enum: ["a", "b", "c"], format: "uri" }
      ])),
      required: ["p0"]
    }
  }
})

const mapOf = (entries: ReadonlyArray<{ readonly tool: McpDisclosure.Disclosed }>) => new Map(entries.map((e) => [e.tool.name, e]))

const PropertyName = Schema.String.check(Schema.isPattern(/^[a-z][a-z0-9_]{0,12}$/))

describe("estimateTokens", () => {
  it("counts four characters per token, rounding up", () => {
    assert.strictEqual(McpDisclosure.estimateTokens(""), 0)
    assert.strictEqual(McpDisclosure.estimateTokens("abcd"), 1)
    assert.strictEqual(McpDisclosure.estimateTokens("abcde"), 2)
  })
})

describe("deferred schemas", () => {
  it.prop("keep every parameter's name, its type and required; drop descriptions, enums, formats and nested bodies", [Schema.Array(PropertyName)], ([names]) => {
    const properties = Object.fromEntries(names.map((name, i) => [
      name,
      i % 2 === 0
        ? { type: "string", description: "prose", enum: ["x"], format: "email" }
        : { type: "object", properties: { inner: { type: "number" } }, description: "nested" }
    ]))
    const required = names.slice(0, 1)
    const deferred = McpDisclosure.deferSchema({ type: "object", properties, required, additionalProperties: false })
    assert.deepStrictEqual(Object.keys(deferred["properties"] as object), Object.keys(properties))
    for (const [i, name] of Object.keys(properties).entries()) {
      const expected = Object.values(properties)[i]?.type
      assert.deepStrictEqual((deferred["properties"] as Record<string, unknown>)[name], { type: expected })
    }
    assert.deepStrictEqual(deferred["required"], required.length === 0 ? undefined : required)
    assert.notInclude(JSON.stringify(deferred), "prose")
  })
})

describe("the budget, per server", () => {
  it("a server whose definitions fit is shown in full; one that does not, deferred, with the describe tool", () => {
    const small = Array.from({ length: 3 }, (_, i) => tool("small", `t${i}`, 2))
    const broad = Array.from({ length: 40 }, (_, i) => tool("broad", `t${i}`, 10))
    const { describe, diagnostics, shown } = McpDisclosure.disclose(mapOf([...small, ...broad]), { budget: 5_000 })
    assert.strictEqual(shown.get("small__t0")?.tool.inputSchema, small[0]?.tool.inputSchema, "full schemas are the server's own objects")
    assert.deepStrictEqual(shown.get("broad__t0")?.tool.inputSchema, McpDisclosure.deferSchema(broad[0]!.tool.inputSchema))
    assert.strictEqual(shown.get("broad__t0")?.tool.description, broad[0]?.tool.description, "the catalogue is kept")
    assert.isTrue(describe)
    assert.deepStrictEqual(diagnostics.map((d) => d.kind), ["disclosure-deferred"])
  })

  it("alwaysLoad shows a server in full whatever its size", () => {
    const broad = Array.from({ length: 40 }, (_, i) => tool("broad", `t${i}`, 10))
    const { describe, shown } = McpDisclosure.disclose(mapOf(broad), { budget: 5_000, alwaysLoad: ["broad"] })
    assert.strictEqual(shown.get("broad__t3")?.tool.inputSchema, broad[3]?.tool.inputSchema)
    assert.isFalse(describe)
  })

  it("when even deferred schemas do not fit, the bare object schema is used", () => {
    const broad = Array.from({ length: 40 }, (_, i) => tool("broad", `t${i}`, 30))
    const { shown } = McpDisclosure.disclose(mapOf(broad), { budget: 1_200 })
    assert.deepStrictEqual(shown.get("broad__t0")?.tool.inputSchema, McpDisclosure.BARE_SCHEMA)
  })

  it("a catalogue over the budget on its own is reported with the tool count, the measured floor and the tools filter", () => {
    const broad = Array.from({ length: 200 }, (_, i) => tool("broad", `t${i}`, 1))
    const { diagnostics, shown } = McpDisclosure.disclose(mapOf(broad), { budget: 500, maxTools: 1_000 })
    assert.strictEqual(shown.size, 200, "no tool is dropped for the budget")
    const exceeded = diagnostics.find((d) => d.kind === "disclosure-budget-exceeded")
    const floor = McpDisclosure.measure(broad.map((e) => e.tool)).floor
    assert.deepInclude(exceeded, { server: "broad", tools: 200, floor, budget: 500 })
    assert.include(exceeded?.message ?? "", "200 tools")
    assert.include(exceeded?.message ?? "", String(floor))
    assert.include(exceeded?.message ?? "", "tools filter")
  })
})

describe("the tool-count cap", () => {
  it("keeps the first maxTools tools in server order and names every one it leaves out", () => {
    const many = Array.from({ length: 10 }, (_, i) => tool("s", `t${i}`, 1))
    const { diagnostics, leftOut, shown } = McpDisclosure.disclose(mapOf(many), { maxTools: 7 })
    assert.deepStrictEqual([...shown.keys()], many.slice(0, 7).map((e) => e.tool.name))
    assert.deepStrictEqual(leftOut, ["s__t7", "s__t8", "s__t9"])
    const capped = diagnostics.find((d) => d.kind === "tools-capped")
    assert.include(capped?.message ?? "", "s__t7, s__t8, s__t9")
  })

  it("counts the describe tool when it is needed", () => {
    const many = Array.from({ length: 10 }, (_, i) => tool("s", `t${i}`, 20))
    const { describe, shown } = McpDisclosure.disclose(mapOf(many), { maxTools: 5, budget: 500 })
    assert.isTrue(describe)
    assert.strictEqual(shown.size, 4)
  })

  it("defaults to 128", () => {
    const many = Array.from({ length: 130 }, (_, i) => tool("s", `t${i}`, 0))
    assert.lengthOf(McpDisclosure.disclose(mapOf(many), { budget: 1_000_000 }).leftOut, 2)
  })
})
