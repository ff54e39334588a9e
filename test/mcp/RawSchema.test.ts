import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Result } from "effect"
import { SchemaBridge, Surface, Tools } from "effect-surface"
import { McpServer } from "effect-surface/mcp"
import { call, connect, textOf } from "./harness.ts"

const Empty = Surface.make({})

const address = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: { address: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
  properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
  required: ["name"],
  additionalProperties: false
} as const

const lookup = Tools.make({
  description: "Echo a checked record",
  input: Tools.jsonSchema(address),
  mutates: false,
  handler: (input) => Effect.succeed(input)
})

describe("a tool whose input is a raw JSON Schema", () => {
  it.live("is advertised verbatim, $schema, $defs and additionalProperties included", () =>
    Effect.gen(function*() {
      const c = yield* connect({
        core: { surface: Empty, expose: {} },
        client: Effect.succeed({ clients: {} }),
        tools: { lookup }
      })
      const [tool] = (yield* Effect.promise(() => c.client.listTools())).tools
      assert.deepStrictEqual(JSON.parse(JSON.stringify(tool?.inputSchema)), JSON.parse(JSON.stringify(address)))
    }))

  it.live("checks each call against it, naming the wrong field, and passes a good call through", () =>
    Effect.gen(function*() {
      const c = yield* connect({
        core: { surface: Empty, expose: {} },
        client: Effect.succeed({ clients: {} }),
        tools: { lookup }
      })
      const good = yield* call(c, "lookup", { name: "Ada", address: { city: "London" } })
      assert.deepStrictEqual(good.structuredContent, { name: "Ada", address: { city: "London" } })
      const nested = yield* call(c, "lookup", { name: "Ada", address: { city: 7 } })
      assert.isTrue(nested.isError)
      assert.include(textOf(nested), "address.city")
      const extra = yield* call(c, "lookup", { name: "Ada", nickname: "A" })
      assert.isTrue(extra.isError)
      assert.include(textOf(extra), "nickname")
    }))

  it.effect("whose schema no call could pass is refused at boot, naming the tool", () =>
    Effect.gen(function*() {
      const broken = Tools.make({
        description: "A tool with a misspelt type",
        input: Tools.jsonSchema({ type: "object", properties: { id: { type: "strng" } } }),
        mutates: false,
        handler: () => Effect.void
      })
      const exit = yield* Effect.exit(Layer.build(McpServer.layer({
        core: { surface: Empty, expose: {} },
        client: Effect.succeed({ clients: {} }),
        tools: { broken }
      })))
      assert.isTrue(Exit.isFailure(exit))
      const message = String(Exit.isFailure(exit) ? exit.cause : "")
      assert.include(message, `tool "broken"`)
      assert.include(message, "strng")
    }))

  it.live("checked by the handler, it is still advertised and compiled, and the arguments reach the handler as sent", () =>
    Effect.gen(function*() {
      const proxied = Tools.make({
        description: "Check its own arguments, on its own path",
        input: Tools.jsonSchema(address, { checkedBy: "handler" }),
        mutates: false,
        handler: (input) => Effect.succeed({ received: input })
      })
      const c = yield* connect({
        core: { surface: Empty, expose: {} },
        client: Effect.succeed({ clients: {} }),
        tools: { proxied }
      })
      const [tool] = (yield* Effect.promise(() => c.client.listTools())).tools
      assert.deepStrictEqual(JSON.parse(JSON.stringify(tool?.inputSchema)), JSON.parse(JSON.stringify(address)))
      const wrong = yield* call(c, "proxied", { name: 7 })
      assert.deepStrictEqual(wrong.structuredContent, { received: { name: 7 } })
      const broken = SchemaBridge.compileJson({ type: "object", properties: { id: { type: "strng" } } }, {
        checkedBy: "handler"
      })
      assert.isTrue(Result.isFailure(broken))
    }))

  it("must be an object schema, because MCP advertises tool inputs as objects", () => {
    assert.isTrue(Result.isFailure(SchemaBridge.compileJson({ type: "string" })))
    assert.isTrue(Result.isSuccess(SchemaBridge.compileJson({ type: "object" })))
  })
})
