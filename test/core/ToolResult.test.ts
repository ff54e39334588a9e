import { assert, describe, it } from "@effect/vitest"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Cause, Data, Effect, Exit, Fiber } from "effect"
import * as ToolFailure from "../../src/core/ToolFailure.ts"
import * as ToolResult from "../../src/core/ToolResult.ts"

class Busy extends Data.TaggedError("Busy")<{ readonly retryIn: number }> {}

const textOf = (result: ToolResult.ToolResult): string => {
  assert.strictEqual(result.content.length, 1)
  const block = result.content[0]
  assert.isTrue(block?.type === "text")
  return block?.type === "text" ? block.text : ""
}

// Type-level: our result is what the MCP SDK's server hands back from tools/call, with no cast.
const asSdk = (result: ToolResult.ToolResult): CallToolResult => result
const image: ToolResult.ImageContent = { type: "image", data: "AA==", mimeType: "image/png" }
const asSdkContent: CallToolResult["content"][number] = image

describe("ToolResult", () => {
  it("a ToolResult is assignable to the MCP SDK's CallToolResult", () => {
    assert.deepStrictEqual(asSdk(ToolResult.ok(1)).structuredContent, { value: 1 })
    assert.strictEqual(asSdkContent.type, "image")
  })

  it("an object answer travels bare and both arms agree", () => {
    const result = ToolResult.ok({ open: 3, names: ["a"] })
    assert.deepStrictEqual(result.structuredContent, { open: 3, names: ["a"] })
    assert.strictEqual(textOf(result), JSON.stringify(result.structuredContent))
    assert.isUndefined(result.isError)
  })

  it("a scalar, array or null answer travels under value and its text is that structured content's JSON", () => {
    for (const [answer, json] of [[42, 42], ["hi", "hi"], [true, true], [[1, "a"], [1, "a"]], [null, null]] as const) {
      const result = ToolResult.ok(answer)
      assert.deepStrictEqual(result.structuredContent, { value: json })
      assert.strictEqual(textOf(result), JSON.stringify(result.structuredContent))
    }
    // A plain string reads as itself inside the JSON, never quoted twice.
    assert.strictEqual(textOf(ToolResult.ok("waited 1s at lap 0")), `{"value":"waited 1s at lap 0"}`)
  })

  it("an undefined answer travels as null under value", () => {
    const result = ToolResult.ok(undefined)
    assert.deepStrictEqual(result.structuredContent, { value: null })
    assert.strictEqual(textOf(result), `{"value":null}`)
  })

  it("a Date answer travels as its ISO string, under value, in both arms", () => {
    const result = ToolResult.ok(new Date(0))
    assert.deepStrictEqual(result.structuredContent, { value: "1970-01-01T00:00:00.000Z" })
    assert.strictEqual(textOf(result), `{"value":"1970-01-01T00:00:00.000Z"}`)
    const nested = ToolResult.ok({ at: new Date(0) })
    assert.deepStrictEqual(nested.structuredContent, { at: "1970-01-01T00:00:00.000Z" })
    assert.strictEqual(textOf(nested), JSON.stringify(nested.structuredContent))
  })

  it("an unserializable answer becomes an error result naming its constructor and reason", () => {
    const result = ToolResult.ok({ n: 10n })
    assert.strictEqual(result.isError, true)
    assert.isUndefined(result.structuredContent)
    assert.match(textOf(result), /^effect-surface: .*an Object has no JSON form \(.*BigInt.*\)$/)
  })

  it("every failure is a branded isError sentence and only a ToolFailure carries structuredContent", () => {
    for (
      const [error, sentence] of [
        [new Error("disk full"), "disk full"],
        [new Busy({ retryIn: 5 }), "Busy {\"retryIn\":5}"],
        [{ code: 7 }, "{\"code\":7}"],
        ["boom", "\"boom\""]
      ] as const
    ) {
      const result = ToolResult.failure(error)
      assert.strictEqual(result.isError, true)
      assert.strictEqual(textOf(result), `effect-surface: ${sentence}`)
      assert.isFalse("structuredContent" in result)
    }
    const refused = ToolResult.failure(ToolFailure.make("refused", { kind: "blocked" }))
    assert.deepStrictEqual(refused, {
      content: [{ type: "text", text: "effect-surface: refused" }],
      structuredContent: { kind: "blocked" },
      isError: true
    })
  })

  it("a ToolFailure detail is normalized like a success: a Date as ISO, a scalar under value", () => {
    const dated = ToolResult.failure(ToolFailure.make("stale", { since: new Date(0) }))
    assert.deepStrictEqual(dated.structuredContent, { since: "1970-01-01T00:00:00.000Z" })
    assert.deepStrictEqual(ToolResult.failure(ToolFailure.make("busy", 5)).structuredContent, { value: 5 })
    assert.deepStrictEqual(ToolResult.failure(ToolFailure.make("when", new Date(0))).structuredContent, {
      value: "1970-01-01T00:00:00.000Z"
    })
  })

  it("a ToolFailure whose detail has no JSON form keeps its message and drops the structured arm", () => {
    const result = ToolResult.failure(ToolFailure.make("refused", { n: 1n }))
    assert.isUndefined(result.structuredContent)
    assert.match(textOf(result), /^effect-surface: refused \(its detail was dropped: .*BigInt.*\)$/)
  })

  it("okImage carries the bytes exactly once, as one image block, with the detail as the structured arm and its text", () => {
    const data = Buffer.from("a picture's bytes, long enough to be unmistakable").toString("base64")
    const result = ToolResult.okImage({ data, mimeType: "image/png" }, { mimeType: "image/png", width: 80, height: 24 })
    assert.deepStrictEqual(result.content, [
      { type: "image", data, mimeType: "image/png" },
      { type: "text", text: JSON.stringify({ mimeType: "image/png", width: 80, height: 24 }) }
    ])
    assert.deepStrictEqual(result.structuredContent, { mimeType: "image/png", width: 80, height: 24 })
    assert.strictEqual(JSON.stringify(result).split(data).length - 1, 1)
  })

  it("content with a detail carries the blocks as given, then the detail's JSON as text; without one, the blocks alone", () => {
    const blocks = [ToolResult.text("the chart:"), ToolResult.image("AA==", "image/png")]
    const result = ToolResult.content(blocks, 3)
    assert.deepStrictEqual(result.content, [...blocks, { type: "text", text: `{"value":3}` }])
    assert.deepStrictEqual(result.structuredContent, { value: 3 })
    assert.deepStrictEqual(ToolResult.content(blocks), { content: blocks })
  })

  it("fromExit frames a success through render when one is given", () => {
    assert.deepStrictEqual(ToolResult.fromExit(Exit.succeed({ a: 1 })).structuredContent, { a: 1 })
    const rendered = ToolResult.fromExit(
      Exit.succeed("AA=="),
      (data) => ToolResult.okImage({ data, mimeType: "image/png" }, {})
    )
    assert.strictEqual(rendered.content[0]?.type, "image")
  })

  it("fromExit frames a typed failure, carrying a ToolFailure's detail", () => {
    const refused = ToolResult.fromExit(Exit.fail(ToolFailure.make("refused", { kind: "stale" })))
    assert.strictEqual(textOf(refused), "effect-surface: refused")
    assert.deepStrictEqual(refused.structuredContent, { kind: "stale" })
    const plain = ToolResult.fromExit(Exit.fail(new Busy({ retryIn: 1 })))
    assert.strictEqual(textOf(plain), "effect-surface: Busy {\"retryIn\":1}")
    assert.isUndefined(plain.structuredContent)
  })

  it("fromExit frames a defect as a message-only error", () => {
    const result = ToolResult.fromExit(Exit.die(new TypeError("x is not a function")))
    assert.deepStrictEqual(result, {
      content: [{ type: "text", text: "effect-surface: x is not a function" }],
      isError: true
    })
  })

  it("fromExit frames an interruption as interrupted", () => {
    const result = ToolResult.fromExit(Exit.interrupt(7))
    assert.deepStrictEqual(result, { content: [{ type: "text", text: "effect-surface: interrupted" }], isError: true })
    assert.strictEqual(textOf(ToolResult.fromCause(Cause.interrupt())), "effect-surface: interrupted")
  })

  it.effect("frame never fails: a refusal, a defect, a throwing render and an interrupted child all become results", () =>
    Effect.gen(function*() {
      const refused = yield* ToolResult.frame(Effect.fail(ToolFailure.make("no", 1)))
      assert.deepStrictEqual(refused.structuredContent, { value: 1 })
      const died = yield* ToolResult.frame(Effect.die(new Error("bug")))
      assert.strictEqual(textOf(died), "effect-surface: bug")
      const badRender = yield* ToolResult.frame(Effect.succeed(1), () => {
        throw new Error("render broke")
      })
      assert.strictEqual(textOf(badRender), "effect-surface: render broke")
      const child = yield* Effect.forkChild(Effect.never)
      const interrupted = yield* ToolResult.frame(Effect.andThen(Fiber.interrupt(child), Fiber.join(child)))
      assert.strictEqual(textOf(interrupted), "effect-surface: interrupted")
    }))

  it("readable drops only the block repeating the structured arm, in our spelling or another server's, and unwraps value", () => {
    assert.deepStrictEqual(ToolResult.readable(ToolResult.ok("exported")), { blocks: [], value: "exported" })
    assert.deepStrictEqual(ToolResult.readable(ToolResult.ok(["t1"])), { blocks: [], value: ["t1"] })
    assert.deepStrictEqual(ToolResult.readable(ToolResult.ok({ id: "t1" })), { blocks: [], value: { id: "t1" } })
    const prose = ToolResult.text("Here is the chart:")
    assert.deepStrictEqual(ToolResult.readable(ToolResult.content([prose, image], { points: 3 })), {
      blocks: [prose, image],
      value: { points: 3 }
    })
    assert.deepStrictEqual(ToolResult.readable(ToolResult.content([prose])), { blocks: [prose] })
    // Another server's echo: pretty-printed with its keys reordered, or the bare value of a { value } arm.
    const spelled = (text: string, structuredContent: ToolResult.ToolResult["structuredContent"] & object) =>
      ToolResult.readable({ content: [ToolResult.text(text)], structuredContent }).blocks
    assert.deepStrictEqual(spelled(`{\n  "b": 2,\n  "a": 1\n}`, { a: 1, b: 2 }), [])
    assert.deepStrictEqual(spelled(`["t1"]`, { value: ["t1"] }), [])
    assert.deepStrictEqual(spelled("exported", { value: "exported" }), [])
    // Prose that only looks like the answer in part is kept.
    assert.deepStrictEqual(spelled(`{"a":1}`, { a: 1, b: 2 }), [ToolResult.text(`{"a":1}`)])
    assert.deepStrictEqual(spelled("1 task open", { value: 1 }), [ToolResult.text("1 task open")])
  })
})
