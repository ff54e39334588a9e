// The direct road for plain calls on sessions shared in Redis: two instances of one face over a
// real Redis, the official SDK client. A plain call is answered as one JSON body by whichever
// instance receives it and leaves nothing in Redis (the session's event keys are read before and
// after); a call that logs first is still the SDK's stream, stored in Redis and resumed by the
// client at the other instance.
import { NodeRedis } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { type CallToolResult, LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Context, Effect, Layer, Scope } from "effect"
import * as Redis from "effect/persistence/Redis"
import { Caller, Tools } from "effect-surface"
import { McpHttp } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import * as Proxy from "./cluster/proxy.ts"
import * as RedisServer from "./redisServer.ts"

const plain = Tools.make({
  description: "Answers at once.",
  mutates: false,
  handler: () => Effect.succeed("plain answer")
})

// Logs (so its answer is a stream), closes its stream, then logs again and answers: the client
// resumes the stream to hear the rest.
const chatty = Tools.make({
  description: "Logs, closes its stream, logs again, answers.",
  mutates: false,
  handler: () =>
    Effect.logInfo("first line").pipe(
      Effect.andThen(Caller.closeResponseStream),
      Effect.andThen(Effect.sleep("150 millis")),
      Effect.andThen(Effect.logInfo("second line")),
      Effect.as("chatty answer")
    )
})

/** Two instances over one board and one Redis, behind a round-robin proxy; and a connection to that Redis. */
const pair = Effect.gen(function*() {
  const redis = yield* RedisServer.start
  const backends: Array<string> = []
  const proxy = yield* Proxy.start(backends)
  const options = yield* serverOptions
  const prefix = `test:${crypto.randomUUID()}:`
  const instance = Effect.gen(function*() {
    const scope = yield* Scope.fork(yield* Effect.scope)
    const shared = yield* RedisServer.sharedSessions(redis.url, prefix, scope)
    const served = yield* McpHttp.serve({
      ...options,
      tools: { ...options.tools, plain, chatty },
      http: { port: 0, allowedHosts: ["127.0.0.1", `127.0.0.1:${proxy.port}`], retryInterval: "50 millis" }
    }).pipe(Effect.provideContext(shared), Scope.provide(scope))
    backends.push(`http://127.0.0.1:${served.port}`)
    return served
  })
  const a = yield* instance
  const b = yield* instance
  const connection = Context.get(yield* Layer.build(NodeRedis.layer({ url: redis.url })), Redis.Redis)
  return { a, b, proxy, prefix, connection }
})

interface Seen {
  readonly method: string
  readonly rpc: string | undefined
  readonly lastEventId: string | null
  readonly url: string
  readonly status: number
  readonly contentType: string | null
}

/**
 * The SDK client through a `fetch` that records each exchange, and sends each request where
 * `route` says (by default, where the client meant it to go).
 */
const connect = (url: string, route: (init: RequestInit | undefined) => string = () => url) =>
  Effect.gen(function*() {
    const seen: Array<Seen> = []
    const recording = async (_input: string | URL, init?: RequestInit): Promise<Response> => {
      const target = route(init)
      const response = await fetch(target, init)
      const body = typeof init?.body === "string" ? JSON.parse(init.body) as { readonly method?: string } : undefined
      seen.push({
        method: init?.method ?? "GET",
        rpc: body?.method,
        lastEventId: new Headers(init?.headers).get("last-event-id"),
        url: target,
        status: response.status,
        contentType: response.headers.get("content-type")
      })
      return response
    }
    const client = new Client({ name: "redis-direct-test", version: "1.0.0" }, { capabilities: {} })
    const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recording })
    yield* Effect.acquireRelease(Effect.promise(() => client.connect(transport)), () =>
      Effect.promise(() => client.close()))
    return { client, session: transport.sessionId ?? "", seen }
  })

const call = (client: Client, name: string) =>
  Effect.promise(() => client.callTool({ name, arguments: {} }) as Promise<CallToolResult>)

/** Everything Redis holds of a session's events (its streams, their order, counts and logs), key by key. */
const eventKeys = (connection: Redis.Redis["Service"], prefix: string, session: string) =>
  Effect.gen(function*() {
    const send = <A>(command: string, ...args: ReadonlyArray<string>) =>
      Effect.orDie(connection.send<A>(command, ...args))
    const keys = [...yield* send<ReadonlyArray<string>>("KEYS", `${prefix}e:{${session}}:*`)].sort()
    const held: Record<string, unknown> = {}
    for (const key of keys) {
      const type = yield* send<string>("TYPE", key)
      held[key] = type === "hash" ? yield* send("HGETALL", key)
        : type === "list" ? yield* send("LRANGE", key, "0", "-1")
        : type === "zset" ? yield* send("ZRANGE", key, "0", "-1", "WITHSCORES")
        : type
    }
    return held
  })

/** Waits until the client's GET stream is open (it writes to Redis as it opens). */
const getStreamOpen = (seen: ReadonlyArray<Seen>) =>
  Effect.gen(function*() {
    while (!seen.some((exchange) => exchange.method === "GET" && exchange.status === 200)) {
      yield* Effect.sleep("20 millis")
    }
  }).pipe(Effect.timeout("5 seconds"))

describe("MCP over Streamable HTTP: plain calls on sessions shared in Redis take the direct road", () => {
  it.live(
    "a plain call is answered as one JSON body by whichever instance receives it, and nothing is written to Redis for it",
    () =>
      Effect.gen(function*() {
        const { connection, prefix, proxy } = yield* pair
        const { client, seen, session } = yield* connect(proxy.url)
        yield* getStreamOpen(seen)
        // Both instances serve the session before anything is read.
        for (let n = 0; n < 2; n++) yield* call(client, "plain")
        const before = yield* eventKeys(connection, prefix, session)
        assert.isNotEmpty(Object.keys(before))
        const from = proxy.served.length
        const asked = seen.length
        for (let n = 0; n < 6; n++) {
          const answered = yield* call(client, "plain")
          assert.include(JSON.stringify(answered.content), "plain answer")
        }
        const calls = seen.slice(asked).filter((exchange) => exchange.rpc === "tools/call")
        assert.strictEqual(calls.length, 6)
        for (const exchange of calls) {
          assert.strictEqual(exchange.status, 200)
          assert.strictEqual(exchange.contentType, "application/json")
        }
        const posts = proxy.served.slice(from).filter((served) =>
          served.session === session && served.method === "POST"
        )
        assert.deepStrictEqual(new Set(posts.map((served) => served.backend)), new Set([0, 1]))
        assert.deepStrictEqual(yield* eventKeys(connection, prefix, session), before)
      }),
    { timeout: 30_000 }
  )

  it.live(
    "a call that logs first is answered as the SDK's stream, stored in Redis, and resumed by its client at the other instance",
    () =>
      Effect.gen(function*() {
        const { a, b, connection, prefix } = yield* pair
        // Everything goes to the first instance but the client's resumes, which go to the second.
        const { client, seen, session } = yield* connect(
          a.url,
          (init) => new Headers(init?.headers).has("last-event-id") ? b.url : a.url
        )
        const lines: Array<string> = []
        client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
          lines.push(String(notification.params.data))
        })
        yield* getStreamOpen(seen)
        const before = yield* eventKeys(connection, prefix, session)
        const answered = yield* call(client, "chatty")
        assert.include(JSON.stringify(answered.content), "chatty answer")
        assert.deepStrictEqual(lines, ["first line", "second line"])
        const streamed = seen.find((exchange) => exchange.rpc === "tools/call")
        assert.strictEqual(streamed?.contentType, "text/event-stream")
        assert.strictEqual(streamed?.url, a.url)
        const resumed = seen.filter((exchange) => exchange.lastEventId !== null)
        assert.isNotEmpty(resumed)
        assert.deepStrictEqual(resumed.map((exchange) => [exchange.url, exchange.status]), [[b.url, 200]])
        assert.notDeepEqual(yield* eventKeys(connection, prefix, session), before)
      }),
    { timeout: 30_000 }
  )
})
