// The caching hints of 2026-07-28 say who may be served an answer again: behind a resource server
// each caller's lists are narrowed to its scopes and a read may answer by who asks, so every list
// and read is `private`; served without one, every caller is shown the same, so they are `public`.
// Driven with the official v2 client's shared response cache (two principals on one store, as a
// host pool keeps it) and with raw requests for the hint values.
import { Client, InMemoryResponseCacheStore, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { McpHttp } from "effect-surface/mcp"
import { serverOptionsOver } from "../../examples/board/app.ts"
import * as BoardState from "../../examples/board/state.ts"
import { modernRequest, resultOf } from "./authServed.ts"
import { bearer, publicFile, serveScoped, type Token } from "./scopedFiles.ts"

// A pinned 2026 client signed in as `token`, caching in `store` under its own partition.
const cachingClient = (url: string, token: Token, store: InMemoryResponseCacheStore) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "tests", version: "1.0.0" }, {
        versionNegotiation: { mode: { pin: "2026-07-28" } },
        responseCacheStore: store,
        cachePartition: token
      })
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: bearer(token) }))
      return client
    }),
    (client) => Effect.promise(() => client.close().catch(() => undefined))
  )

const toolNames = (client: Client) =>
  Effect.promise(async () => (await client.listTools()).tools.map((tool) => tool.name))

const hintOf = (answered: Parameters<typeof resultOf>[0]) => {
  const result = resultOf(answered)?.result ?? {}
  return { cacheScope: result["cacheScope"], ttlMs: typeof result["ttlMs"] }
}

const lists = ["tools/list", "resources/list", "resources/templates/list", "prompts/list"] as const

describe("cache hints follow who may be served an answer", () => {
  it.effect("a shared response cache never serves a caller with no scope the admin's tool list", () =>
    Effect.gen(function*() {
      const { url } = yield* serveScoped()
      // The lists have stood an hour: fresh for the longest a hint allows.
      yield* TestClock.adjust("1 hour")
      const store = new InMemoryResponseCacheStore()
      const admin = yield* cachingClient(url, "admin", store)
      const guest = yield* cachingClient(url, "guest", store)
      const adminTools = yield* toolNames(admin)
      assert.include(adminTools, "tasks_add")
      const guestTools = yield* toolNames(guest)
      assert.notInclude(guestTools, "tasks_add")
      assert.notInclude(guestTools, "board_progress")
      // And the admin is still served its own.
      assert.deepStrictEqual(yield* toolNames(admin), adminTools)
    }))

  it.live("behind a resource server every list and read is private, and discovery public", () =>
    Effect.gen(function*() {
      const { url } = yield* serveScoped()
      for (const token of ["guest", "reader"] as const) {
        for (const method of lists) {
          const answered = yield* modernRequest(url, `Bearer ${token}`, method)
          assert.deepStrictEqual(hintOf(answered), { cacheScope: "private", ttlMs: "number" }, `${token} ${method}`)
        }
      }
      const read = yield* modernRequest(url, "Bearer reader", "resources/read", { uri: "surface://cells/focus" })
      assert.deepStrictEqual(hintOf(read), { cacheScope: "private", ttlMs: "number" })
      const unscoped = yield* modernRequest(url, "Bearer guest", "resources/read", { uri: publicFile })
      assert.deepStrictEqual(hintOf(unscoped), { cacheScope: "private", ttlMs: "number" })
      const discovered = yield* modernRequest(url, "Bearer guest", "server/discover")
      assert.deepStrictEqual(hintOf(discovered), { cacheScope: "public", ttlMs: "number" })
    }))

  it.live("served without authorization every list and read is public", () =>
    Effect.gen(function*() {
      const served = yield* McpHttp.serve({ ...serverOptionsOver(yield* BoardState.memory), http: { port: 0 } })
      for (const method of lists) {
        const answered = yield* modernRequest(served.url, undefined, method)
        assert.deepStrictEqual(hintOf(answered), { cacheScope: "public", ttlMs: "number" }, method)
      }
      const read = yield* modernRequest(served.url, undefined, "resources/read", { uri: "surface://cells/focus" })
      assert.deepStrictEqual(hintOf(read), { cacheScope: "public", ttlMs: "number" })
    }))
})
