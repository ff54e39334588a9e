// Calls parked between 2026-07-28 rounds, driven over HTTP with raw requests a hostile client
// would send: answers for questions never asked are not kept, one caller's waiting calls are bounded
// in number and in the bytes of arguments and answers they hold (the verified subject's own bound behind a
// resource server, everyone's together otherwise), an answer past its size is refused, and a call
// no retry continues frees what it held when its state expires.
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Layer, Metric, Ref } from "effect"
import { TestClock } from "effect/testing"
import { Identity } from "effect-surface"
import { McpAuth, McpHttp, McpRequestState, McpTokenVerifier } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import * as Holders from "../../src/mcp/v2026/internal/holders.ts"
import { modernRequest, resultOf } from "./authServed.ts"
import { greet, interview } from "./modern.ts"

const asks = { elicitation: { form: {} }, sampling: {} }

const named = (name: string) => ({ action: "accept", content: { name } })
const sampled = { role: "assistant", model: "m", content: { type: "text", text: "hi" } }

const tokens = {
  "ada-token": Identity.token({ subject: "ada", clientId: "cli", scopes: ["board:read"] }),
  "bo-token": Identity.token({ subject: "bo", clientId: "cli", scopes: ["board:read"] })
}

/** The board with the asking tools, its 2026 calls parked under `requestState`; behind a resource server when `authorized`. */
const serve = (requestState: McpRequestState.Options, authorized = false) =>
  Effect.gen(function*() {
    const options = yield* serverOptions
    const ended = yield* Deferred.make<void>()
    const served = McpHttp.serve({
      ...options,
      tools: { ...options.tools, greet, interview: interview(yield* Ref.make(0), ended) },
      scopes: { ...options.scopes, tools: { ...options.scopes?.tools, greet: "board:read", interview: "board:read" } },
      requestState,
      http: { port: 0 }
    })
    const verifier = McpTokenVerifier.layerTest({ issuer: "https://auth.test", tokens })
    const { url } = yield* authorized
      ? served.pipe(Effect.provide(McpAuth.layer({ scopesSupported: ["board:read"] }).pipe(Layer.provide(verifier))))
      : served
    return { url, ended }
  })

const call = (url: string, name: string, params: Record<string, unknown> = {}, token?: string) =>
  Effect.map(
    modernRequest(url, token === undefined ? undefined : `Bearer ${token}`, "tools/call", {
      name,
      arguments: {},
      ...params
    }, asks),
    (answered) => {
      const message = resultOf(answered)
      return { status: answered.status, result: message?.result, error: message?.error }
    }
  )

const held = Effect.all({
  calls: Effect.map(Metric.value(Holders.parkedCalls), (state) => state.value),
  bytes: Effect.map(Metric.value(Holders.parkedAnswerBytes), (state) => state.value)
})

describe("parked 2026 calls", () => {
  it.live("an answer to a question never asked is not kept once the call waits, and that question is asked when it comes", () =>
    Effect.gen(function*() {
      const { url } = yield* serve({})
      const before = yield* held
      const unasked = { "sample-2": { ...sampled, content: { type: "text", text: "x".repeat(500_000) } } }
      const first = yield* call(url, "interview", { inputResponses: unasked })
      assert.strictEqual(first.result?.["resultType"], "input_required")
      assert.deepStrictEqual(Object.keys(first.result?.["inputRequests"] as object), ["elicit-1"])
      const now = yield* held
      assert.strictEqual(now.calls - before.calls, 1)
      // What it holds is its arguments, {}, and no answer.
      assert.strictEqual(now.bytes - before.bytes, 2)
      const second = yield* call(url, "interview", {
        inputResponses: { "elicit-1": named("Ada") },
        requestState: first.result?.["requestState"]
      })
      assert.strictEqual(second.result?.["resultType"], "input_required")
      assert.deepStrictEqual(Object.keys(second.result?.["inputRequests"] as object), ["sample-2"])
    }).pipe(Effect.scoped))

  it.live("a caller may have at most maxParked calls waiting: the next is ended with a sentence, and another caller parks as before", () =>
    Effect.gen(function*() {
      const { url } = yield* serve({ maxParked: 3 }, true)
      for (let n = 0; n < 3; n++) {
        assert.strictEqual((yield* call(url, "greet", {}, "ada-token")).result?.["resultType"], "input_required")
      }
      const fourth = yield* call(url, "greet", {}, "ada-token")
      assert.strictEqual(fourth.error?.code, -32000)
      assert.include(fourth.error?.message, "a caller may have at most 3 at once (requestState.maxParked)")
      assert.strictEqual((yield* call(url, "greet", {}, "bo-token")).result?.["resultType"], "input_required")
    }).pipe(Effect.scoped))

  it.live("without a resource server every caller's waiting calls count together against maxParked", () =>
    Effect.gen(function*() {
      const { url } = yield* serve({ maxParked: 2 })
      for (let n = 0; n < 2; n++)
        assert.strictEqual((yield* call(url, "greet")).result?.["resultType"], "input_required")
      const third = yield* call(url, "greet")
      assert.include(third.error?.message, "callers without a verified subject, together, may have at most 2 at once")
    }).pipe(Effect.scoped))

  it.live("an answer larger than maxAnswerBytes is refused -32602 naming the bound, sent ahead or on a retry", () =>
    Effect.gen(function*() {
      const { url } = yield* serve({ maxAnswerBytes: 1000 })
      const large = { "elicit-1": named("x".repeat(2000)) }
      const ahead = yield* call(url, "greet", { inputResponses: large })
      assert.strictEqual(ahead.error?.code, -32602)
      assert.include(ahead.error?.message, "more than the 1000 bytes an answer may be (requestState.maxAnswerBytes)")
      const first = yield* call(url, "greet")
      const retry = yield* call(url, "greet", { inputResponses: large, requestState: first.result?.["requestState"] })
      assert.strictEqual(retry.error?.code, -32602)
      assert.include(retry.error?.message, "inputResponses[\"elicit-1\"] is 20")
      const small = yield* call(url, "greet", {
        inputResponses: { "elicit-1": named("Ada") },
        requestState: first.result?.["requestState"]
      })
      assert.strictEqual(small.result?.["resultType"], "complete")
    }).pipe(Effect.scoped))

  it.live("the answers one caller's waiting calls hold are bounded in bytes: a call that would wait past maxHeldBytes is ended with a sentence", () =>
    Effect.gen(function*() {
      const { url } = yield* serve({ maxHeldBytes: 5000 })
      const before = yield* held
      const answered = { inputResponses: { "elicit-1": named("x".repeat(3000)) } }
      const first = yield* call(url, "interview", answered)
      assert.strictEqual(first.result?.["resultType"], "input_required")
      const kept = (yield* held).bytes - before.bytes
      assert.isAbove(kept, 3000)
      const second = yield* call(url, "interview", answered)
      assert.strictEqual(second.error?.code, -32000)
      assert.include(
        second.error?.message,
        "hold at most 5000 bytes of arguments and answers (requestState.maxHeldBytes)"
      )
      assert.deepStrictEqual(yield* held, { calls: before.calls + 1, bytes: before.bytes + kept })
    }).pipe(Effect.scoped))

  it.live("a waiting call's arguments count against maxHeldBytes as its answers do: a call that would wait past it is ended with a sentence", () =>
    Effect.gen(function*() {
      const { url } = yield* serve({ maxHeldBytes: 5000 })
      const before = yield* held
      const large = { arguments: { pad: "x".repeat(3000) } }
      const first = yield* call(url, "greet", large)
      assert.strictEqual(first.result?.["resultType"], "input_required")
      const kept = (yield* held).bytes - before.bytes
      assert.isAbove(kept, 3000)
      const second = yield* call(url, "greet", large)
      assert.strictEqual(second.error?.code, -32000)
      assert.include(
        second.error?.message,
        "hold at most 5000 bytes of arguments and answers (requestState.maxHeldBytes)"
      )
      assert.deepStrictEqual(yield* held, { calls: before.calls + 1, bytes: before.bytes + kept })
      // Once it is answered and ends, what it held is given back.
      const done = yield* call(url, "greet", {
        ...large,
        inputResponses: { "elicit-1": named("Ada") },
        requestState: first.result?.["requestState"]
      })
      assert.strictEqual(done.result?.["resultType"], "complete")
      assert.deepStrictEqual(yield* held, before)
    }).pipe(Effect.scoped))

  it.effect("a waiting call no retry continues ends when its state expires, and what it held is no longer counted", () =>
    Effect.gen(function*() {
      const { ended, url } = yield* serve({ ttl: "10 minutes" })
      const before = yield* held
      const first = yield* call(url, "interview", { inputResponses: { "elicit-1": named("Ada") } })
      assert.strictEqual(first.result?.["resultType"], "input_required")
      assert.strictEqual((yield* held).calls, before.calls + 1)
      assert.isAbove((yield* held).bytes, before.bytes)
      yield* TestClock.adjust("10 minutes")
      yield* Deferred.await(ended)
      assert.deepStrictEqual(yield* held, before)
    }))
})
