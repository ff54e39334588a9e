// A session's GET stream across instances sharing their sessions in Redis, where the stream is
// away for a while: not yet opened, cut off, or served by an instance that died. What was sent to
// the host meanwhile reaches it when its stream is back, and it can always get its stream back.
// In-process pairs behind a round-robin proxy for the exchanges, and instances of the example as
// child processes killed outright for an instance's death.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import {
  type CallToolResult,
  PromptListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Deferred, Effect, Exit, Option, Queue, Scope } from "effect"
import { McpHttp } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import * as Instances from "./cluster/instances.ts"
import * as Proxy from "./cluster/proxy.ts"
import { openGet, rawSession } from "./httpRaw.ts"
import * as RedisServer from "./redisServer.ts"

/** Two instances of the board in this process, over one Redis, behind a proxy. */
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
      coalesce: "1 millis",
      http: { port: 0, allowedHosts: ["127.0.0.1", `127.0.0.1:${proxy.port}`] }
    }).pipe(Effect.provideContext(shared), Scope.provide(scope))
    backends.push(`http://127.0.0.1:${served.port}`)
    return { served, stop: Scope.close(scope, Exit.void) }
  })
  const a = yield* instance
  const b = yield* instance
  return { proxy, a, b }
})

// The raw frames of an SSE body as they arrive, cursors (events with no data) included.
const frames = (response: Response) => {
  const reader = (response.body ?? new ReadableStream<Uint8Array>()).getReader()
  const decoder = new TextDecoder()
  let buffered = ""
  const next: Effect.Effect<string> = Effect.suspend(() => {
    const end = buffered.indexOf("\n\n")
    if (end !== -1) {
      const frame = buffered.slice(0, end)
      buffered = buffered.slice(end + 2)
      return frame.startsWith(":") ? next : Effect.succeed(frame)
    }
    return Effect.flatMap(Effect.promise(() => reader.read()), ({ done, value }) => {
      if (done) return Effect.succeed("")
      buffered += decoder.decode(value, { stream: true })
      return next
    })
  })
  return { next, cancel: Effect.promise(() => reader.cancel().catch(() => undefined)) }
}

const idOf = (frame: string) => /^id: (.+)$/m.exec(frame)?.[1]

describe("MCP over Streamable HTTP on Redis: a GET stream that is away for a while", () => {
  it.live(
    "a list move made before the host's GET stream opens is announced on it once it opens",
    () =>
      Effect.gen(function*() {
        const { a, b, proxy } = yield* pair
        // The client's GET waits until the move has been made: the interleaving that lost it.
        const gate = yield* Deferred.make<void>()
        const gated: typeof fetch = (input, init) =>
          init?.method === "GET"
            ? Effect.runPromise(Deferred.await(gate)).then(() => fetch(input, init))
            : fetch(input, init)
        const client = new Client({ name: "failover-test", version: "1.0.0" }, { capabilities: {} })
        const moved = yield* Queue.unbounded<void>()
        client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
          Queue.offerUnsafe(moved, undefined)
        })
        yield* Effect.acquireRelease(
          Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(proxy.url), { fetch: gated }))),
          () => Effect.promise(() => client.close())
        )
        yield* Effect.promise(() => client.listPrompts())
        yield* a.served.face.setPrompts({})
        yield* b.served.face.setPrompts({})
        // Made, and told to the session's leader, with no stream open anywhere.
        yield* Effect.sleep("200 millis")
        assert.isFalse(proxy.served.some((served) => served.method === "GET"))
        yield* Deferred.succeed(gate, undefined)
        yield* Queue.take(moved).pipe(Effect.timeout("5 seconds"))
        // Once, as ever.
        yield* Effect.sleep("300 millis")
        assert.strictEqual((yield* Queue.clear(moved)).length, 0)
      }),
    { timeout: 30_000 }
  )

  it.live(
    "a GET with no Last-Event-ID takes the stream over from the other instance that holds it, and hears what comes next",
    () =>
      Effect.gen(function*() {
        const { a, b } = yield* pair
        const session = yield* rawSession(a.served.url)
        // Held at a, whose client is gone without a's knowing: so a dead instance looks until its
        // beats have been missed for three heartbeats, longer than a client retries for.
        const first = frames(yield* openGet(a.served.url, session))
        assert.isDefined(idOf(yield* first.next))
        const opened = yield* openGet(b.served.url, session)
        assert.strictEqual(opened.status, 200)
        const second = frames(opened)
        assert.isDefined(idOf(yield* second.next))
        // a was told, and ended its stream.
        assert.strictEqual(yield* first.next.pipe(Effect.timeout("5 seconds")), "")
        yield* a.served.face.setPrompts({})
        yield* b.served.face.setPrompts({})
        assert.include(yield* second.next.pipe(Effect.timeout("5 seconds")), "notifications/prompts/list_changed")
        yield* second.cancel
      }),
    { timeout: 30_000 }
  )

  it.live(
    "a resumed GET stream opens with a cursor, so a client cut off again before the next event resumes again",
    () =>
      Effect.gen(function*() {
        const { a, b } = yield* pair
        const session = yield* rawSession(a.served.url)
        const first = frames(yield* openGet(a.served.url, session))
        const cursor = idOf(yield* first.next) ?? ""
        yield* first.cancel
        const resumed = frames(yield* openGet(b.served.url, session, cursor))
        assert.strictEqual(idOf(yield* resumed.next.pipe(Effect.timeout("5 seconds"))), cursor)
        yield* resumed.cancel
      }),
    { timeout: 30_000 }
  )
})

const board = (redisUrl: string, count: number) =>
  Instances.behindProxy({
    script: "examples/main.ts",
    redisUrl,
    ready: /Task board MCP server at (\S+)/,
    env: { CONSOLE_HOLD: "none" }
  }, count)

// The instance that answered the session's newest GET after `after` requests, once there is one.
const servingGet = (proxy: Proxy.Proxy, session: string | undefined, after: number) =>
  Effect.gen(function*() {
    for (let n = 0; n < 200; n++) {
      const get = proxy.served.slice(after).findLast((served) => served.method === "GET" && served.session === session)
      if (get !== undefined) return get.backend
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.die("no GET reached an instance")
  })

describe("MCP over Streamable HTTP on Redis: instances of the example killed outright", () => {
  it.live(
    "a subscriber whose GET stream was served by an instance that died, twice, still hears each change",
    () =>
      Effect.gen(function*() {
        const redis = yield* RedisServer.start
        const { instances, proxy } = yield* board(redis.url, 3)
        const client = new Client({ name: "failover-test", version: "1.0.0" }, { capabilities: {} })
        const transport = new StreamableHTTPClientTransport(new URL(proxy.url))
        yield* Effect.acquireRelease(
          Effect.promise(() => client.connect(transport)),
          () => Effect.promise(() => client.close().catch(() => undefined))
        )
        const updated = yield* Queue.unbounded<string>()
        client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
          Queue.offerUnsafe(updated, n.params.uri)
        })
        yield* Effect.promise(() => client.subscribeResource({ uri: "surface://cells/focus" }))
        const changer = new Client({ name: "failover-changer", version: "1.0.0" }, { capabilities: {} })
        yield* Effect.acquireRelease(
          Effect.promise(() => changer.connect(new StreamableHTTPClientTransport(new URL(proxy.url)))),
          () => Effect.promise(() => changer.close().catch(() => undefined))
        )
        const change = (value: string) =>
          Effect.promise(() =>
            changer.callTool({ name: "board_focus", arguments: { value } }) as Promise<CallToolResult>
          )
        yield* change("before")
        assert.strictEqual(yield* Queue.take(updated).pipe(Effect.timeout("10 seconds")), "surface://cells/focus")
        // The instance serving the stream dies; the client resumes it at another, which it reads
        // nothing from before that one dies too, well within the three heartbeats Redis takes to
        // see it gone.
        const before = proxy.served.length
        const holder = yield* servingGet(proxy, transport.sessionId, 0)
        yield* instances[holder]!.kill
        const next = yield* servingGet(proxy, transport.sessionId, before)
        yield* instances[next]!.kill
        // Changes go on through the one left; the subscriber hears them.
        let heard = Option.none<string>()
        for (let n = 0; n < 30 && Option.isNone(heard); n++) {
          yield* change(`after ${n}`)
          heard = yield* Queue.take(updated).pipe(Effect.timeoutOption("1 second"))
        }
        assert.isTrue(Option.isSome(heard), "the subscriber heard no change after the instances died")
        yield* Queue.clear(updated)
        yield* change("last")
        assert.strictEqual(yield* Queue.take(updated).pipe(Effect.timeout("10 seconds")), "surface://cells/focus")
      }),
    { timeout: 120_000 }
  )
})
