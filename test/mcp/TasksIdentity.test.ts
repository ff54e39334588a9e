// MCP tasks and parked calls bound to the caller that started them: behind the resource server, a
// task one subject started is, to any other, a task that does not exist (tasks/get, tasks/update and
// tasks/cancel answer -32602 as for an unknown id), on the instance running it and on another sharing
// its Redis alike; its owner reads and cancels it anywhere. A call parked on a question is continued
// by its caller's retry only, wherever the retry lands.
import { assert, describe, it } from "@effect/vitest"
import { NodeRedis } from "@effect/platform-node"
import { Effect, Layer, Schema } from "effect"
import { Ask, Identity, Tools } from "effect-surface"
import { McpAuth, McpHttp, McpHttpRedis, McpTokenVerifier } from "effect-surface/mcp"
import { ServeTools } from "effect-surface/serve"
import { serve } from "../../examples/conformance-server/main.ts"
import { modernRequest, resultOf } from "./authServed.ts"
import * as RedisServer from "./redisServer.ts"

const follows = { extensions: { "io.modelcontextprotocol/tasks": {} } }

const tokens = {
  alice: Identity.token({ subject: "alice", clientId: "host-a", scopes: [] }),
  bob: Identity.token({ subject: "bob", clientId: "host-b", scopes: [] })
}

const auth = McpAuth.layer().pipe(Layer.provide(McpTokenVerifier.layerTest({ issuer: "https://auth.test", tokens })))

// One instance of the conformance server behind the resource server, its tasks in the Redis at `url`.
const instance = (url: string) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      Layer.mergeAll(auth, McpHttpRedis.layer().pipe(Layer.provide(NodeRedis.layer({ url }))))
    )
    return yield* Effect.provide(serve(0), context)
  })

// A mutating tool that asks before it acts (so a parked call is never run twice), behind the
// resource server, its parked calls shared in the Redis at `url`.
const transferring = (url: string, runs: { count: number }) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      Layer.mergeAll(auth, McpHttpRedis.layer().pipe(Layer.provide(NodeRedis.layer({ url }))))
    )
    const transfer = Tools.make({
      description: "Transfer, once confirmed.",
      mutates: true,
      handler: () =>
        Effect.gen(function*() {
          runs.count++
          yield* Ask.elicit("Transfer?", Schema.Struct({ ok: Schema.Boolean }), { key: "confirm" })
          return `transferred for ${(yield* Identity.current).subject}`
        })
    })
    return yield* Effect.provide(
      McpHttp.serve({
        ...ServeTools.rooted({ transfer }),
        client: Effect.succeed({ clients: {} }),
        http: { port: 0 }
      }),
      context
    )
  })

const ask = (url: string, who: keyof typeof tokens, method: string, params: Record<string, unknown>) =>
  Effect.map(modernRequest(url, `Bearer ${who}`, method, params, follows), resultOf)

describe("MCP tasks bound to their caller", () => {
  it.live(
    "a task another subject started is unknown to this one (-32602) on either instance; its owner reads and cancels it on either",
    () =>
      Effect.gen(function*() {
        const redis = yield* RedisServer.start
        const a = yield* instance(redis.url)
        const b = yield* instance(redis.url)
        const started = yield* ask(a.url, "alice", "tools/call", {
          name: "slow_compute",
          arguments: { seconds: 60, label: "alice's" }
        })
        assert.strictEqual(started?.result?.["resultType"], "task", JSON.stringify(started))
        const taskId = String(started?.result?.["taskId"])
        for (const url of [a.url, b.url]) {
          assert.strictEqual((yield* ask(url, "alice", "tasks/get", { taskId }))?.result?.["taskId"], taskId)
          for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
            const refused = yield* ask(url, "bob", method, { taskId, inputResponses: {} })
            assert.strictEqual(refused?.error?.code, -32602, `${method} at ${url}: ${JSON.stringify(refused)}`)
            assert.include(refused?.error?.message ?? "", `no task "${taskId}"`)
          }
          // Bob's refusals answered as for an id that never was.
          const never = yield* ask(url, "bob", "tasks/get", { taskId: "00000000-0000-0000-0000-000000000000" })
          assert.strictEqual(never?.error?.code, -32602)
        }
        assert.strictEqual((yield* ask(a.url, "alice", "tasks/get", { taskId }))?.result?.["status"], "working")
        const cancelled = yield* ask(b.url, "alice", "tasks/cancel", { taskId })
        assert.strictEqual(cancelled?.result?.["resultType"], "complete")
        assert.strictEqual((yield* ask(a.url, "alice", "tasks/get", { taskId }))?.result?.["status"], "cancelled")
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )

  it.live(
    "a call parked on a question is continued only by the caller that started it: another's retry is refused, on either instance",
    () =>
      Effect.gen(function*() {
        const redis = yield* RedisServer.start
        const runs = { count: 0 }
        const a = yield* transferring(redis.url, runs)
        const b = yield* transferring(redis.url, runs)
        const asks = { elicitation: {} }
        const call = { name: "transfer", arguments: {} }
        const parked = resultOf(yield* modernRequest(a.url, "Bearer alice", "tools/call", call, asks))
        assert.strictEqual(parked?.result?.["resultType"], "input_required", JSON.stringify(parked))
        const retry = {
          ...call,
          requestState: parked?.result?.["requestState"],
          inputResponses: { confirm: { action: "accept", content: { ok: true } } }
        }
        for (const url of [a.url, b.url]) {
          const hijacked = resultOf(yield* modernRequest(url, "Bearer bob", "tools/call", retry, asks))
          assert.match(hijacked?.error?.message ?? "", /the call it continues has ended/, JSON.stringify(hijacked))
        }
        const answered = resultOf(yield* modernRequest(b.url, "Bearer alice", "tools/call", retry, asks))
        assert.include(JSON.stringify(answered?.result?.["content"]), "transferred for alice", JSON.stringify(answered))
        assert.strictEqual(runs.count, 1)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
