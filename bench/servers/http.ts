// A Streamable HTTP MCP server for the HTTP benchmark, run as a child process with an IPC channel:
// `ours` (McpHttp.serve), `ours-redis` (the same, its sessions shared in the Redis at REDIS_URL,
// answering to the names in ALLOWED_HOSTS too), `raw` (node:http + the SDK's
// StreamableHTTPServerTransport, one SDK Server per session, as the SDK documents; `raw-tuned` the
// same with the SDK's elicitation validator built lazily, as ours builds it) or `effect-ai`
// (its `McpServer.layerHttp`; `effect-ai-2026` serves 2026-07-28 alone) or `sdk-v2` (SDK v2's `createMcpHandler`, the 2026-07-28 peer, loaded
// only when asked for). All bind 127.0.0.1 on a free port.
// IPC: it sends `{ type: "ready", url }`; it answers `{ type: "memory" }` (after forcing GC, when
// run with --expose-gc), `{ type: "census" }` (lib/heapCensus.ts) and `{ type: "cpu" }`; it exits
// when the parent disconnects.
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import { Context, Effect, Exit, Layer, Logger, References, Scope } from "effect"
import { McpProtocol, McpServer as AiMcpServer } from "effect/ai"
import { HttpRouter } from "effect/http"
import { McpHttp, McpHttpRedis } from "effect-surface/mcp"
import * as http from "node:http"
import { census } from "../lib/heapCensus.ts"
import { serveRawHttp } from "../lib/rawHttp.ts"
import { aiRegistrations, aiServerInfo, makeOurs } from "../lib/workload.ts"

type Request = { readonly type: "memory" | "cpu" | "census"; readonly id: number }

const send = (message: unknown) => process.send?.(message)

const forceGc = async () => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) return false
  for (let i = 0; i < 6; i++) {
    gc()
    await new Promise((resolve) => setImmediate(resolve))
  }
  return true
}

process.on("message", (message: Request) => {
  void (async () => {
    if (message.type === "memory") {
      const collected = await forceGc()
      const usage = process.memoryUsage()
      send({
        id: message.id,
        collected,
        heapUsed: usage.heapUsed,
        rss: usage.rss,
        external: usage.external,
        arrayBuffers: usage.arrayBuffers
      })
    } else if (message.type === "census") {
      await forceGc()
      send({ id: message.id, census: await census() })
    } else if (message.type === "cpu") {
      const usage = process.cpuUsage()
      send({ id: message.id, user: usage.user, system: usage.system })
    }
  })()
})
// A normal exit, so `--cpu-prof` (BENCH_SERVER_NODE_FLAGS) writes its profile.
process.on("disconnect", () => process.exit(0))
process.on("SIGTERM", () => process.exit(0))

const serveOurs = async (redisUrl?: string): Promise<string> => {
  const scope = await Effect.runPromise(Scope.make())
  process.on("exit", () => {
    void Effect.runPromise(Scope.close(scope, Exit.void))
  })
  const hosts = (process.env.ALLOWED_HOSTS ?? "").split(",").filter((host) => host !== "")
  const served = await Effect.runPromise(
    Effect.gen(function*() {
      const { options } = yield* makeOurs
      const shared = redisUrl === undefined
        ? Context.empty()
        : yield* Layer.build(
          McpHttpRedis.layer({ prefix: process.env.REDIS_PREFIX ?? "bench:" }).pipe(
            Layer.provide(NodeRedis.layer({ url: redisUrl, disableOfflineQueue: true }))
          )
        )
      const allowed = hosts.length === 0 ? {} : { allowedHosts: ["127.0.0.1", ...hosts] }
      return yield* McpHttp.serve({ ...options, http: { port: 0, maxSessions: 10_000, ...allowed } }).pipe(
        Effect.provideContext(shared)
      )
    }).pipe(
      Scope.provide(scope),
      Effect.provideService(References.MinimumLogLevel, "Warn"),
      Effect.provideService(Logger.LogToStderr, true)
    )
  )
  return served.url
}

// effect/ai's own Streamable HTTP endpoint (`layerHttp`): 2025-11-25, so the SDK 1.x client can
// speak it, or 2026-07-28 alone for the stateless figures.
const serveEffectAi = async (
  protocol: typeof McpProtocol.v2025_11_25 | typeof McpProtocol.v2026_07_28 = McpProtocol.v2025_11_25
): Promise<string> => {
  const node = http.createServer()
  const app = HttpRouter.serve(
    AiMcpServer.layerHttp({
      ...aiServerInfo,
      path: "/mcp",
      protocols: [protocol],
      registrations: aiRegistrations
    }),
    { disableLogger: true, disableListenLog: true }
  ).pipe(
    Layer.provide(NodeHttpServer.layer(() => node, { port: 0, host: "127.0.0.1" })),
    Layer.provide(
      Layer.mergeAll(Layer.succeed(References.MinimumLogLevel, "Warn"), Layer.succeed(Logger.LogToStderr, true))
    )
  )
  const scope = await Effect.runPromise(Scope.make())
  await Effect.runPromise(Layer.build(app).pipe(Scope.provide(scope)))
  const address = node.address()
  return `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/mcp`
}

const kind = process.argv[2]
const url = kind === "ours"
  ? await serveOurs()
  : kind === "ours-redis"
  ? await serveOurs(process.env.REDIS_URL ?? "redis://127.0.0.1:6379")
  : kind === "raw"
  ? (await serveRawHttp()).url
  : kind === "raw-tuned"
  ? (await serveRawHttp({ tuned: true })).url
  : kind === "effect-ai"
  ? await serveEffectAi()
  : kind === "effect-ai-2026"
  ? await serveEffectAi(McpProtocol.v2026_07_28)
  : kind === "sdk-v2"
  ? (await (await import("../lib/sdkV2Http.ts")).serveSdkV2Http()).url
  : undefined
if (url === undefined) {
  process.stderr.write(
    `usage: http.ts ours|ours-redis|raw|raw-tuned|effect-ai|effect-ai-2026|sdk-v2 (got ${String(kind)})\n`
  )
  process.exit(2)
}
send({ type: "ready", url })
