// A 2025 session's end is final the moment its DELETE is answered, at every instance serving it:
// any request naming it afterwards, wherever it lands, is answered 404 "Session not found". A
// request that races the session's close is answered as served or as that same 404, never with an
// error about the request itself. Checked many times over in one test each, so a pass is not luck.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Scope } from "effect"
import { Tools } from "effect-surface"
import { McpHttp } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import { openGet, post, rawSession, text } from "./httpRaw.ts"
import * as RedisServer from "./redisServer.ts"

const rounds = 30

// Answers a while after it is called: a request still on its way when its session ends.
const slow = Tools.make({
  description: "Answers after a pause.",
  mutates: false,
  handler: () => Effect.as(Effect.sleep("300 millis"), "answered after a pause")
})

// Cannot be cut short: a session ending while it runs ends only once it has answered.
const stubborn = Tools.make({
  description: "Answers after a pause nothing interrupts.",
  mutates: false,
  handler: () => Effect.uninterruptible(Effect.as(Effect.sleep("400 millis"), "answered regardless"))
})

/** One instance of the board: alone (in memory), or sharing its sessions through `redisUrl`. */
const instance = (redisUrl: string | undefined, prefix: string) =>
  Effect.gen(function*() {
    const scope = yield* Scope.fork(yield* Effect.scope)
    const shared = redisUrl === undefined ? undefined : yield* RedisServer.sharedSessions(redisUrl, prefix, scope)
    const options = yield* serverOptions
    const serving = McpHttp.serve({
      ...options,
      tools: { ...options.tools, slow, stubborn },
      coalesce: "1 millis",
      http: { port: 0 }
    })
    const served = yield* (shared === undefined ? serving : Effect.provideContext(serving, shared)).pipe(
      Scope.provide(scope)
    )
    return served.url
  })

const pair = Effect.gen(function*() {
  const redis = yield* RedisServer.start
  const prefix = `test:${crypto.randomUUID()}:`
  return [yield* instance(redis.url, prefix), yield* instance(redis.url, prefix)] as const
})

const listTools = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list" })

const remove = (url: string, session: string) =>
  Effect.promise(() =>
    fetch(url, { method: "DELETE", headers: { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" } })
  )

/** A request's status and body, read whole (a GET stream that opened is only its status). */
const answer = (response: Response, method: string) =>
  method === "GET" && response.ok
    ? Effect.promise(() => response.body?.cancel() ?? Promise.resolve()).pipe(Effect.as({ status: 200, body: "" }))
    : Effect.map(text(response), (body) => ({ status: response.status, body }))

const postAnswer = (url: string, id: number, session: string) =>
  Effect.flatMap(post(url, listTools(id), session), (response) => answer(response, "POST"))

const callAnswer = (url: string, id: number, session: string, name: string, meta?: Record<string, unknown>) =>
  Effect.flatMap(
    post(url, {
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: {}, ...(meta === undefined ? {} : { _meta: meta }) }
    }, session),
    (response) => answer(response, "POST")
  )

/** A request that raced the session's end: served whole, or told the session is not found. */
const servedOrGone = (reply: { readonly status: number; readonly body: string }, label: string, served = "tools") => {
  if (reply.status === 200) assert.include(reply.body, served, `${label}: ${reply.body}`)
  else {
    assert.strictEqual(reply.status, 404, `${label}: ${reply.body}`)
    assert.include(reply.body, "Session not found", label)
  }
}

/** Open a session at `opener`, served at `other` too (a replica there), and return its id. */
const servedAtBoth = (opener: string, other: string) =>
  Effect.gen(function*() {
    const session = yield* rawSession(opener)
    const there = yield* postAnswer(other, 2, session)
    assert.strictEqual(there.status, 200, there.body)
    return session
  })

/** Other sessions' calls at both instances for the scope's life, so neither waits idle for the next request. */
const busy = (urls: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const sessions = yield* Effect.forEach(urls, rawSession)
    const calls = (url: string, session: string) =>
      Effect.forever(Effect.flatMap(post(url, listTools(1), session), text))
    yield* Effect.forEach(
      [0, 1, 2, 3],
      (i) => Effect.forkScoped(calls(urls[i % urls.length] ?? "", sessions[i % sessions.length] ?? "")),
      { discard: true }
    )
  })

describe("MCP over Streamable HTTP: a session's end", () => {
  it.live(
    "a DELETE answered at one instance has ended the session at the other: a POST or GET there right after is 404, every time",
    () =>
      Effect.gen(function*() {
        const urls = yield* pair
        yield* busy(urls)
        for (let n = 0; n < rounds; n++) {
          const [here, there] = n % 2 === 0 ? urls : [urls[1], urls[0]]
          // Opened (and led) there, deleted at its replica here.
          const session = yield* servedAtBoth(there, here)
          assert.strictEqual((yield* remove(here, session)).status, 200)
          const method = n % 3 === 2 ? "GET" : "POST"
          const after = method === "GET"
            ? yield* Effect.flatMap(openGet(there, session), (response) => answer(response, "GET"))
            : yield* postAnswer(there, 3, session)
          assert.strictEqual(after.status, 404, `round ${n}, ${method} at the other instance: ${after.body}`)
          const again = yield* postAnswer(here, 4, session)
          assert.strictEqual(again.status, 404, `round ${n}, POST at the instance that deleted it: ${again.body}`)
        }
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "a DELETE is answered only once the other instance has ended the session, even one slow to hear of it",
    () =>
      Effect.gen(function*() {
        const [a, b] = yield* pair
        const first = yield* servedAtBoth(a, b)
        const second = yield* servedAtBoth(a, b)
        // The other instance takes a while to end the first session (a call there must finish
        // first), and hears of the second's end only after.
        yield* Effect.forkScoped(callAnswer(b, 5, first, "stubborn"))
        yield* Effect.sleep("50 millis")
        yield* Effect.forkScoped(remove(a, first))
        yield* Effect.sleep("20 millis")
        assert.strictEqual((yield* remove(a, second)).status, 200)
        const after = yield* postAnswer(b, 6, second)
        assert.strictEqual(after.status, 404, after.body.slice(0, 200))
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )

  it.live(
    "requests racing a DELETE at either instance are served or answered 404, never refused as malformed",
    () =>
      Effect.gen(function*() {
        const urls = yield* pair
        for (let n = 0; n < rounds; n++) {
          const [here, there] = n % 2 === 0 ? urls : [urls[1], urls[0]]
          const session = yield* servedAtBoth(here, there)
          const racing = Effect.all(
            Array.from({ length: 6 }, (_, i) => postAnswer(i % 2 === 0 ? there : here, 10 + i, session)),
            { concurrency: "unbounded" }
          )
          const [replies, deleted] = yield* Effect.all([racing, remove(here, session)], { concurrency: "unbounded" })
          assert.strictEqual(deleted.status, 200)
          replies.forEach((reply, i) => servedOrGone(reply, `round ${n}, request ${i}`))
        }
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "alone, a DELETE answered has ended the session, and requests racing it are served or answered 404",
    () =>
      Effect.gen(function*() {
        const url = yield* instance(undefined, "")
        for (let n = 0; n < rounds; n++) {
          const session = yield* rawSession(url)
          const racing = Effect.all(
            Array.from({ length: 4 }, (_, i) => postAnswer(url, 10 + i, session)),
            { concurrency: "unbounded" }
          )
          const [replies, deleted] = yield* Effect.all([racing, remove(url, session)], { concurrency: "unbounded" })
          assert.strictEqual(deleted.status, 200)
          replies.forEach((reply, i) => servedOrGone(reply, `round ${n}, request ${i}`))
          const after = yield* postAnswer(url, 20, session)
          assert.strictEqual(after.status, 404, `round ${n}: ${after.body}`)
          const get = yield* Effect.flatMap(openGet(url, session), (response) => answer(response, "GET"))
          assert.strictEqual(get.status, 404, `round ${n}, GET: ${get.body}`)
        }
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "alone, a request still being served when its session is deleted is answered 404, not with a stream that ends unanswered",
    () =>
      Effect.gen(function*() {
        const url = yield* instance(undefined, "")
        for (let n = 0; n < 5; n++) {
          const session = yield* rawSession(url)
          // A progress token takes the request the SDK's own way, its answer streamed.
          const fiber = yield* Effect.forkScoped(callAnswer(url, 7, session, "slow", { progressToken: "p" }))
          yield* Effect.sleep("100 millis")
          assert.strictEqual((yield* remove(url, session)).status, 200)
          const reply = yield* Fiber.join(fiber)
          assert.strictEqual(reply.status, 404, `round ${n}: ${reply.body}`)
          assert.include(reply.body, "Session not found")
        }
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
