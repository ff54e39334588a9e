// The disclosure budget, decided per server: full schemas when a server's definitions fit the
// budget or it is in alwaysLoad; deferred schemas (names, scalar types, required) when they do not;
// the bare object schema when even those do not; the catalogue never trimmed, and reported when it
// alone is over; a tool-count cap whose leftovers are named — alone, and in a toolset over the
// reference servers, where mcp__describe_tool answers a server's own full schema.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { McpCallResult, McpDisclosure, McpToolset } from "effect-surface/client"
import * as Path from "node:path"
import { everythingStdio, filesystemStdio, memoryStdio, tempDir } from "./servers.ts"

const tool = (server: string, name: string, properties: number): { readonly tool: McpDisclosure.Disclosed } => ({
  tool: {
    name: `${server}__${name}`,
    server,
    description: `Does ${name} with care.`,
    inputSchema: {
      type: "object",
      properties: Object.fromEntries(Array.from({ length: properties }, (_, i) => [
        `p${i}`,
        {
          type: "string",
          description: `The ${i}th parameter, which matters a great deal.`,
          enum: ["a", "b", "c"],
          format: "uri"
        }
      ])),
      required: ["p0"]
    }
  }
})

const mapOf = (entries: ReadonlyArray<{ readonly tool: McpDisclosure.Disclosed }>) =>
  new Map(entries.map((e) => [e.tool.name, e]))

const PropertyName = Schema.String.check(Schema.isPattern(/^[a-z][a-z0-9_]{0,12}$/))

describe("estimateTokens", () => {
  it("counts four characters per token, rounding up", () => {
    assert.strictEqual(McpDisclosure.estimateTokens(""), 0)
    assert.strictEqual(McpDisclosure.estimateTokens("abcd"), 1)
    assert.strictEqual(McpDisclosure.estimateTokens("abcde"), 2)
  })
})

describe("deferred schemas", () => {
  it.prop("keep every parameter's name, its type and required; drop descriptions, enums, formats and nested bodies", [
    Schema.Array(PropertyName)
  ], ([names]) => {
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
    assert.strictEqual(
      shown.get("small__t0")?.tool.inputSchema,
      small[0]?.tool.inputSchema,
      "full schemas are the server's own objects"
    )
    assert.deepStrictEqual(
      shown.get("broad__t0")?.tool.inputSchema,
      McpDisclosure.deferSchema(broad[0]!.tool.inputSchema)
    )
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

describe("the budget in a toolset, on the reference servers", () => {
  it.live(
    "over budget, server-everything's tools keep their names with deferred schemas, mcp__describe_tool answers each server's own full schema, and arguments are still checked against it; a server in alwaysLoad stays full",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const servers = [everythingStdio(), memoryStdio(Path.join(dir, "memory.jsonl"))]
        const full = yield* Effect.scoped(Effect.flatMap(McpToolset.make(servers), (t) => t.tools))
        const everything = [...full.values()].filter((t) => t.server === "everything")
        const memory = [...full.values()].filter((t) => t.server === "memory")
        const measured = McpDisclosure.measure(everything)
        assert.isBelow(McpDisclosure.measure(memory).full, McpDisclosure.DEFAULT_BUDGET_TOKENS)
        // A budget the deferred schemas fit and the full ones do not; memory is over it too, but always loaded.
        const budget = measured.deferred
        assert.isAbove(McpDisclosure.measure(memory).full, budget)
        const toolset = yield* McpToolset.make(servers, { disclosure: { budget, alwaysLoad: ["memory"] } })
        const tools = yield* toolset.tools
        const sum = full.get("everything__get-sum")!
        assert.deepStrictEqual(
          tools.get("everything__get-sum")?.inputSchema,
          McpDisclosure.deferSchema(sum.inputSchema)
        )
        assert.deepStrictEqual(Object.keys(tools.get("everything__get-sum")?.inputSchema["properties"] as object), [
          "a",
          "b"
        ])
        assert.strictEqual(
          tools.get("everything__get-sum")?.description,
          sum.description,
          "the catalogue is never trimmed"
        )
        assert.deepStrictEqual(
          tools.get("memory__create_entities")?.inputSchema,
          full.get("memory__create_entities")?.inputSchema
        )
        assert.isTrue(tools.has(McpDisclosure.DESCRIBE_TOOL))
        const described = yield* toolset.call(McpDisclosure.DESCRIBE_TOOL, { name: "everything__get-sum" })
        assert.deepStrictEqual(described.structuredContent?.["inputSchema"], sum.inputSchema)
        const wrong = yield* Effect.flip(toolset.call("everything__get-sum", { a: "one", b: 2 }))
        assert.strictEqual(wrong._tag, "InvalidArguments")
        assert.include(McpCallResult.textOf(yield* toolset.call("everything__get-sum", { a: 2, b: 3 })), "5")
        assert.strictEqual(
          (yield* Effect.flip(toolset.call(McpDisclosure.DESCRIBE_TOOL, { name: "nope__nothing" })))._tag,
          "UnknownTool"
        )
        assert.deepInclude((yield* toolset.diagnostics).find((d) => d.kind === "disclosure-deferred"), {
          server: "everything",
          tier: "deferred"
        })
      }),
    { timeout: 60_000 }
  )

  it.live(
    "a budget below the catalogue's own floor shows bare schemas and reports the tool count, the measured floor and the tools filter",
    () =>
      Effect.gen(function*() {
        const toolset = yield* McpToolset.make([everythingStdio()], { disclosure: { budget: 50 } })
        const tools = yield* toolset.tools
        assert.deepStrictEqual(tools.get("everything__echo")?.inputSchema, McpDisclosure.BARE_SCHEMA)
        const exceeded = (yield* toolset.diagnostics).find((d) => d.kind === "disclosure-budget-exceeded")
        const floor = McpDisclosure.measure([...tools.values()].filter((t) => t.server === "everything")).floor
        assert.deepInclude(exceeded, { server: "everything", tools: tools.size - 1, floor, budget: 50 })
        assert.include(exceeded?.message ?? "", "tools filter")
      }),
    { timeout: 60_000 }
  )

  it.live(
    "maxTools leaves the last tools out, names each of them, and a call to one is UnknownTool",
    () =>
      Effect.gen(function*() {
        const all = yield* Effect.scoped(Effect.flatMap(McpToolset.make([everythingStdio()]), (t) => t.tools))
        const toolset = yield* McpToolset.make([everythingStdio()], { disclosure: { maxTools: 5 } })
        const tools = yield* toolset.tools
        assert.deepStrictEqual([...tools.keys()], [...all.keys()].slice(0, 5))
        const capped = (yield* toolset.diagnostics).find((d) => d.kind === "tools-capped")
        const leftOut = [...all.keys()].slice(5)
        assert.deepStrictEqual(capped !== undefined && "leftOut" in capped ? capped.leftOut : [], leftOut)
        for (const name of leftOut) assert.include(capped?.message ?? "", name)
        assert.strictEqual((yield* Effect.flip(toolset.call(leftOut[0]!, {})))._tag, "UnknownTool")
      }),
    { timeout: 60_000 }
  )

  it.live(
    "with the default budget the three reference servers are shown in full, with no describe tool",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const toolset = yield* McpToolset.make([
          everythingStdio(),
          memoryStdio(Path.join(dir, "memory.jsonl")),
          filesystemStdio([dir])
        ])
        const tools = yield* toolset.tools
        assert.isFalse(tools.has(McpDisclosure.DESCRIBE_TOOL))
        // Only server-everything's task-only tool, which a 2025 session cannot call, is left out.
        assert.deepStrictEqual((yield* toolset.diagnostics).map((d) => d.kind), ["tool-needs-tasks"])
      }),
    { timeout: 60_000 }
  )
})
