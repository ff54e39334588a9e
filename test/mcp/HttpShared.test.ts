// Two instances of one face in this process, their sessions shared in a real Redis, behind a
// round-robin proxy with no affinity: every request of a session alternates between them. Both
// serve the same board (one implementation), as instances of one app share its state.
import { NodeRedis } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import {
  type CallToolResult,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Context, Effect, Exit, Layer, Queue, Schema, Scope, Stream } from "effect"
import * as Redis from "effect/persistence/Redis"
import { Ask, Caller, Tools } from "effect-surface"
import { McpHttp } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import * as Proxy from "./cluster/proxy.ts"
import { events, initialize, openGet, post, rawSession, text } from "./httpRaw.ts"
import * as RedisServer from "./redisServer.ts"

// Closes its response stream, then answers: the client resumes the stream, wherever it lands.
const slowly = Tools.make({
  description: "Closes its stream, logs, then answers.",
  mutates: false,
  handler: () =>
    Caller.closeResponseStream.pipe(
      Effect.andThen(Effect.sleep("150 millis")),
      Effect.andThen(Effect.logInfo("still here")),
      Effect.as("answered after the stream closed")
    )
})

const ask = Tools.make({
  description: "Asks the user for a name.",
  mutates: false,
  handler: () =>
    Effect.map(
      Ask.elicit("Your name?", Schema.Struct({ name: Schema.String })),
      (answer) => `hello ${JSON.stringify(answer)}`
    )
})

/** Two instances over one board and one Redis, behind a proxy; each can be stopped on its own. */
const pair = Effect.gen(function*() {
  const redis = yield* RedisServer.start
  const backends: Array<string> = []
  const proxy = yield* Proxy.start(backends)
  const options = yield* serverOptions
  const prefix = `test:${crypto.randomUUID()}:`
  const instance = Effect.gen(function*() {
    const scope = yield* Scope.fork(yield* Effect.scope)
    // The connection lives in the instance's scope, not `serve`'s (which answers once listening).
    const shared = yield* RedisServer.sharedSessions(redis.url, prefix, scope)
    const served = yield* McpHttp.serve({
      ...options,
      tools: { ...options.tools, ask, slowly },
      coalesce: "1 millis",
      http: {
        port: 0,
        allowedHosts: ["127.0.0.1", `127.0.0.1:${proxy.port}`],
        retryInterval: "50 millis",
        maxSubscriptionsPerSession: 3
      }
    }).pipe(Effect.provideContext(shared), Scope.provide(scope))
    backends.push(`http://127.0.0.1:${served.port}`)
    return { served, stop: Scope.close(scope, Exit.void) }
  })
  const a = yield* instance
  const b = yield* instance
  return { proxy, a, b, redis, prefix }
})

const connect = (url: string, capabilities: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const client = new Client({ name: "shared-test", version: "1.0.0" }, { capabilities })
    const transport = new StreamableHTTPClientTransport(new URL(url))
    yield* Effect.acquireRelease(Effect.promise(() => client.connect(transport)), () =>
      Effect.promise(() => client.close()))
    return { client, session: transport.sessionId ?? "" }
  })

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<CallToolResult>)

describe("MCP over Streamable HTTP: two instances sharing their sessions in Redis", () => {
  it.live(
    "a session opened through one instance is served by the other, request after request",
    () =>
      Effect.gen(function*() {
        const { a, b, proxy } = yield* pair
        const { client, session } = yield* connect(proxy.url)
        for (let n = 0; n < 6; n++) {
          const added = yield* call(client, "tasks_add", { title: `task ${n}` })
          assert.isFalse(added.isError === true)
        }
        const mine = proxy.served.filter((served) => served.session === session && served.method === "POST")
        assert.deepStrictEqual(new Set(mine.map((served) => served.backend)), new Set([0, 1]))
        assert.isTrue((yield* a.served.sessions).includes(session))
        assert.isTrue((yield* b.served.sessions).includes(session))
      }),
    { timeout: 30_000 }
  )

  it.live(
    "an elicitation sent by one instance is answered through the other and resumes the handler waiting for it",
    () =>
      Effect.gen(function*() {
        const { proxy } = yield* pair
        const { client } = yield* connect(proxy.url, { elicitation: { form: {} } })
        client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: { name: "Ada" } }))
        for (let n = 0; n < 3; n++) {
          const answered = yield* call(client, "ask")
          assert.include(JSON.stringify(answered.content), "Ada")
        }
      }),
    { timeout: 30_000 }
  )

  it.live(
    "a subscription made through one instance hears a change made through the other",
    () =>
      Effect.gen(function*() {
        const { proxy } = yield* pair
        const { client } = yield* connect(proxy.url)
        const updated = yield* Queue.unbounded<string>()
        client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
          Queue.offerUnsafe(updated, n.params.uri)
        })
        yield* Effect.promise(() => client.subscribeResource({ uri: "surface://cells/focus" }))
        for (let n = 0; n < 4; n++) {
          yield* call(client, "board_focus", { value: `focus ${n}` })
          assert.strictEqual(yield* Queue.take(updated).pipe(Effect.timeout("5 seconds")), "surface://cells/focus")
        }
      }),
    { timeout: 30_000 }
  )

  it.live(
    "a DELETE through one instance ends the session at both: a later request at either is 404",
    () =>
      Effect.gen(function*() {
        const { a, b, proxy } = yield* pair
        const session = yield* rawSession(proxy.url)
        // Restored at the other instance, so both serve it.
        yield* Effect.flatMap(post(proxy.url, { jsonrpc: "2.0", id: 2, method: "tools/list" }, session), text)
        yield* Effect.flatMap(post(proxy.url, { jsonrpc: "2.0", id: 3, method: "tools/list" }, session), text)
        const deleted = yield* Effect.promise(() =>
          fetch(proxy.url, { method: "DELETE", headers: { "mcp-session-id": session } })
        )
        assert.strictEqual(deleted.status, 200)
        for (let n = 0; n < 2; n++) {
          const after = yield* post(proxy.url, { jsonrpc: "2.0", id: 10 + n, method: "tools/list" }, session)
          assert.strictEqual(after.status, 404)
        }
        for (let n = 0; n < 50 && ((yield* a.served.sessions).length + (yield* b.served.sessions).length) > 0; n++)
          yield* Effect.sleep("20 millis")
        assert.deepStrictEqual([...(yield* a.served.sessions), ...(yield* b.served.sessions)], [])
      }),
    { timeout: 30_000 }
  )

  it.live("a log level set through one instance holds for calls served by the other", () =>
    Effect.gen(function*() {
      const { proxy } = yield* pair
      const { client } = yield* connect(proxy.url)
      const lines = yield* Queue.unbounded<string>()
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        Queue.offerUnsafe(lines, String(n.params.data))
      })
      yield* Effect.promise(() => client.setLoggingLevel("error"))
      for (let n = 0; n < 4; n++) yield* call(client, "tasks_add", { title: `quiet ${n}` })
      assert.deepStrictEqual(yield* Queue.clear(lines), [])
      yield* Effect.promise(() => client.setLoggingLevel("info"))
      for (let n = 0; n < 2; n++) yield* call(client, "tasks_add", { title: `loud ${n}` })
      assert.strictEqual((yield* Queue.clear(lines)).length, 2)
    }), { timeout: 30_000 })

  it.live(
    "a call's stream closed at one instance is resumed through the other, which receives what the call wrote after",
    () =>
      Effect.gen(function*() {
        const { proxy } = yield* pair
        const session = yield* rawSession(proxy.url)
        const answer = yield* post(proxy.url, {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "slowly", arguments: {} }
        }, session)
        // Only the priming event: the handler closed the stream before writing anything.
        const before = yield* text(answer)
        const cursor = /^id: (.+)$/m.exec(before)?.[1] ?? ""
        assert.notStrictEqual(cursor, "")
        assert.notInclude(before, "\"result\"")
        const served = proxy.served.length
        const resumed = yield* openGet(proxy.url, session, cursor)
        assert.strictEqual(resumed.status, 200)
        const after = yield* events(resumed).pipe(Stream.runCollect, Effect.timeout("5 seconds"))
        assert.notStrictEqual(proxy.served[served]?.backend, proxy.served[served - 1]?.backend)
        assert.include(after[0]?.data ?? "", "still here")
        assert.include(after[1]?.data ?? "", "answered after the stream closed")
        // The stream ended with its answer.
        assert.strictEqual(after.length, 2)
      }),
    { timeout: 30_000 }
  )

  it.live(
    "a leader that stops hands its sessions to the other instance, which follows their subscriptions and tells the host to re-read",
    () =>
      Effect.gen(function*() {
        const { a, proxy } = yield* pair
        const { client } = yield* connect(proxy.url)
        const updated = yield* Queue.unbounded<string>()
        client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
          Queue.offerUnsafe(updated, n.params.uri)
        })
        // Opened through the proxy's first pick: instance a leads it.
        yield* Effect.promise(() => client.subscribeResource({ uri: "surface://cells/focus" }))
        yield* a.stop
        // Told to re-read on takeover, then told of each change.
        assert.strictEqual(yield* Queue.take(updated).pipe(Effect.timeout("10 seconds")), "surface://cells/focus")
        yield* Queue.clear(updated)
        yield* call(client, "board_focus", { value: "after the leader left" })
        assert.strictEqual(yield* Queue.take(updated).pipe(Effect.timeout("5 seconds")), "surface://cells/focus")
      }),
    { timeout: 30_000 }
  )

  it.live(
    "a roster move every instance makes is announced to a host once, by its session's leader",
    () =>
      Effect.gen(function*() {
        const { a, b, proxy } = yield* pair
        const { client } = yield* connect(proxy.url)
        const moved = yield* Queue.unbounded<void>()
        client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
          Queue.offerUnsafe(moved, undefined)
        })
        yield* Effect.promise(() => client.listPrompts())
        // A 2025 host hears list moves on its GET stream: the moves are made once it is open.
        yield* Effect.gen(function*() {
          while (!proxy.served.some((served) => served.method === "GET")) yield* Effect.sleep("20 millis")
        }).pipe(Effect.timeout("5 seconds"))
        yield* a.served.face.setPrompts({})
        yield* b.served.face.setPrompts({})
        yield* Queue.take(moved).pipe(Effect.timeout("5 seconds"))
        yield* Effect.sleep("300 millis")
        assert.strictEqual((yield* Queue.clear(moved)).length, 0)
      }),
    { timeout: 30_000 }
  )

  it.live(
    "with Redis gone, a new session and a session this instance has not served are answered 503 naming Redis; one it serves still answers",
    () =>
      Effect.gen(function*() {
        const { a, b, redis } = yield* pair
        const served = yield* rawSession(a.served.url)
        yield* redis.stop
        const opening = yield* post(b.served.url, initialize)
        assert.strictEqual(opening.status, 503)
        assert.include(yield* text(opening), "Service Unavailable: the session registry failed: Redis failed")
        const elsewhere = yield* post(b.served.url, { jsonrpc: "2.0", id: 2, method: "tools/list" }, served)
        assert.strictEqual(elsewhere.status, 503)
        assert.strictEqual(elsewhere.headers.get("retry-after"), "1")
        assert.include(yield* text(elsewhere), "the session registry failed")
        const here = yield* post(a.served.url, { jsonrpc: "2.0", id: 3, method: "tools/list" }, served)
        assert.include(yield* text(here), "tasks_add")
      }),
    { timeout: 30_000 }
  )

  it.live(
    "messages on the instances' channels that decode as nothing they know are dropped, and the instances go on",
    () =>
      Effect.gen(function*() {
        const { prefix, proxy, redis } = yield* pair
        const { client } = yield* connect(proxy.url)
        const updated = yield* Queue.unbounded<string>()
        client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
          Queue.offerUnsafe(updated, n.params.uri)
        })
        const connection = Context.get(yield* Layer.build(NodeRedis.layer({ url: redis.url })), Redis.Redis)
        const junk = [
          "",
          "not json",
          "{}",
          "[1,2]",
          JSON.stringify({ kind: "answer" }),
          JSON.stringify({ kind: "event", session: 1 }),
          JSON.stringify({ kind: "answer", session: "x", message: 7 })
        ]
        for (const message of junk) yield* Effect.orDie(connection.send("PUBLISH", `${prefix}bus`, message))
        yield* Effect.promise(() => client.subscribeResource({ uri: "surface://cells/focus" }))
        yield* call(client, "board_focus", { value: "still going" })
        assert.strictEqual(yield* Queue.take(updated).pipe(Effect.timeout("5 seconds")), "surface://cells/focus")
      }),
    { timeout: 30_000 }
  )

  it.live(
    "the subscription cap holds for a session across instances: one URI past it is refused in a sentence wherever it lands",
    () =>
      Effect.gen(function*() {
        const { proxy } = yield* pair
        const { client } = yield* connect(proxy.url)
        const subscribe = (uri: string) => Effect.exit(Effect.tryPromise(() => client.subscribeResource({ uri })))
        for (const uri of ["surface://cells/focus", "surface://cells/stopwatch/laps", "surface://streams/activity"]) {
          assert.isTrue(Exit.isSuccess(yield* subscribe(uri)))
        }
        for (let n = 0; n < 2; n++) {
          const refused = yield* Effect.flip(
            Effect.tryPromise(() => client.subscribeResource({ uri: "surface://collections/tasks" }))
          )
          assert.include(String(refused.cause), "Too many subscriptions: a session may hold at most 3")
        }
        // A URI held already is no new one; one freed makes room.
        assert.isTrue(Exit.isSuccess(yield* subscribe("surface://cells/focus")))
        yield* Effect.promise(() => client.unsubscribeResource({ uri: "surface://streams/activity" }))
        assert.isTrue(Exit.isSuccess(yield* subscribe("surface://collections/tasks")))
      }),
    { timeout: 30_000 }
  )
})
