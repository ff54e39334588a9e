// One broadcaster per face: what every session hears unprompted is followed once for them all. A
// reroster is announced to every leading session by the face's listeners (a session only registers),
// a URI held by many sessions runs one watch, a session that is slow, broken or gone holds no other
// back, and the watch ends with the last session holding it. Driven through the SDK client, in
// memory and over Streamable HTTP.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import {
  PromptListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Effect, Exit, Queue, Ref, Scope, SubscriptionRef } from "effect"
import { McpHttp } from "effect-surface/mcp"
import * as Face from "../../src/mcp/face/Face.ts"
import * as Session from "../../src/mcp/v2025/Session.ts"
import { eventually, Gauge, type Gauge as GaugeSource, level, makeGauge } from "./gauge.ts"
import { connectTo } from "./harness.ts"

const gaugeFace = Effect.gen(function*() {
  const gauge = yield* makeGauge()
  const face = yield* Face.make({
    core: { surface: Gauge, expose: { cells: { level: true } } },
    client: Effect.succeed({ core: gauge.client, clients: {} }),
    coalesce: "1 millis"
  })
  return { gauge, face }
})

const subscribe = (client: Client) => Effect.promise(() => client.subscribeResource({ uri: level }))

/** Wait (bounded) for the next item of `queue`, failing with `what` when none comes. */
const next = <A>(queue: Queue.Queue<A>, what: string) =>
  Queue.take(queue).pipe(Effect.timeoutOrElse({ duration: "2 seconds", orElse: () => Effect.die(`none: ${what}`) }))

const isUpdated = (message: JSONRPCMessage) =>
  "method" in message && message.method === "notifications/resources/updated"

/**
 * A session whose transport answers each `resources/updated` send with `send` instead: one that
 * never settles is a stalled host, one that rejects a broken one.
 */
const connectAltered = (face: Face.Face, send: () => Promise<void>) =>
  Effect.gen(function*() {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    const original = serverSide.send.bind(serverSide)
    serverSide.send = (message, options) => isUpdated(message) ? send() : original(message, options)
    const session = yield* Session.connect(face, serverSide)
    const client = new Client({ name: "altered", version: "1.0.0" }, { capabilities: {} })
    yield* Effect.acquireRelease(Effect.promise(() => client.connect(clientSide)), () =>
      Effect.promise(() => client.close()))
    return { session, client }
  })

describe("one broadcaster per face, in memory", () => {
  it.live("a reroster is announced to every leading session by the face's broadcaster, each session only registered with it", () =>
    Effect.gen(function*() {
      const { face } = yield* gaugeFace
      const hosts = yield* Effect.forEach(Array.from({ length: 8 }, (_, i) => i), () => connectTo(face))
      assert.strictEqual(yield* face.broadcaster.listeners, 8)
      // The gauge's members move too: tools, then resources.
      yield* face.reroster({})
      for (const [i, host] of hosts.entries()) {
        assert.deepStrictEqual(
          [yield* next(host.listChanged, `host ${i}`), yield* next(host.listChanged, `host ${i}`)],
          [
            "tools",
            "resources"
          ]
        )
      }

      // A session that stops leading leaves the broadcaster and hears no more moves.
      const [quiet, ...rest] = hosts
      yield* quiet!.session.lead(false)
      assert.strictEqual(yield* face.broadcaster.listeners, 7)
      yield* face.setTools({})
      for (const [i, host] of rest.entries())
        assert.strictEqual(yield* next(host.listChanged, `host ${i + 1}`), "tools")
      yield* Effect.sleep("50 millis")
      assert.strictEqual(yield* Queue.size(quiet!.listChanged), 0)

      // One that closes leaves it too.
      yield* Effect.promise(() => rest[0]!.client.close())
      yield* rest[0]!.session.closed
      assert.strictEqual(yield* face.broadcaster.listeners, 6)
    }))

  it.live("a URI subscribed by many sessions runs one watch, and every one of them hears each change", () =>
    Effect.gen(function*() {
      const { face, gauge } = yield* gaugeFace
      const hosts = yield* Effect.forEach(Array.from({ length: 10 }, (_, i) => i), () => connectTo(face))
      yield* Effect.forEach(hosts, (host) => subscribe(host.client), { concurrency: "unbounded", discard: true })
      assert.strictEqual(yield* face.watching, 1)
      assert.strictEqual(yield* face.broadcaster.followed, 1)
      assert.strictEqual(yield* Ref.get(gauge.opens), 1)
      for (const change of [1, 2, 3]) {
        yield* SubscriptionRef.set(gauge.level, change)
        for (const [i, host] of hosts.entries()) {
          assert.strictEqual(yield* next(host.updated, `change ${change} at host ${i}`), level)
        }
      }
      for (const host of hosts) assert.deepStrictEqual(yield* host.session.subscriptions, [level])
    }))

  it.live("a stalled, a broken and a departing session hold no other back: the rest hear the next update, and the watch goes on", () =>
    Effect.gen(function*() {
      const { face, gauge } = yield* gaugeFace
      const stalled = yield* connectAltered(face, () => new Promise<void>(() => {}))
      const broken = yield* connectAltered(face, () => Promise.reject(new Error("the host's pipe is broken")))
      const departing = yield* Effect.flatMap(Scope.make(), (scope) => connectTo(face).pipe(Scope.provide(scope)))
      const hosts = yield* Effect.forEach([1, 2, 3, 4], () => connectTo(face))
      for (const c of [stalled.client, broken.client, departing.client, ...hosts.map((h) => h.client)]) {
        yield* subscribe(c)
      }
      // The departing host leaves the moment it hears the first update, while the rest are told.
      departing.client.setNotificationHandler(ResourceUpdatedNotificationSchema, () => {
        void departing.client.close()
      })
      yield* SubscriptionRef.set(gauge.level, 1)
      for (const [i, host] of hosts.entries()) assert.strictEqual(yield* next(host.updated, `first at ${i}`), level)
      yield* departing.session.closed

      yield* SubscriptionRef.set(gauge.level, 2)
      for (const [i, host] of hosts.entries()) assert.strictEqual(yield* next(host.updated, `second at ${i}`), level)
      assert.strictEqual(yield* face.watching, 1)
      assert.deepStrictEqual(yield* stalled.session.subscriptions, [level])
      assert.deepStrictEqual(yield* broken.session.subscriptions, [level])
    }))

  it.live("the watch ends with the last session's unsubscribe, not before", () =>
    Effect.gen(function*() {
      const { face, gauge } = yield* gaugeFace
      const hosts = yield* Effect.forEach([1, 2, 3], () => connectTo(face))
      for (const host of hosts) yield* subscribe(host.client)
      assert.strictEqual(yield* eventually(Ref.get(gauge.live), (n) => n === 1), 1)
      const [last, ...others] = hosts
      for (const host of others) {
        yield* Effect.promise(() => host.client.unsubscribeResource({ uri: level }))
        assert.strictEqual(yield* face.watching, 1)
      }
      // The one still holding it still hears it; those gone do not.
      yield* SubscriptionRef.set(gauge.level, 5)
      assert.strictEqual(yield* next(last!.updated, "the last holder"), level)
      yield* Effect.sleep("50 millis")
      for (const host of others) assert.strictEqual(yield* Queue.size(host.updated), 0)

      yield* Effect.promise(() => last!.client.unsubscribeResource({ uri: level }))
      // Awaited: the watch and its source subscription have ended by the time unsubscribe answers.
      assert.strictEqual(yield* face.watching, 0)
      assert.strictEqual(yield* face.broadcaster.followed, 0)
      assert.strictEqual(yield* Ref.get(gauge.live), 0)
      assert.strictEqual(yield* Ref.get(gauge.opens), 1)
    }))

  it.live("a URI whose source ends is dropped for every session holding it, each told by a last update", () =>
    Effect.gen(function*() {
      const { face, gauge } = yield* gaugeFace
      const hosts = yield* Effect.forEach([1, 2, 3], () => connectTo(face))
      for (const host of hosts) yield* subscribe(host.client)
      yield* gauge.end
      for (const [i, host] of hosts.entries()) assert.strictEqual(yield* next(host.updated, `end at ${i}`), level)
      for (const host of hosts) {
        assert.deepStrictEqual(yield* eventually(host.session.subscriptions, (uris) => uris.length === 0), [])
      }
      assert.strictEqual(yield* face.watching, 0)
    }))
})

/** An SDK client over Streamable HTTP with the notifications it received queued by kind. */
const connectHttp = (url: string) =>
  Effect.gen(function*() {
    const client = new Client({ name: "http-host", version: "1.0.0" }, { capabilities: {} })
    const heard = yield* Queue.unbounded<"updated" | "tools" | "prompts">()
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, () => {
      Queue.offerUnsafe(heard, "updated")
    })
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      Queue.offerUnsafe(heard, "tools")
    })
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
      Queue.offerUnsafe(heard, "prompts")
    })
    const transport = new StreamableHTTPClientTransport(new URL(url))
    yield* Effect.acquireRelease(Effect.promise(() => client.connect(transport)), () =>
      Effect.promise(() => transport.terminateSession().then(() => client.close()).catch(() => undefined)))
    return { client, heard }
  })

/** Change the cell until every host has heard an update (each GET stream opens in its own time); bounded. */
const untilEveryoneHears = (
  gauge: GaugeSource,
  hosts: ReadonlyArray<{ readonly heard: Queue.Queue<"updated" | "tools" | "prompts"> }>
) =>
  Effect.gen(function*() {
    const heard = new Set<number>()
    for (let round = 1; round <= 100 && heard.size < hosts.length; round++) {
      yield* SubscriptionRef.set(gauge.level, 1000 + round)
      yield* Effect.sleep("30 millis")
      for (const [i, host] of hosts.entries()) if ((yield* Queue.clear(host.heard)).includes("updated")) heard.add(i)
    }
    return heard.size
  })

describe("one broadcaster per face, over Streamable HTTP", () => {
  it.live("HTTP sessions subscribed to one URI share one watch, each hears its changes and a move of the prompts, and the watch ends with the last session", () =>
    Effect.gen(function*() {
      const { face, gauge } = yield* gaugeFace
      const served = yield* McpHttp.serveFace(face, { port: 0 })
      const scope = yield* Scope.make()
      const hosts = yield* Effect.forEach([1, 2, 3, 4, 5], () => connectHttp(served.url)).pipe(Scope.provide(scope))
      for (const host of hosts) yield* subscribe(host.client)
      assert.strictEqual(yield* face.watching, 1)
      assert.strictEqual(yield* face.broadcaster.listeners, 5)
      assert.strictEqual(yield* untilEveryoneHears(gauge, hosts), hosts.length)

      yield* face.setPrompts({})
      for (const [i, host] of hosts.entries()) assert.strictEqual(yield* next(host.heard, `prompts at ${i}`), "prompts")

      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(yield* eventually(face.watching, (n) => n === 0), 0)
      assert.strictEqual(yield* eventually(face.broadcaster.listeners, (n) => n === 0), 0)
      assert.strictEqual(yield* Ref.get(gauge.live), 0)
    }))
})
