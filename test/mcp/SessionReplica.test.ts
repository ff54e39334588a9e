// A session continuing one opened elsewhere (a replica on another instance): it starts from what
// its host had set, leads (announces moves, follows subscriptions) only when told to, and sends
// its host's subscriptions and log level to a registry when given one.
import { assert, describe, it } from "@effect/vitest"
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Queue, Ref, SubscriptionRef } from "effect"
import { Tools } from "effect-surface"
import { McpRpcError } from "effect-surface/mcp"
import type { McpSession2025 } from "effect-surface/mcp"
import * as Face from "../../src/mcp/face/Face.ts"
import * as GaugeSource from "./gauge.ts"
import { connectTo } from "./harness.ts"

const faceOver = (gauge: GaugeSource.Gauge) =>
  Face.make({
    core: { surface: GaugeSource.Gauge, expose: { cells: { level: true, stuck: true } } },
    client: Effect.succeed({ core: gauge.client, clients: {} }),
    coalesce: "1 millis",
    tools: {
      speak: Tools.make({
        description: "Logs at debug and at info.",
        mutates: false,
        handler: () => Effect.andThen(Effect.logDebug("quiet"), Effect.logInfo("loud"))
      })
    }
  })

const nothingWithin = <A>(queue: Queue.Queue<A>) =>
  Effect.andThen(Effect.sleep("150 millis"), Effect.map(Queue.clear(queue), (all) => all.length))

describe("a session continued elsewhere", () => {
  it.live("a session that does not lead announces no move until it leads; one that stops leading ends every subscription it followed", () =>
    Effect.gen(function*() {
      const gauge = yield* GaugeSource.makeGauge()
      const face = yield* faceOver(gauge)
      const replica = yield* connectTo(face, { leads: false })
      yield* face.setPrompts({})
      assert.strictEqual(yield* nothingWithin(replica.listChanged), 0)
      yield* replica.session.lead(true)
      yield* face.setTools({})
      assert.strictEqual(yield* Queue.take(replica.listChanged), "tools")

      yield* replica.session.follow(GaugeSource.level)
      assert.deepStrictEqual(yield* replica.session.subscriptions, [GaugeSource.level])
      yield* replica.session.lead(false)
      assert.deepStrictEqual(yield* replica.session.subscriptions, [])
      yield* SubscriptionRef.set(gauge.level, 7)
      assert.strictEqual(yield* nothingWithin(replica.updated), 0)
    }))

  it.live("a restored session logs to its host at the restored level and, leading, follows the restored subscriptions", () =>
    Effect.gen(function*() {
      const gauge = yield* GaugeSource.makeGauge()
      const face = yield* faceOver(gauge)
      const replica = yield* connectTo(face, { restore: { logLevel: "debug", subscriptions: [GaugeSource.level] } })
      const lines = yield* Queue.unbounded<string>()
      replica.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        Queue.offerUnsafe(lines, String(n.params.data))
      })
      yield* Effect.promise(() => replica.client.callTool({ name: "speak", arguments: {} }))
      assert.deepStrictEqual(yield* Queue.clear(lines), ["quiet", "loud"])
      // Live once the source has opened it.
      yield* Effect.repeat(Ref.get(gauge.live), { until: (n) => n === 1 })
      yield* SubscriptionRef.set(gauge.level, 3)
      assert.strictEqual(yield* Queue.take(replica.updated), GaugeSource.level)
    }))

  it.live("with a registry, subscribe, unsubscribe and setLevel go to it, its refusal is the host's answer, and the level is set here too", () =>
    Effect.gen(function*() {
      const gauge = yield* GaugeSource.makeGauge()
      const face = yield* faceOver(gauge)
      const asked = yield* Queue.unbounded<string>()
      const registry: McpSession2025.Registry = {
        subscribe: (uri) =>
          uri === GaugeSource.level
            ? Queue.offer(asked, `subscribe ${uri}`)
            : Effect.fail(new McpRpcError.ProtocolError({ code: -32000, message: "kept elsewhere: full" })),
        unsubscribe: (uri) => Queue.offer(asked, `unsubscribe ${uri}`),
        setLogLevel: (level) => Queue.offer(asked, `level ${level}`)
      }
      const replica = yield* connectTo(face, { leads: false, registry })
      yield* Effect.promise(() => replica.client.subscribeResource({ uri: GaugeSource.level }))
      const refused = yield* Effect.flip(
        Effect.tryPromise(() => replica.client.subscribeResource({ uri: "surface://cells/stuck" }))
      )
      assert.include(String(refused.cause), "kept elsewhere: full")
      // An unknown URI is refused here, before the registry is asked.
      const unknown = yield* Effect.flip(
        Effect.tryPromise(() => replica.client.subscribeResource({ uri: "surface://cells/nothing" }))
      )
      assert.include(String(unknown.cause), "surface://cells/nothing")
      yield* Effect.promise(() => replica.client.unsubscribeResource({ uri: GaugeSource.level }))
      yield* Effect.promise(() => replica.client.setLoggingLevel("error"))
      assert.deepStrictEqual(yield* Queue.clear(asked), [
        `subscribe ${GaugeSource.level}`,
        `unsubscribe ${GaugeSource.level}`,
        "level error"
      ])
      // The registry only recorded them: nothing is followed here.
      assert.deepStrictEqual(yield* replica.session.subscriptions, [])
      const lines = yield* Queue.unbounded<string>()
      replica.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        Queue.offerUnsafe(lines, String(n.params.data))
      })
      yield* Effect.promise(() => replica.client.callTool({ name: "speak", arguments: {} }))
      assert.deepStrictEqual(yield* Queue.clear(lines), [])
    }))
})
