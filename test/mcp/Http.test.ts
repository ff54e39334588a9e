// The Streamable HTTP face, driven by the official SDK client over real loopback HTTP, and by raw
// fetch where the HTTP exchange itself is what is checked.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import {
  type CallToolResult,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Context, Deferred, Effect, Fiber, Layer, Option, Queue, Stream } from "effect"
import { Tools } from "effect-surface"
import { McpHttp, McpServer } from "effect-surface/mcp"
import { type BoardClients, serverOptions } from "../../examples/board/app.ts"
import { events, openGet, post, rawSession, resumeGet, type SseEvent } from "./httpRaw.ts"

const serveBoard = (http: McpHttp.HttpOptions = {}, extra: Partial<McpHttp.Options<never, never, BoardClients>> = {}) =>
  Effect.flatMap(
    serverOptions,
    (options) => McpHttp.serve({ ...options, coalesce: "1 millis", ...extra, http: { port: 0, ...http } })
  )

/** An SDK client over Streamable HTTP, with the notifications it receives queued by kind. */
const connect = (url: string) =>
  Effect.gen(function*() {
    const client = new Client({ name: "http-test", version: "1.0.0" }, { capabilities: {} })
    const transport = new StreamableHTTPClientTransport(new URL(url))
    const updated = yield* Queue.unbounded<string>()
    const logged = yield* Queue.unbounded<string>()
    const toolsChanged = yield* Queue.unbounded<void>()
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      Queue.offerUnsafe(updated, n.params.uri)
    })
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      Queue.offerUnsafe(logged, n.params.level)
    })
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      Queue.offerUnsafe(toolsChanged, undefined)
    })
    yield* Effect.acquireRelease(Effect.promise(() => client.connect(transport)), () =>
      Effect.promise(() => client.close()))
    return { client, transport, updated, logged, toolsChanged, sessionId: transport.sessionId ?? "" }
  })

const call = (client: Client, name: string, args: Record<string, unknown> = {}, signal?: AbortSignal) =>
  // The SDK's return type also admits a pre-2025 `toolResult` shape this server never sends.
  Effect.promise(() =>
    client.callTool({ name, arguments: args }, undefined, signal === undefined ? {} : { signal }) as Promise<
      CallToolResult
    >
  )

const json = (response: Response) =>
  Effect.promise(() => response.json() as Promise<{ readonly error?: { readonly code: number } }>)

const isUpdate = (event: SseEvent) => event.data.includes("notifications/resources/updated")

describe("MCP over Streamable HTTP: sessions", () => {
  it.live("two sessions never see each other's subscriptions: a resource update reaches only the session that subscribed", () =>
    Effect.gen(function*() {
      const served = yield* serveBoard()
      const a = yield* connect(served.url)
      const b = yield* connect(served.url)
      assert.notStrictEqual(a.sessionId, b.sessionId)
      yield* Effect.promise(() => a.client.subscribeResource({ uri: "surface://cells/focus" }))
      yield* Effect.promise(() => b.client.subscribeResource({ uri: "surface://cells/stopwatch/laps" }))
      const seenA = new Set<string>()
      const seenB = new Set<string>()
      // Each client opens its GET stream on its own schedule: change both until each has heard its
      // own update (bounded), which also proves both streams are live for what follows.
      for (
        let round = 0;
        round < 50 && !(seenA.has("surface://cells/focus") && seenB.has("surface://cells/stopwatch/laps"));
        round++
      ) {
        yield* call(b.client, "board_focus", { value: `round ${round}` })
        yield* call(a.client, "stopwatch_watch_lap")
        yield* Effect.sleep("40 millis")
        for (const uri of yield* Queue.clear(a.updated)) seenA.add(uri)
        for (const uri of yield* Queue.clear(b.updated)) seenB.add(uri)
      }
      yield* Effect.sleep("100 millis")
      for (const uri of yield* Queue.clear(a.updated)) seenA.add(uri)
      for (const uri of yield* Queue.clear(b.updated)) seenB.add(uri)
      assert.deepStrictEqual([...seenA], ["surface://cells/focus"])
      assert.deepStrictEqual([...seenB], ["surface://cells/stopwatch/laps"])
    }))

  it.live("the layers serve a face over HTTP: built from options, or the face of an McpServer layer", () =>
    Effect.gen(function*() {
      const options = yield* serverOptions
      // Built into the test's scope, so the servers live until it ends.
      const fromOptions = Context.get(
        yield* Layer.build(McpHttp.layer({ ...options, http: { port: 0 } })),
        McpHttp.Endpoint
      )
      const fromServer = Context.get(
        yield* Layer.build(
          McpHttp.layerServer({ port: 0, path: "/mcp/board" }).pipe(Layer.provide(McpServer.layer(options)))
        ),
        McpHttp.Endpoint
      )
      assert.match(fromServer.url, /\/mcp\/board$/)
      for (const endpoint of [fromOptions, fromServer]) {
        const c = yield* connect(endpoint.url)
        assert.include((yield* Effect.promise(() => c.client.listTools())).tools.map((t) => t.name), "tasks_add")
      }
    }))

  it.live("a roster move announces list_changed on every session's GET stream", () =>
    Effect.gen(function*() {
      const options = yield* serverOptions
      const served = yield* McpHttp.serve({ ...options, http: { port: 0 } })
      const clients = [yield* connect(served.url), yield* connect(served.url)]
      const heard = [false, false]
      // A client opens its GET stream after `initialize` on its own schedule: move the roster back
      // and forth until each has heard a move (bounded).
      for (let round = 0; round < 40 && heard.includes(false); round++) {
        yield* served.face.reroster(round % 2 === 0 ? {} : options.surfaces ?? {})
        yield* Effect.sleep("50 millis")
        for (const [i, c] of clients.entries()) if ((yield* Queue.clear(c.toolsChanged)).length > 0) heard[i] = true
      }
      assert.deepStrictEqual(heard, [true, true])
    }))

  it.live("two sessions keep their own log level: a tool's log line reaches only the session whose level admits it, on the call's own stream", () =>
    Effect.gen(function*() {
      const served = yield* serveBoard()
      const a = yield* connect(served.url)
      const b = yield* connect(served.url)
      yield* Effect.promise(() => a.client.setLoggingLevel("debug"))
      yield* Effect.promise(() => b.client.setLoggingLevel("error"))
      // tasks_add logs "added task …" at Info; the line travels before the result on the POST's stream.
      yield* call(a.client, "tasks_add", { title: "from a" })
      yield* call(b.client, "tasks_add", { title: "from b" })
      assert.include(yield* Queue.clear(a.logged), "info")
      assert.deepStrictEqual(yield* Queue.clear(b.logged), [])
    }))

  it.live("an unknown session id is 404, a request without one is 400, and a deleted session stays gone", () =>
    Effect.gen(function*() {
      const served = yield* serveBoard()
      const unknown = yield* post(served.url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, crypto.randomUUID())
      assert.strictEqual(unknown.status, 404)
      assert.strictEqual((yield* json(unknown)).error?.code, -32001)
      const missing = yield* post(served.url, { jsonrpc: "2.0", id: 1, method: "tools/list" })
      assert.strictEqual(missing.status, 400)

      const c = yield* connect(served.url)
      assert.include(yield* served.sessions, c.sessionId)
      yield* Effect.promise(() => c.transport.terminateSession())
      assert.notInclude(yield* served.sessions, c.sessionId)
      for (const attempt of [0, 1]) {
        const after = yield* post(served.url, { jsonrpc: "2.0", id: 2 + attempt, method: "tools/list" }, c.sessionId)
        assert.strictEqual(after.status, 404)
        assert.strictEqual((yield* json(after)).error?.code, -32001)
      }
      const get = yield* openGet(served.url, c.sessionId)
      assert.strictEqual(get.status, 404)
    }))

  it.live("the endpoint is served at its path with or without a query and in the forms a router matches (a trailing slash, another case); any other path is 404 and opens no session", () =>
    Effect.gen(function*() {
      const served = yield* serveBoard({ path: "/rpc" })
      const init = {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1.0.0" } }
      }
      for (const elsewhere of ["/", "/rpcx", "/rpc/more", "/mcp"]) {
        const refused = yield* post(new URL(elsewhere, served.url).href, init)
        assert.strictEqual(refused.status, 404, elsewhere)
      }
      assert.deepStrictEqual(yield* served.sessions, [])
      const queried = yield* post(`${served.url}?client=raw`, init)
      assert.strictEqual(queried.status, 200)
      assert.deepStrictEqual(yield* served.sessions, [queried.headers.get("mcp-session-id") ?? ""])
      for (const alike of ["/rpc/", "/rpc/?client=raw", "/RPC", "//rpc"]) {
        const answered = yield* post(`${new URL(served.url).origin}${alike}`, init)
        assert.strictEqual(answered.status, 200, alike)
      }
    }))

  it.live("a client reconnecting to the GET stream with Last-Event-ID receives the events it missed", () =>
    Effect.gen(function*() {
      const served = yield* serveBoard()
      const session = yield* rawSession(served.url)
      const subscribed = yield* post(served.url, {
        jsonrpc: "2.0",
        id: 2,
        method: "resources/subscribe",
        params: { uri: "surface://cells/focus" }
      }, session)
      assert.include(yield* Effect.promise(() => subscribed.text()), "\"result\"")
      const other = yield* connect(served.url)

      // Read the stream until the first update, then drop the connection.
      const first = yield* openGet(served.url, session)
      assert.strictEqual(first.status, 200)
      const reading = yield* events(first).pipe(Stream.filter(isUpdate), Stream.runHead, Effect.forkChild)
      const heard = yield* Effect.gen(function*() {
        for (let round = 0; round < 50; round++) {
          yield* call(other.client, "board_focus", { value: `before ${round}` })
          yield* Effect.sleep("40 millis")
          if (reading.pollUnsafe() !== undefined) break
        }
        return yield* Fiber.await(reading)
      })
      assert.isTrue(heard._tag === "Success" && Option.isSome(heard.value))
      const lastEventId = heard._tag === "Success" ? Option.getOrThrow(heard.value).id : undefined
      assert.isString(lastEventId)

      // Updates while disconnected, then a resume from the last event seen.
      yield* call(other.client, "board_focus", { value: "missed 1" })
      yield* Effect.sleep("50 millis")
      yield* call(other.client, "board_focus", { value: "missed 2" })
      yield* Effect.sleep("50 millis")
      const resumed = yield* openGet(served.url, session, lastEventId)
      assert.strictEqual(resumed.status, 200)
      const replayed = yield* events(resumed).pipe(
        Stream.filter(isUpdate),
        Stream.take(2),
        Stream.runCollect,
        Effect.timeout("5 seconds")
      )
      assert.strictEqual(replayed.length, 2)
      for (const event of replayed) {
        assert.isString(event.id)
        assert.notStrictEqual(event.id, lastEventId)
      }
    }))

  it.live("an event id issued to another session replays nothing to this one", () =>
    Effect.gen(function*() {
      const served = yield* serveBoard()
      const owner = yield* rawSession(served.url)
      const stranger = yield* rawSession(served.url)
      // An event on the owner's GET stream: a prompt list move is announced there.
      const first = yield* openGet(served.url, owner)
      const reading = yield* events(first).pipe(Stream.runHead, Effect.forkChild)
      yield* served.face.setPrompts({})
      const heard = yield* Fiber.join(reading).pipe(Effect.timeout("5 seconds"))
      const ownersId = Option.getOrUndefined(heard)?.id
      assert.isString(ownersId)
      const foreign = yield* openGet(served.url, stranger, ownersId)
      assert.strictEqual(foreign.status, 400)
      // The owner resumes once the server has seen its first stream go (until then it is 409).
      const own = yield* resumeGet(served.url, owner, ownersId)
      assert.strictEqual(own.status, 200)
      yield* Effect.promise(() => own.body?.cancel() ?? Promise.resolve())
    }))

  it.live("a slow tool cancelled by the client stops: its fiber is interrupted", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const options = yield* serverOptions
      const slow = Tools.make({
        description: "Wait until cancelled.",
        mutates: false,
        handler: () =>
          Deferred.succeed(started, undefined).pipe(
            Effect.andThen(Effect.never),
            Effect.as("never answered"),
            Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
          )
      })
      const served = yield* McpHttp.serve({ ...options, tools: { ...options.tools, slow }, http: { port: 0 } })
      const c = yield* connect(served.url)
      const controller = new AbortController()
      const calling = yield* call(c.client, "slow", {}, controller.signal).pipe(Effect.exit, Effect.forkChild)
      yield* Deferred.await(started).pipe(Effect.timeout("5 seconds"))
      controller.abort()
      yield* Deferred.await(interrupted).pipe(Effect.timeout("5 seconds"))
      yield* Fiber.await(calling)
      // The session serves on after the cancellation.
      assert.isAbove((yield* Effect.promise(() => c.client.listTools())).tools.length, 0)
    }))
})
