import { assert, describe, it } from "@effect/vitest"
import { Cause, Data, Effect, Exit, Schema } from "effect"
import { LinkError } from "../../src/surface/LinkError.ts"
import * as ToolFailure from "../../src/core/ToolFailure.ts"

class Busy extends Data.TaggedError("Busy")<{ readonly retryIn: number }> {}
class Gone extends Data.TaggedError("Gone")<{}> {}
class Missing extends Schema.TaggedError<Missing>()("Missing", { key: Schema.String }) {}

type Refusal = { readonly kind: "blocked"; readonly children: ReadonlyArray<string> } | { readonly kind: "stale" }

describe("ToolFailure", () => {
  it.effect("a ToolFailure is yieldable in Effect.gen and caught by its tag with its detail type intact", () =>
    Effect.gen(function*() {
      const refusal: Refusal = { kind: "blocked", children: ["a"] }
      const caught = yield* Effect.gen(function*() {
        return yield* new ToolFailure.ToolFailure({ message: "refused", detail: refusal })
      }).pipe(Effect.catchTag("ToolFailure", (f) => Effect.succeed(f)))
      // The detail keeps the consumer's union, so it narrows without a cast.
      const detail: Refusal = caught.detail
      assert.strictEqual(detail.kind, "blocked")
      assert.strictEqual(caught.message, "refused")
      assert.strictEqual(caught._tag, "ToolFailure")
    }))

  it("is recognises a ToolFailure by its tag and rejects look-alikes", () => {
    assert.isTrue(ToolFailure.is(ToolFailure.make("no", { a: 1 })))
    // A copy from another instance of the package: a different class, the same tag and shape.
    class Foreign extends Data.TaggedError("ToolFailure")<{ readonly message: string; readonly detail: number }> {}
    assert.isTrue(ToolFailure.is(new Foreign({ message: "no", detail: 1 })))
    assert.isFalse(ToolFailure.is({ _tag: "ToolFailure", message: "no", detail: 1 }))
    assert.isFalse(ToolFailure.is(new Busy({ retryIn: 1 })))
  })

  it("messageOf gives an Error's own message", () => {
    assert.strictEqual(ToolFailure.messageOf(new Error("disk full")), "disk full")
    assert.strictEqual(ToolFailure.messageOf(ToolFailure.make("refused", 1)), "refused")
  })

  it("messageOf names a tagged error with an empty message by its tag and its fields", () => {
    assert.strictEqual(ToolFailure.messageOf(new Busy({ retryIn: 5 })), "Busy {\"retryIn\":5}")
    assert.strictEqual(ToolFailure.messageOf(new Gone()), "Gone")
    assert.strictEqual(ToolFailure.messageOf(new Missing({ key: "k" })), "Missing {\"key\":\"k\"}")
  })

  it("messageOf gives a non-Error value as its JSON", () => {
    assert.strictEqual(ToolFailure.messageOf({ code: 7 }), "{\"code\":7}")
    assert.strictEqual(ToolFailure.messageOf("boom"), "\"boom\"")
    assert.strictEqual(ToolFailure.messageOf(42), "42")
    assert.strictEqual(ToolFailure.messageOf(null), "null")
    assert.strictEqual(ToolFailure.messageOf(undefined), "undefined")
  })

  it("messageOf names an unserializable value's constructor and the reason", () => {
    const cyclic: { self?: unknown } = {}
    cyclic.self = cyclic
    const cyclicMessage = ToolFailure.messageOf(cyclic)
    assert.match(cyclicMessage, /^an Object has no JSON form \(.*circular.*\)$/is)
    const bigMessage = ToolFailure.messageOf(10n)
    assert.match(bigMessage, /^a BigInt has no JSON form \(.*BigInt.*\)$/)
  })

  it("messageOf words a LinkError by its message", () => {
    assert.strictEqual(
      ToolFailure.messageOf(new LinkError({ phase: "call", reason: "socket closed" })),
      "link failed: socket closed"
    )
  })

  it("messageOf reads a Cause through to its failure, then its defect, then its interruption", () => {
    assert.strictEqual(ToolFailure.messageOf(Cause.fail(new Error("refused"))), "refused")
    assert.strictEqual(ToolFailure.messageOf(Cause.die(new Error("bug"))), "bug")
    assert.strictEqual(ToolFailure.messageOf(Cause.combine(Cause.die("bug"), Cause.fail("refused"))), "\"refused\"")
    assert.strictEqual(ToolFailure.messageOf(Cause.interrupt(1)), "interrupted")
    const exit = Effect.runSyncExit(Effect.interrupt)
    assert.isTrue(Exit.isFailure(exit) && ToolFailure.messageOf(exit.cause) === "interrupted")
  })

  it("messageOf follows an empty-message error's cause, and stops on a cycle", () => {
    assert.strictEqual(ToolFailure.messageOf(new Error("", { cause: new Error("root") })), "Error: root")
    const loop = new Error("")
    loop.cause = loop
    assert.match(ToolFailure.messageOf(loop), /^Error(: Error)+$/)
  })
})
