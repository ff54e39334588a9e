// Behind a resource server each caller keeps at most maxSessionsPerHolder 2025 sessions, and opening
// more takes the places of its own idle ones: a caller with no scope opening sessions past its quota
// and past the table's bound never ends another caller's idle session; a full table gives up a
// session of the caller holding the most; a caller whose every session is in use is refused in a
// sentence. Driven with raw requests, since an idle session (no GET stream held) is what a hostile
// caller evicts.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Identity } from "effect-surface"
import { McpAuth, McpHttp, McpTokenVerifier } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import { onSession } from "./authSession.ts"
import { legacyInitialize } from "./authServed.ts"

const tokens = {
  ada: Identity.token({ subject: "ada", clientId: "cli", scopes: ["board:read"] }),
  bob: Identity.token({ subject: "bob", clientId: "cli", scopes: ["board:read"] }),
  mallory: Identity.token({ subject: "mallory", clientId: "cli", scopes: [] })
}

type Caller = keyof typeof tokens

const serveBehind = (http: McpHttp.HttpOptions) =>
  Effect.flatMap(serverOptions, (options) =>
    McpHttp.serve({ ...options, http: { port: 0, ...http } }).pipe(
      Effect.provide(
        McpAuth.layer().pipe(Layer.provide(McpTokenVerifier.layerTest({ issuer: "https://auth.test", tokens })))
      )
    ))

/** A session of `caller`, opened and initialized with raw requests; none when it was refused. */
const open = (url: string, caller: Caller) =>
  Effect.gen(function*() {
    const opened = yield* legacyInitialize(url, `Bearer ${caller}`)
    if (opened.status !== 200 || opened.session === null) return { status: opened.status, opened }
    const initialized = yield* onSession(url, `Bearer ${caller}`, opened.session, "POST", {
      jsonrpc: "2.0",
      method: "notifications/initialized"
    })
    assert.strictEqual(initialized.status, 202)
    return { status: opened.status, opened, session: opened.session }
  })

const opened = (url: string, caller: Caller) =>
  Effect.map(open(url, caller), (result) => {
    assert.isDefined(result.session, `${caller}'s session was refused with ${result.status}`)
    return result.session!
  })

/** The status a `ping` on the session is answered with. */
const ping = (url: string, caller: Caller, session: string) =>
  Effect.map(
    onSession(url, `Bearer ${caller}`, session, "POST", { jsonrpc: "2.0", id: 9, method: "ping" }),
    (reply) => reply.status
  )

const openMany = (url: string, caller: Caller, n: number) =>
  Effect.forEach(Array.from({ length: n }), () => opened(url, caller))

describe("2025 sessions per caller behind a resource server", () => {
  it.live("a caller with no scope opening sessions past its quota and past the table's bound leaves another caller's idle session answering", () =>
    Effect.gen(function*() {
      // The default quota (16) under a table of 24.
      const served = yield* serveBehind({ maxSessions: 24 })
      const ada = yield* opened(served.url, "ada")
      assert.strictEqual(yield* ping(served.url, "ada", ada), 200)
      const mallorys = yield* openMany(served.url, "mallory", 60)
      assert.strictEqual(yield* ping(served.url, "ada", ada), 200)
      // Mallory keeps the newest 16; her older sessions went, one by one, to make room for her own.
      assert.strictEqual((yield* served.sessions).length, 17)
      assert.strictEqual(yield* ping(served.url, "mallory", mallorys[0]!), 404)
      assert.strictEqual(yield* ping(served.url, "mallory", mallorys[43]!), 404)
      for (const session of mallorys.slice(44)) assert.strictEqual(yield* ping(served.url, "mallory", session), 200)
    }))

  it.live("a full table gives up a session of the caller holding the most, never one of a caller holding fewer", () =>
    Effect.gen(function*() {
      const served = yield* serveBehind({ maxSessions: 10, maxSessionsPerHolder: 8 })
      const ada = yield* opened(served.url, "ada")
      const bobs = yield* openMany(served.url, "bob", 2)
      // Ada and Bob are now the least recently used, yet the table gives up Mallory's sessions.
      const mallorys = yield* openMany(served.url, "mallory", 8)
      bobs.push(yield* opened(served.url, "bob"))
      assert.strictEqual((yield* served.sessions).length, 10)
      assert.strictEqual(yield* ping(served.url, "ada", ada), 200)
      for (const bob of bobs) assert.strictEqual(yield* ping(served.url, "bob", bob), 200)
      const answering = []
      for (const session of mallorys) answering.push(yield* ping(served.url, "mallory", session))
      assert.deepStrictEqual(answering, [404, 404, 200, 200, 200, 200, 200, 200])
    }))

  it.live("a caller whose every session is in use is refused one more in a sentence, and served once one is idle", () =>
    Effect.gen(function*() {
      const served = yield* serveBehind({ maxSessionsPerHolder: 2 })
      const held = yield* openMany(served.url, "mallory", 2)
      const streams = yield* Effect.forEach(held, (session) =>
        Effect.promise(() =>
          fetch(served.url, {
            headers: {
              accept: "text/event-stream",
              "mcp-protocol-version": "2025-11-25",
              "mcp-session-id": session,
              authorization: "Bearer mallory"
            }
          })
        ))
      for (const stream of streams) assert.strictEqual(stream.status, 200)
      const refused = yield* open(served.url, "mallory")
      assert.strictEqual(refused.status, 503)
      assert.include(
        JSON.stringify(refused.opened.messages),
        "this caller already holds 2 sessions (maxSessionsPerHolder), each in use; end one first"
      )
      // Another caller is not held to Mallory's count.
      yield* opened(served.url, "ada")
      yield* Effect.promise(() => streams[0]!.body?.cancel() ?? Promise.resolve())
      // Once the stream is gone, its session is idle and gives its place.
      const next = yield* open(served.url, "mallory").pipe(
        Effect.repeat({ until: (result) => result.status === 200, times: 100 })
      )
      assert.isDefined(next.session)
      assert.strictEqual(yield* ping(served.url, "mallory", held[0]!), 404)
      assert.strictEqual(yield* ping(served.url, "mallory", held[1]!), 200)
      yield* Effect.promise(() => streams[1]!.body?.cancel() ?? Promise.resolve())
    }))
})
