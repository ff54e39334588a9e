// Behaviour 2, auth: the bearer is resolved before `initialize` (so the handshake and tools/list
// carry it) and again before every call (so a rotated token is used without reconnecting); `auth`,
// or an allowedHosts resolver, without a session is refused at wiring time; a credential is never
// logged nor part of any diagnostic or error. Observed by a recording proxy in front of the real
// server-everything, over Streamable HTTP and over SSE.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Logger, References } from "effect"
import { McpCallResult, McpToolset } from "effect-surface/client"
import { everythingHttp, recordingProxy } from "./servers.ts"

const bearerOf = (r: { readonly headers: Record<string, unknown> }) => r.headers["authorization"]

describe("auth", () => {
  it.live(
    "the bearer is on initialize and tools/list, and a token rotated mid-session is used on the next call without reconnecting",
    () =>
      Effect.gen(function*() {
        const upstream = yield* everythingHttp("streamableHttp")
        const proxy = yield* recordingProxy(`http://127.0.0.1:${upstream.port}`)
        let token = "token-one"
        let resolved = 0
        const toolset = yield* McpToolset.make(
          [{ name: "docs", type: "streamable-http", url: `${proxy.origin}/mcp` }],
          {
            session: { user: "ada" },
            allowedHosts: ["127.0.0.1"],
            auth: (server, { session }) =>
              Effect.sync(() => {
                resolved++
                assert.strictEqual(server, "docs")
                assert.strictEqual(session.user, "ada")
                return { token }
              })
          }
        )
        const [initialize] = proxy.bodies("initialize")
        const [list] = proxy.bodies("tools/list")
        assert.strictEqual(bearerOf(initialize!), "Bearer token-one")
        assert.strictEqual(bearerOf(list!), "Bearer token-one")

        token = "token-two"
        assert.strictEqual(
          McpCallResult.textOf(yield* toolset.call("docs__echo", { message: "rotated" })),
          "Echo: rotated"
        )
        const calls = proxy.bodies("tools/call")
        assert.strictEqual(bearerOf(calls[0]!), "Bearer token-two")
        assert.lengthOf(proxy.bodies("initialize"), 1, "the rotated token did not cost a reconnect")
        assert.isAtLeast(resolved, 2)
      }),
    { timeout: 60_000 }
  )

  it.live("over SSE the bearer is on the event stream and on every posted message", () =>
    Effect.gen(function*() {
      const upstream = yield* everythingHttp("sse")
      const proxy = yield* recordingProxy(`http://127.0.0.1:${upstream.port}`)
      const toolset = yield* McpToolset.make([{ name: "legacy", type: "sse", url: `${proxy.origin}/sse` }], {
        session: "s",
        allowedHosts: ["127.0.0.1"],
        auth: () => ({ token: "sse-token" })
      })
      yield* toolset.call("legacy__echo", { message: "x" })
      const stream = proxy.requests.find((r) => r.method === "GET" && r.url.startsWith("/sse"))
      assert.strictEqual(bearerOf(stream!), "Bearer sse-token")
      const posts = proxy.requests.filter((r) => r.method === "POST")
      assert.isAtLeast(posts.length, 3)
      for (const post of posts) assert.strictEqual(bearerOf(post), "Bearer sse-token")
    }), { timeout: 60_000 })

  it.effect("auth without a session is refused at wiring time, saying why, before anything is dialled", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(
        McpToolset.make([{ name: "docs", type: "streamable-http", url: "http://127.0.0.1:9/mcp" }], {
          auth: () => ({ token: "t" })
        })
      )
      assert.strictEqual(refused._tag, "WiringError")
      assert.include(refused.message, "auth needs a session")
      assert.include(refused.message, "one toolset per session")
    }))

  it.effect("an allowedHosts resolver without a session is refused at wiring time", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(
        McpToolset.make([{ name: "docs", type: "streamable-http", url: "http://127.0.0.1:9/mcp" }], {
          allowedHosts: () => ["127.0.0.1"]
        })
      )
      assert.include(refused.message, "an allowedHosts resolver needs a session")
    }))

  it.live("a credential appears in no log line, diagnostic or error, at any level", () =>
    Effect.gen(function*() {
      const secret = "s3cret-bearer-value"
      const logged: Array<string> = []
      const capture = Logger.make((options) => {
        logged.push(
          `${String(options.message)} ${JSON.stringify(options.fiber.getRef(References.CurrentLogAnnotations))} ${
            String(options.cause)
          }`
        )
      })
      const upstream = yield* everythingHttp("streamableHttp")
      const proxy = yield* recordingProxy(`http://127.0.0.1:${upstream.port}`)
      const errors: Array<string> = []
      const diagnostics = yield* Effect.gen(function*() {
        const toolset = yield* McpToolset.make([
          { name: "docs", type: "streamable-http", url: `${proxy.origin}/mcp` },
          { name: "elsewhere", type: "streamable-http", url: "http://169.254.169.254/mcp" }
        ], { session: "s", allowedHosts: ["127.0.0.1"], auth: () => ({ token: secret }) })
        yield* toolset.call("docs__echo", { message: "hello" })
        for (
          const [name, args] of [["docs__echo", { message: 1 }], ["docs__nope", {}], ["docs__gzip-file-as-resource", {
            data: "ftp://example.com/x"
          }]] as const
        ) {
          errors.push((yield* Effect.flip(toolset.call(name, args))).message)
        }
        return yield* toolset.diagnostics
      }).pipe(
        Effect.scoped,
        Effect.provide(Logger.layer([capture])),
        Effect.provideService(References.MinimumLogLevel, "All")
      )
      assert.isTrue(proxy.requests.some((r) => bearerOf(r) === `Bearer ${secret}`), "the credential was in use")
      assert.isNotEmpty(logged)
      assert.isNotEmpty(diagnostics)
      for (const text of [...logged, ...errors, JSON.stringify(diagnostics)]) assert.notInclude(text, secret)
    }), { timeout: 60_000 })
})
