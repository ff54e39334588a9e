import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as HttpResponse from "../../src/mcp/v2025/HttpResponse.ts"

const sse = (...chunks: ReadonlyArray<string>) => {
  const encoder = new TextEncoder()
  return new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk))
        controller.close()
      }
    }),
    {
      status: 200,
      headers: { "content-type": "text/event-stream", "mcp-session-id": "s1", "cache-control": "no-cache" }
    }
  )
}

const answer = (id: number) => `id: ${id}-1\ndata: ${JSON.stringify({ jsonrpc: "2.0", id, result: { ok: id } })}\n\n`
const priming = "id: 0-0\nretry: 500\ndata: \n\n"
const log = `id: 1-0\ndata: ${
  JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } })
}\n\n`

describe("choosing JSON or SSE for a POST", () => {
  it.effect("a call that produced only its answer is answered as one JSON body, session id kept", () =>
    Effect.gen(function*() {
      const settled = yield* HttpResponse.settle(sse(priming, answer(1)), 1)
      assert.strictEqual(settled.headers.get("content-type"), "application/json")
      assert.strictEqual(settled.headers.get("mcp-session-id"), "s1")
      assert.deepStrictEqual(yield* Effect.promise(() => settled.json()), { jsonrpc: "2.0", id: 1, result: { ok: 1 } })
    }))

  it.effect("a batch's answers become one JSON array, whichever chunks they arrived in", () =>
    Effect.gen(function*() {
      const both = answer(1) + answer(2)
      const settled = yield* HttpResponse.settle(sse(both.slice(0, 17), both.slice(17)), 2)
      const body: unknown = yield* Effect.promise(() => settled.json())
      assert.deepStrictEqual((body as ReadonlyArray<{ id: number }>).map((m) => m.id), [1, 2])
    }))

  it.effect("a call that logged before answering stays a stream, every byte replayed in order", () =>
    Effect.gen(function*() {
      const settled = yield* HttpResponse.settle(sse(priming, log, answer(1)), 1)
      assert.strictEqual(settled.headers.get("content-type"), "text/event-stream")
      assert.strictEqual(yield* Effect.promise(() => settled.text()), priming + log + answer(1))
    }))

  it.effect("a stream closed before its answer (for the client to poll) stays a stream", () =>
    Effect.gen(function*() {
      const settled = yield* HttpResponse.settle(sse(priming), 1)
      assert.strictEqual(settled.headers.get("content-type"), "text/event-stream")
      assert.strictEqual(yield* Effect.promise(() => settled.text()), priming)
    }))

  it.effect("a response that is not a stream, or a POST expecting no answer, passes through", () =>
    Effect.gen(function*() {
      const accepted = new Response(null, { status: 202 })
      assert.strictEqual(yield* HttpResponse.settle(accepted, 1), accepted)
      const stream = sse(answer(1))
      assert.strictEqual(yield* HttpResponse.settle(stream, 0), stream)
    }))

  it.effect("a stream is reported delivered, by its first event id, once its answers have all been handed on", () =>
    Effect.gen(function*() {
      const reported: Array<string> = []
      const delivered = (id: string) => {
        reported.push(id)
      }
      // As JSON: at once, its client never having seen an event id.
      yield* HttpResponse.settle(sse(priming, answer(1)), 1, delivered)
      assert.deepStrictEqual(reported, ["0-0"])
      // Replayed as a stream: only once the stream has ended with its answers.
      const streamed = yield* HttpResponse.settle(sse(priming, log, answer(1)), 1, delivered)
      assert.deepStrictEqual(reported, ["0-0"])
      yield* Effect.promise(() => streamed.text())
      assert.deepStrictEqual(reported, ["0-0", "0-0"])
    }))

  it.effect("a stream that ends before its answers, or that its client cancels, is never reported delivered", () =>
    Effect.gen(function*() {
      const reported: Array<string> = []
      const delivered = (id: string) => {
        reported.push(id)
      }
      const polled = yield* HttpResponse.settle(sse(priming, log), 1, delivered)
      yield* Effect.promise(() => polled.text())
      const cancelled = yield* HttpResponse.settle(sse(priming, log, answer(1)), 1, delivered)
      yield* Effect.promise(() => cancelled.body?.cancel() ?? Promise.resolve())
      assert.deepStrictEqual(reported, [])
    }))

  it("events are split off complete and comments are not events", () => {
    const { events, rest } = HttpResponse.parseEvents(": open\n\nid: 7\ndata: a\ndata: b\n\nid: 8\nda")
    assert.deepStrictEqual(events, [{ id: "7", data: "a\nb" }])
    assert.strictEqual(rest, "id: 8\nda")
  })
})
