// The example behind its resource server as two instances (`npm start` with REDIS_URL, AUTH_ISSUER and
// PUBLIC_URL, as child processes) behind a round-robin proxy with no affinity: one token is accepted by
// both, and each instance shows its holder the same view of the surface, in both eras; a request
// without a token is refused by whichever instance it reaches. A 2025 session is its opener's at both
// instances: the one that did not open it refuses another subject's token as the opener's does.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as AuthIssuer from "./authIssuer.ts"
import { legacyInitialize, legacyRequest, modernRequest, resultOf } from "./authServed.ts"
import { bound } from "./authSession.ts"
import * as Instances from "./cluster/instances.ts"
import * as RedisServer from "./redisServer.ts"

const names = (answered: { readonly messages: ReadonlyArray<Record<string, unknown>> }, key: string) =>
  ((resultOf(answered as never)?.result?.[key] ?? []) as ReadonlyArray<Record<string, unknown>>).map((item) =>
    String(item["name"])
  ).sort()

// Redis, a test issuer, and two instances of the board behind the proxy, each trusting the issuer.
const boardBehindProxy = Effect.gen(function*() {
  const redis = yield* RedisServer.start
  const issuer = yield* AuthIssuer.start()
  const { instances, proxy } = yield* Instances.behindProxy({
    script: "examples/main.ts",
    redisUrl: redis.url,
    ready: /Task board MCP server at (\S+)/,
    env: (proxyUrl) => ({ AUTH_ISSUER: issuer.issuer, PUBLIC_URL: proxyUrl })
  })
  return { instances, issuer, proxy }
})

describe("the board behind its resource server, two instances on Redis behind a proxy", () => {
  it.live(
    "one token gets the same view of the surface from either instance, in both eras",
    () =>
      Effect.gen(function*() {
        const { instances, issuer, proxy } = yield* boardBehindProxy
        const reader = `Bearer ${yield* Effect.promise(() => issuer.sign({ aud: proxy.url, scope: "board:read" }))}`
        const writer = `Bearer ${yield* Effect.promise(() =>
          issuer.sign({ aud: proxy.url, scope: "board:read board:write" })
        )}`
        // Each list asked four times over, so the proxy sends it to each instance twice.
        const lists: ReadonlyArray<readonly [string, string]> = [[reader, "tools"], [writer, "tools"], [
          reader,
          "resources"
        ], [reader, "prompts"]]
        for (const [token, key] of lists) {
          const method = `${key}/list`
          const views = new Set<string>()
          for (let i = 0; i < 4; i++) {
            views.add(JSON.stringify(names(yield* modernRequest(proxy.url, token, method), key)))
            views.add(JSON.stringify(names(yield* legacyRequest(proxy.url, token, method), key)))
          }
          assert.strictEqual(views.size, 1, `${method}: ${[...views].join(" | ")}`)
        }
        const readerTools = names(yield* modernRequest(proxy.url, reader, "tools/list"), "tools")
        const writerTools = names(yield* modernRequest(proxy.url, writer, "tools/list"), "tools")
        assert.notInclude(readerTools, "tasks_add")
        assert.includeMembers(writerTools, [...readerTools, "tasks_add", "tasks_complete"])
        // A change made with the writer's token through one instance is read through the other.
        yield* modernRequest(proxy.url, writer, "tools/call", { name: "tasks_add", arguments: { title: "shared" } })
        const open = yield* modernRequest(proxy.url, reader, "tools/call", { name: "tasks_open", arguments: {} })
        assert.strictEqual(open.status, 200)
        assert.include(JSON.stringify(resultOf(open)?.result), "t1")
        const backends = new Set(proxy.served.map((served) => served.backend))
        assert.strictEqual(backends.size, instances.length)
        for (let i = 0; i < 2; i++) assert.strictEqual((yield* legacyInitialize(proxy.url, undefined)).status, 401)
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "a 2025 session opened at one instance is refused to another subject at both, and served to its own",
    () =>
      Effect.gen(function*() {
        const { instances, issuer, proxy } = yield* boardBehindProxy
        yield* bound({
          url: proxy.url,
          audience: proxy.url,
          sign: issuer.sign,
          call: { name: "tasks_open", arguments: {} },
          answered: "structuredContent"
        })
        // Every kind of request named the session at each instance.
        for (const method of ["POST", "GET", "DELETE"]) {
          const backends = new Set(
            proxy.served.filter((served) => served.method === method && served.session !== undefined).map((served) =>
              served.backend
            )
          )
          assert.strictEqual(backends.size, instances.length, method)
        }
      }).pipe(Effect.scoped),
    120_000
  )
})
