// Two instances of the example (`npm start` with REDIS_URL, as child processes) behind a round-robin
// proxy with no affinity, their sessions and their board in a Redis started for this file: a
// session is served by both, a change made through one reaches a subscriber through the other, an
// instance killed outright leaves its client to resume at the other with nothing lost, and a load
// spread over both answers every call.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { type CallToolResult, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { NodeRedis } from "@effect/platform-node"
import { Effect, Fiber, Layer, Option, Queue, Ref, Schedule, Stream } from "effect"
import { McpEventStoreRedis } from "effect-surface/mcp"
import * as Instances from "./cluster/instances.ts"
import { events, openGet, post, rawSession, type SseEvent, text } from "./httpRaw.ts"
import * as RedisServer from "./redisServer.ts"

// The agent here is the test: nobody is at the console to approve tasks_complete, so none is held.
const board = (redisUrl: string) =>
  Instances.behindProxy({
    script: "examples/main.ts",
    redisUrl,
    ready: /Task board MCP server at (\S+)/,
    env: { CONSOLE_HOLD: "none" }
  })

const connect = (url: string) =>
  Effect.gen(function*() {
    const client = new Client({ name: "cluster-test", version: "1.0.0" }, { capabilities: {} })
    const transport = new StreamableHTTPClientTransport(new URL(url))
    yield* Effect.acquireRelease(Effect.promise(() => client.connect(transport)), () =>
      Effect.promise(() => client.close().catch(() => undefined)))
    return { client, session: transport.sessionId ?? "" }
  })

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  Effect.tryPromise({
    try: () => client.callTool({ name, arguments: args }) as Promise<CallToolResult>,
    catch: (error) => String(error)
  })

const rawCall = (url: string, session: string, id: number, name: string, args: Record<string, unknown>) =>
  Effect.flatMap(
    post(url, { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }, session),
    text
  )

const item = (id: string) => `surface://collections/tasks/${id}`

describe("MCP over Streamable HTTP: the example as two instances on Redis behind a proxy with no affinity", () => {
  it.live(
    "a session opened through one instance is served by the other, and a subscription made through one hears a change made through the other",
    () =>
      Effect.gen(function*() {
        const redis = yield* RedisServer.start
        const { proxy } = yield* board(redis.url)
        const { client, session } = yield* connect(proxy.url)
        const updated = yield* Queue.unbounded<string>()
        client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
          Queue.offerUnsafe(updated, n.params.uri)
        })
        const opened = proxy.served.find((served) => served.session === undefined)?.backend
        const { tools } = yield* Effect.promise(() => client.listTools())
        assert.include(tools.map((tool) => tool.name), "tasks_add")
        const added = yield* call(client, "tasks_add", { title: "shared" })
        const id = (added.structuredContent as { readonly id: string }).id
        // Added through one instance, read through the other: one board.
        const read = yield* Effect.promise(() => client.readResource({ uri: item(id) }))
        assert.include(JSON.stringify(read.contents), "shared")
        const served = proxy.served.filter((served) => served.session === session && served.method === "POST")
        assert.isTrue(
          served.some((one) => one.backend !== opened),
          "no request of the session was served by the other instance"
        )

        yield* Effect.promise(() => client.subscribeResource({ uri: "surface://cells/focus" }))
        const subscribedAt = proxy.served.at(-1)?.backend
        const changedAt: Array<number> = []
        for (let n = 0; n < 4; n++) {
          yield* call(client, "board_focus", { value: `focus ${n}` })
          changedAt.push(proxy.served.at(-1)?.backend ?? -1)
          assert.strictEqual(yield* Queue.take(updated).pipe(Effect.timeout("10 seconds")), "surface://cells/focus")
        }
        assert.isTrue(
          changedAt.some((backend) => backend !== subscribedAt),
          "no change went through the other instance"
        )
      }),
    { timeout: 120_000 }
  )

  it.live(
    "an instance killed mid-stream: its client resumes its stream at the other with Last-Event-ID and misses no change",
    () =>
      Effect.gen(function*() {
        const redis = yield* RedisServer.start
        const { instances, proxy } = yield* board(redis.url)
        const session = yield* rawSession(proxy.url)
        // The session was opened at the proxy's first pick, which leads it.
        const leader = proxy.served[0]?.backend ?? 0
        const ids: Array<string> = []
        for (let n = 0; n < 9; n++) {
          const added = yield* rawCall(proxy.url, session, 100 + n, "tasks_add", { title: `task ${n}` })
          ids.push(/"id":"(t\d+)"/.exec(added)?.[1] ?? "")
        }
        for (const [n, id] of ids.entries()) {
          const answer = yield* Effect.flatMap(
            post(
              proxy.url,
              { jsonrpc: "2.0", id: 200 + n, method: "resources/subscribe", params: { uri: item(id) } },
              session
            ),
            text
          )
          assert.include(answer, "\"result\"")
        }
        // The GET lands on the leader: the instance to kill serves the stream and follows the subscriptions.
        if (proxy.served.length % 2 !== leader) yield* rawCall(proxy.url, session, 300, "tasks_open", {})
        const first = yield* openGet(proxy.url, session)
        assert.strictEqual(proxy.served.at(-1)?.backend, leader)
        const received = yield* Ref.make<ReadonlyArray<SseEvent>>([])
        // Once paused the client reads nothing more, and what reaches its socket stays unread.
        const paused = yield* Ref.make(false)
        const reading = yield* events(first).pipe(
          Stream.runForEach((event) =>
            Effect.flatMap(Ref.get(paused), (pause) =>
              pause ? Effect.never : Ref.update(received, (all) => [...all, event]))
          ),
          Effect.forkChild
        )
        const heard = (uri: string) =>
          Effect.map(Ref.get(received), (all) =>
            all.some((event) => event.data.includes(uri)))
        const complete = (n: number) => rawCall(proxy.url, session, 400 + n, "tasks_complete", { value: ids[n] })
        const connection = yield* Layer.build(NodeRedis.layer({ url: redis.url })).pipe(Effect.orDie)
        const store = yield* McpEventStoreRedis.make({ prefix: "effect-surface:mcp:e:" }).pipe(
          Effect.provideContext(connection)
        )
        const storedAfter = (cursor: string) =>
          Effect.map(
            Effect.orDie(store.after(session, cursor)),
            Option.match({
              onNone: () => [],
              onSome: (replay) => replay.events.flatMap((event) => "method" in event.message ? [event.id] : [])
            })
          )

        // Heard live, through the stream the instance serves.
        for (let n = 0; n < 3; n++) {
          yield* complete(n)
          yield* Effect.repeat(heard(item(ids[n]!)), {
            until: (yes) => yes,
            schedule: Schedule.spaced("20 millis"),
            times: 250
          })
        }
        // Changed and stored while the client reads nothing; then the instance dies mid-stream, and
        // more changes are made while it is gone.
        yield* Ref.set(paused, true)
        const cursor = (yield* Ref.get(received)).findLast((event) => event.id !== undefined)?.id ?? ""
        yield* complete(3)
        yield* complete(4)
        const missed = yield* Effect.repeat(storedAfter(cursor), {
          until: (stored) => stored.length >= 2,
          schedule: Schedule.spaced("20 millis"),
          times: 250
        })
        assert.isAtLeast(missed.length, 2)
        yield* instances[leader]!.kill
        yield* Fiber.interrupt(reading)
        for (let n = 5; n < 9; n++) yield* complete(n)

        // The client resumes from the last event it read, at the instance still standing.
        const resumed = yield* openGet(proxy.url, session, cursor)
        assert.strictEqual(resumed.status, 200)
        assert.notStrictEqual(proxy.served.at(-1)?.backend, leader)
        const after = yield* Ref.make<ReadonlyArray<SseEvent>>([])
        yield* events(resumed).pipe(
          Stream.runForEach((event) => Ref.update(after, (all) => [...all, event])),
          Effect.forkChild
        )
        const missing = Effect.map(Ref.get(after), (all) =>
          ids.slice(3).filter((id) =>
            !all.some((event) => event.data.includes(item(id)))
          ))
        // Within the time the other instance takes to see the leader gone and take its sessions over.
        const left = yield* Effect.repeat(missing, {
          until: (ids) => ids.length === 0,
          schedule: Schedule.spaced("100 millis"),
          times: 300
        })
        assert.deepStrictEqual(left, [])
        const replayed = (yield* Ref.get(after)).flatMap((event) => event.id === undefined ? [] : [event.id])
        assert.deepStrictEqual(missed.filter((id) => !replayed.includes(id)), [])
      }),
    { timeout: 120_000 }
  )

  it.live(
    "50 sessions × 200 calls spread over both instances: every call is answered, none with an error",
    () =>
      Effect.gen(function*() {
        const redis = yield* RedisServer.start
        const { instances, proxy } = yield* board(redis.url)
        const clients = yield* Effect.forEach(Array.from({ length: 50 }), () => connect(proxy.url), { concurrency: 10 })
        const failures = yield* Ref.make<ReadonlyArray<string>>([])
        const answered = yield* Ref.make(0)
        yield* Effect.forEach(clients, ({ client }, c) =>
          Effect.forEach(Array.from({ length: 200 }), (_, n) =>
            call(client, n % 2 === 0 ? "stopwatch_watch_lap" : "tasks_open").pipe(
              Effect.flatMap((result) =>
                result.isError === true ? Effect.fail(JSON.stringify(result.content)) : Ref.update(answered, (k) =>
                  k + 1)
              ),
              Effect.catch((error) =>
                Ref.update(failures, (all) => [...all, `session ${c} call ${n}: ${error}`])
              )
            ), { discard: true }), { concurrency: "unbounded", discard: true })
        // What the instances said of any failure is part of the report.
        const said = instances.flatMap((instance) =>
          instance.output().split("\n").filter((line) =>
            /ERROR|WARN|fail/i.test(line)
          )
        ).slice(0, 10)
        assert.deepStrictEqual({
          failures: (yield* Ref.get(failures)).slice(0, 5),
          said: (yield* Ref.get(failures)).length === 0 ? [] : said
        }, { failures: [], said: [] })
        assert.strictEqual(yield* Ref.get(answered), 50 * 200)
        const counts = [0, 1].map((backend) =>
          proxy.served.filter((served) => served.backend === backend).length
        )
        assert.isAbove(Math.min(...counts), 4000)
      }),
    { timeout: 300_000 }
  )
})
