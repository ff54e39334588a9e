// MCP 2026-07-28 served by two instances sharing a real Redis and nothing else: every request lands
// where the test sends it, so a call's retry is served by the instance that did not start it. Both
// serve one board (one implementation), as instances of one app share its state.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Ref, Schema, Scope } from "effect"
import { Ask, Tools } from "effect-surface"
import { McpHttp } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import type { BoardClients } from "../../examples/board/app.ts"
import { contentOf, interview, overHttp, raw } from "./modern.ts"
import * as RedisServer from "./redisServer.ts"

const say = (text: string) => Tools.content([Tools.text(text)])

/** The board's options with tools that ask: one that only reads, one that changes the board. */
const boardWithQuestions = Effect.gen(function*() {
  const options = yield* serverOptions
  const started = yield* Ref.make(0)
  const tools = {
    ...options.tools,
    interview: interview(started),
    add_confirmed: Tools.make({
      description: "Adds a task, then asks whether to keep its title.",
      input: Schema.Struct({ title: Schema.String }),
      mutates: true,
      handler: ({ title }, clients: BoardClients) =>
        Effect.gen(function*() {
          const { id } = yield* Effect.orDie(clients.core.procedures.tasks.add({ title }))
          const answer = yield* Ask.elicit(`Keep "${title}"?`, Schema.Struct({ keep: Schema.Boolean }), {
            key: "confirm"
          })
          return answer._tag === "Accept" && answer.content.keep ? `kept ${id}` : `added ${id} unconfirmed`
        }),
      render: say
    })
  }
  return { options, tools, started }
})

const key = "the key every instance shares"

/** Two instances over one board and one Redis; each can be stopped on its own. */
const pair = Effect.gen(function*() {
  const redis = yield* RedisServer.start
  const { options, started, tools } = yield* boardWithQuestions
  const prefix = `test:${crypto.randomUUID()}:`
  const instance = Effect.gen(function*() {
    const scope = yield* Scope.fork(yield* Effect.scope)
    const shared = yield* RedisServer.sharedSessions(redis.url, prefix, scope)
    const served = yield* McpHttp.serve({ ...options, tools, requestState: { key }, http: { port: 0 } })
      .pipe(Effect.provideContext(shared), Scope.provide(scope))
    return { served, stop: Scope.close(scope, Exit.void) }
  })
  const a = yield* instance
  const b = yield* instance
  return { a, b, started }
})

/** A fetch that sends each `tools/call` to the next of `urls` in turn, and anything else to the first. */
const alternating = (urls: ReadonlyArray<string>, landed: Array<number>): typeof fetch => {
  let calls = 0
  return (_input, init) => {
    const body = typeof init?.body === "string" ? JSON.parse(init.body) : undefined
    const at = body?.method === "tools/call" ? calls++ % urls.length : 0
    if (body?.method === "tools/call") landed.push(at)
    return fetch(urls[at]!, init)
  }
}

describe("MCP 2026-07-28: two instances sharing only Redis", () => {
  it.live(
    "a form and a model question inside a tool complete with each retry served by the other instance",
    () =>
      Effect.gen(function*() {
        const { a, b, started } = yield* pair
        const landed: Array<number> = []
        const client = yield* overHttp(a.served.url, "pin", {
          elicit: () => ({ name: "Ada" }),
          sample: () => "well met"
        }, alternating([a.served.url, b.served.url], landed))
        const result = yield* Effect.promise(() => client.callTool({ name: "interview", arguments: {} }))
        assert.deepStrictEqual(contentOf(result), [{ type: "text", text: "Ada: well met" }])
        assert.deepStrictEqual(landed, [0, 1, 0], "started at A, first retry at B, second back at A")
        assert.strictEqual(yield* Ref.get(started), 1)
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )

  it.live(
    "a tool that adds a task and then asks for confirmation adds one task, not two, when the retry lands on the other instance",
    () =>
      Effect.gen(function*() {
        const { a, b } = yield* pair
        const landed: Array<number> = []
        const client = yield* overHttp(
          a.served.url,
          "pin",
          { elicit: () => ({ keep: true }) },
          alternating([
            a.served.url,
            b.served.url
          ], landed)
        )
        const result = yield* Effect.promise(() =>
          client.callTool({ name: "add_confirmed", arguments: { title: "write the docs" } })
        )
        assert.deepStrictEqual(contentOf(result), [{ type: "text", text: "kept t1" }])
        assert.deepStrictEqual(landed, [0, 1])
        const open = yield* Effect.promise(() => client.callTool({ name: "tasks_open", arguments: {} }))
        assert.deepStrictEqual(open.structuredContent, { value: ["t1"] })
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )

  it.live(
    "a listen stream held by one instance hears a list move made through the other",
    () =>
      Effect.gen(function*() {
        const { a, b } = yield* pair
        const client = yield* overHttp(b.served.url, "pin")
        const heard: Array<unknown> = []
        client.setNotificationHandler("notifications/tools/list_changed", (notification) => {
          heard.push(notification.params?._meta)
        })
        const subscription = yield* Effect.promise(() => client.listen({ toolsListChanged: true }))
        yield* a.served.face.setTools({})
        yield* Effect.promise(async () => {
          for (let waited = 0; waited < 5000 && heard.length === 0; waited += 20) {
            await new Promise((resolve) => setTimeout(resolve, 20))
          }
        })
        assert.strictEqual(heard.length, 1)
        yield* Effect.promise(() => subscription.close())
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )

  it.live(
    "a retry for a call that changes things, parked on an instance that has gone, is refused with a sentence saying so",
    () =>
      Effect.gen(function*() {
        const { a, b } = yield* pair
        const capabilities = { elicitation: {} }
        const params = { name: "add_confirmed", arguments: { title: "once" } }
        const first = yield* raw(a.served.url, 1, "tools/call", params, capabilities)
        const result = first.answer.result!
        yield* a.stop
        const retry = yield* raw(b.served.url, 2, "tools/call", {
          ...params,
          requestState: result["requestState"],
          inputResponses: { confirm: { action: "accept", content: { keep: true } } }
        }, capabilities)
        assert.strictEqual(retry.answer.error?.code, -32602)
        assert.include(retry.answer.error?.message ?? "", "has gone")
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )
})

describe("MCP 2026-07-28: two instances sharing only the signing key", () => {
  /** Two instances over one board, no Redis: nothing shared but the key their states are signed with. */
  const keyOnly = Effect.gen(function*() {
    const { options, started, tools } = yield* boardWithQuestions
    const instance = McpHttp.serve({ ...options, tools, requestState: { key }, http: { port: 0 } })
    return { a: yield* instance, b: yield* instance, started }
  })

  it.live(
    "a tool that only reads completes with its retry on the other instance, run again there with the answers it had",
    () =>
      Effect.gen(function*() {
        const { a, b, started } = yield* keyOnly
        const landed: Array<number> = []
        const client = yield* overHttp(
          a.url,
          "pin",
          { elicit: () => ({ name: "Ada" }), sample: () => "hi" },
          alternating([
            a.url,
            b.url
          ], landed)
        )
        const result = yield* Effect.promise(() => client.callTool({ name: "interview", arguments: {} }))
        assert.deepStrictEqual(contentOf(result), [{ type: "text", text: "Ada: hi" }])
        assert.deepStrictEqual(landed, [0, 1, 0])
        // Started at A; run again at B (which cannot reach A) with the name; again at A (which cannot
        // reach B's parked call) with both answers. A tool that only reads may run three times.
        assert.strictEqual(yield* Ref.get(started), 3)
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )

  it.live(
    "a tool that changes things is never run twice: its retry on the other instance is refused with a sentence",
    () =>
      Effect.gen(function*() {
        const { a, b } = yield* keyOnly
        const capabilities = { elicitation: {} }
        const params = { name: "add_confirmed", arguments: { title: "once" } }
        const first = yield* raw(a.url, 1, "tools/call", params, capabilities)
        const retry = yield* raw(b.url, 2, "tools/call", {
          ...params,
          requestState: first.answer.result!["requestState"],
          inputResponses: { confirm: { action: "accept", content: { keep: true } } }
        }, capabilities)
        assert.strictEqual(retry.answer.error?.code, -32602)
        assert.include(retry.answer.error?.message ?? "", "cannot reach")
        const open = yield* raw(a.url, 3, "tools/call", { name: "tasks_open", arguments: {} })
        assert.deepStrictEqual(open.answer.result?.["structuredContent"], { value: ["t1"] })
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )
})
