// The 2026-07-28 request path's parts on their own: what parses client input (headers, messages,
// envelopes, states) is checked property by property; the parked-call table is driven under the
// test clock.
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Ref, Result, Schema } from "effect"
import { TestClock } from "effect/testing"
import { Ask } from "effect-surface"
import * as Calls from "../../src/mcp/v2026/internal/calls.ts"
import * as Headers from "../../src/protocol/v2026/Headers.ts"
import * as RequestState from "../../src/mcp/v2026/RequestState.ts"
import * as Wire from "../../src/protocol/v2026/Messages.ts"

const envelope: Wire.Envelope = {
  protocolVersion: "2026-07-28",
  capabilities: {
    elicitation: true,
    sampling: true,
    roots: false,
    tasks: false,
    raw: { elicitation: {}, sampling: {} }
  },
  clientInfo: undefined,
  logLevel: undefined,
  progressToken: undefined
}

const quiet = () => {}

describe("parsing what a 2026 client sends", () => {
  it.prop("a header value survives the base64 sentinel: encoded, it decodes to itself", [Schema.String], ([value]) => {
    // A string with a lone surrogate has no UTF-8 of its own to carry.
    if (/\p{Surrogate}/u.test(value)) return
    const encoded = `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`
    assert.strictEqual(Headers.decode(encoded), value)
  })

  it.prop("any header value decodes to a string or is refused, never throws", [Schema.String], ([value]) => {
    const decoded = Headers.decode(value)
    assert.isTrue(decoded === undefined || typeof decoded === "string")
  })

  it.prop(
    "any JSON body sorts into exactly one kind of message, and a request keeps its id",
    [Schema.Json],
    ([body]) => {
      const sorted = Wire.classify(body)
      assert.include(["Request", "Notification", "Response", "Invalid"], sorted._tag)
      if (sorted._tag === "Request") assert.strictEqual(sorted.id, (body as { readonly id: unknown }).id)
    }
  )

  it.prop(
    "any params either give an envelope or are refused -32602 with 400, never throw",
    [Schema.Json],
    ([params]) => {
      const read = Wire.envelope({ _meta: params })
      if (Result.isFailure(read)) {
        assert.strictEqual(read.failure.code, -32602)
        assert.strictEqual(read.failure.status, 400)
      }
    }
  )

  it.effect.prop(
    "any string presented as a state is refused with a reason, never accepted or thrown",
    [Schema.String],
    ([state]) =>
      Effect.gen(function*() {
        const codec = RequestState.make({ key: "k" })
        const verified = yield* Effect.result(codec.verify(state, "target"))
        assert.isTrue(Result.isFailure(verified))
      })
  )

  it.effect("a state verifies for its own request until it expires; another key, another request or a later time refuses it", () =>
    Effect.gen(function*() {
      const codec = RequestState.make({ key: "shared", ttl: "1 minute" })
      const target = RequestState.targetOf("tools/call", "add", { title: "x" })
      const state = yield* codec.sign({
        call: "c",
        instance: "i",
        round: 1,
        target,
        answers: { a: { action: "accept" } }
      })
      const payload = yield* codec.verify(state, target)
      assert.deepStrictEqual(payload.answers, { a: { action: "accept" } })
      const refused = (result: Result.Result<unknown, RequestState.StateRefused>) =>
        Result.isFailure(result) ? result.failure.reason : "accepted"
      assert.strictEqual(
        refused(yield* Effect.result(RequestState.make({ key: "other" }).verify(state, target))),
        "tampered"
      )
      assert.strictEqual(
        refused(yield* Effect.result(codec.verify(state, RequestState.targetOf("tools/call", "add", { title: "y" })))),
        "foreign"
      )
      yield* TestClock.adjust("61 seconds")
      assert.strictEqual(refused(yield* Effect.result(codec.verify(state, target))), "expired")
    }))

  it("a request's digest does not depend on the order its arguments' keys were written in", () => {
    assert.strictEqual(
      RequestState.targetOf("tools/call", "t", { a: 1, b: { c: 2, d: 3 } }),
      RequestState.targetOf("tools/call", "t", { b: { d: 3, c: 2 }, a: 1 })
    )
  })
})

describe("parked calls", () => {
  // A job's failures are the face's refusals; a question that fails here is a defect of the job.
  const ask = Effect.orDie(
    Effect.map(Ask.elicit("Name?", Schema.Struct({ name: Schema.String }), { key: "who" }), (answer) => ({
      said: answer._tag === "Accept" ? answer.content.name : "nobody"
    }))
  )

  it.effect("a call that asks parks; the retry with its state continues the same handler, which ran once", () =>
    Effect.gen(function*() {
      const calls = yield* Calls.make({ codec: RequestState.make() })
      const runs = yield* Ref.make(0)
      const job = Effect.andThen(Ref.update(runs, (n) => n + 1), ask)
      const first = yield* calls.start(job, "t", {}, { notify: quiet, envelope })
      assert.strictEqual(first._tag, "InputRequired")
      if (first._tag !== "InputRequired") return
      assert.deepStrictEqual(Object.keys(first.inputRequests), ["who"])
      const payload = yield* calls.codec.verify(first.requestState, "t")
      const done = yield* calls.resume(payload, { who: { action: "accept", content: { name: "Ada" } } }, {
        notify: quiet,
        envelope
      })
      assert.deepStrictEqual(done, { _tag: "Complete", result: { said: "Ada" } })
      assert.strictEqual(yield* Ref.get(runs), 1)
    }))

  it.effect("a retry without the answer is asked again; a malformed answer is refused and the question stands", () =>
    Effect.gen(function*() {
      const calls = yield* Calls.make({ codec: RequestState.make() })
      const first = yield* calls.start(ask, "t", {}, { notify: quiet, envelope })
      if (first._tag !== "InputRequired") return assert.fail(first._tag)
      const payload = yield* calls.codec.verify(first.requestState, "t")
      const malformed = yield* calls.resume(payload, { who: 12345 }, { notify: quiet, envelope })
      assert.strictEqual(malformed._tag, "Error")
      const missing = yield* calls.resume(payload, {}, { notify: quiet, envelope })
      assert.strictEqual(missing._tag, "InputRequired")
    }))

  it.effect("questions asked side by side travel in one round", () =>
    Effect.gen(function*() {
      const calls = yield* Calls.make({ codec: RequestState.make() })
      const both = Effect.all([
        Ask.elicit("a?", Schema.Struct({ a: Schema.String }), { key: "a" }),
        Ask.sample({ messages: [{ role: "user", content: { type: "text", text: "b?" } }], maxTokens: 5 }, {
          key: "b"
        })
      ], { concurrency: "unbounded" })
      const first = yield* calls.start(Effect.orDie(Effect.as(both, {})), "t", {}, { notify: quiet, envelope })
      if (first._tag !== "InputRequired") return assert.fail(first._tag)
      assert.deepStrictEqual(Object.keys(first.inputRequests).sort(), ["a", "b"])
    }))

  it.effect("an answer sent ahead answers its question at once: no round trip", () =>
    Effect.gen(function*() {
      const calls = yield* Calls.make({ codec: RequestState.make() })
      const done = yield* calls.start(ask, "t", { who: { action: "accept", content: { name: "Bo" } } }, {
        notify: quiet,
        envelope
      })
      assert.deepStrictEqual(done, { _tag: "Complete", result: { said: "Bo" } })
    }))

  it.effect("a parked call no retry continues ends after the state's lifetime, through its finalizers", () =>
    Effect.gen(function*() {
      const calls = yield* Calls.make({ codec: RequestState.make({ ttl: "5 minutes" }) })
      const ended = yield* Deferred.make<void>()
      const job = ask.pipe(Effect.onInterrupt(() => Deferred.succeed(ended, undefined)))
      const first = yield* calls.start(job, "t", {}, { notify: quiet, envelope })
      assert.strictEqual(first._tag, "InputRequired")
      assert.strictEqual(yield* calls.size, 1)
      const waiting = yield* Effect.forkChild(Deferred.await(ended))
      yield* TestClock.adjust("5 minutes")
      yield* Fiber.join(waiting)
      assert.strictEqual(yield* calls.size, 0)
    }))

  it.effect("asking for what the client never declared fails the call as a missing capability (-32021)", () =>
    Effect.gen(function*() {
      const calls = yield* Calls.make({ codec: RequestState.make() })
      const roots = Effect.orDie(Effect.as(Ask.roots(), {}))
      const outcome = yield* calls.start(roots, "t", {}, { notify: quiet, envelope })
      assert.strictEqual(outcome._tag, "Error")
      if (outcome._tag !== "Error") return
      assert.strictEqual(outcome.error.code, -32021)
      assert.deepStrictEqual(outcome.error.data, { requiredCapabilities: { roots: {} } })
    }))
})
