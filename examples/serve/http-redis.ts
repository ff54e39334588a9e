import { NodeRedis, NodeRuntime } from "@effect/platform-node"
import { Config, Console, Effect, Layer, References } from "effect"
import { Client } from "effect-surface"
import { McpHttp, McpHttpRedis } from "effect-surface/mcp"
import { counter, Counter, expose } from "../quickstart.ts"

// The sessions in the Redis at REDIS_URL: a command fails at once while Redis is away. The client
// warns at every reconnect attempt, stack and all; the face says once that Redis went and once that
// it is back, so the client's own warnings are left unsaid.
const redis = Layer.unwrap(
  Effect.map(Config.String("REDIS_URL"), (url) => NodeRedis.layer({ url, disableOfflineQueue: true }))
).pipe(Layer.provide(Layer.succeed(References.MinimumLogLevel, "None")))

// The counter over Streamable HTTP; run as many as you like behind one load balancer, no affinity.
// (Its count is each instance's own: the app's state is the app's to share, as examples/board does.)
const server = Layer.unwrap(Effect.map(Config.Int("PORT").pipe(Config.withDefault(3001)), (port) =>
  McpHttp.layer({
    core: { surface: Counter, expose },
    client: Effect.map(
      counter,
      (implemented) => ({ core: Client.erase(Client.directDispatch(implemented)), clients: {} })
    ),
    serverInfo: { name: "counter", version: "1.0.0" },
    http: { port }
  }))).pipe(Layer.provide(McpHttpRedis.layer()), Layer.provide(redis))

export const main = Effect.gen(function*() {
  const { url } = yield* McpHttp.Endpoint
  yield* Console.log(`counter at ${url}`)
  return yield* Effect.never
}).pipe(Effect.provide(server))

if (import.meta.main) NodeRuntime.runMain(main)
