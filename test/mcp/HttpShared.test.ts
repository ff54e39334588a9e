// Two instances of one face in this process, their sessions shared in a real Redis, behind a
// round-robin proxy with no affinity: every request of a session alternates between them. Both
// serve the same board (one implementation), as instances of one app share its state.
import { NodeRedis } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { type CallToolResult, ElicitRequestSchema, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Layer, Queue, Schema } from "effect"
import { Ask, Tools } from "effect-surface"
import { McpHttp, McpHttpRedis } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import * as Proxy from "./cluster/proxy.ts"
import * as RedisServer from "./redisServer.ts"

const ask = Tools.make({
  description: "Asks the user for a name.",
  mutates: false,
  handler: () => Effect.map(Ask.elicit("Your name?", Schema.Struct({ name: Schema.String })), (answer) => `hello ${JSON.stringify(answer)}`)
})

/** Two instances over one board and one Redis, behind a proxy. */
const pair = Effect.gen(function*() {
  const redis = yield* RedisServer.start
  const backends: Array<string> = []
  const proxy = yield* Proxy.start(backends)
  const options = yield* serverOptions
  const prefix = `test:${crypto.randomUUID()}:`
  const instance = Effect.gen(function*() {
    // Built in the test's scope: the connection must outlive `serve`, which answers once listening.
    const shared = yield* Layer.build(
      McpHttpRedis.layer({ prefix, heartbeat: "200 millis" }).pipe(Layer.provide(NodeRedis.layer({ url: redis.url, disableOfflineQueue: true })))
    )
    const served = yield* McpHttp.serve({
      ...options,
      tools: { ...options.tools, ask },
      coalesce: "1 millis",
      http: { port: 0, allowedHosts: ["127.0.0.1", `127.0.0.1:${proxy.port}`] }
    }).pipe(Effect.provideContext(shared))
    backends.push(`http://127.0.0.1:${served.port}`)
    return served
  })
  const a = yield* instance
  const b = yield* instance
  return { proxy, a, b }
})

const connect = (url: string, capabilities: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const client = new Client({ name: "shared-test", version: "1.0.0" }, { capabilities })
    const transport = new StreamableHTTPClientTransport(new URL(url))
    yield* Effect.acquireRelease(Effect.promise(() => client.connect(transport)), () => Effect.promise(() => client.close()))
    return { client, session: transport.sessionId ?? "" }
  })

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<CallToolResult>)

describe("MCP over Streamable HTTP: two instances sharing their sessions in Redis", () => {
  it.live("a session opened through one instance is served by the other, request after request", () =>
    Effect.gen(function*() {
      const { a, b, proxy } = yield* pair
      const { client, session } = yield* connect(proxy.url)
      for (let n = 0; n < 6; n++) {
        const added = yield* call(client, "tasks_add", { title: `task ${n}` })
        assert.isFalse(added.isError === true)
      }
      const mine = proxy.served.filter((served) => served.session === session && served.method === "POST")
      assert.deepStrictEqual(new Set(mine.map((served) => served.backend)), new Set([0, 1]))
      assert.deepStrictEqual([...yield* a.sessions].includes(session), true)
      assert.deepStrictEqual([...yield* b.sessions].includes(session), true)
    }), { timeout: 30_000 })

  it.live("an elicitation sent by one instance is answered through the other and resumes the handler waiting for it", () =>
    Effect.gen(function*() {
      const { proxy } = yield* pair
      const { client } = yield* connect(proxy.url, { elicitation: { form: {} } })
      client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: { name: "Ada" } }))
      for (let n = 0; n < 3; n++) {
        const answered = yield* call(client, "ask")
        assert.include(JSON.stringify(answered.content), "Ada")
      }
    }), { timeout: 30_000 })

  it.live("a subscription made through one instance hears a change made through the other", () =>
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
    }), { timeout: 30_000 })
})
