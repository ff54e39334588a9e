// Two instances of one face sharing their sessions in a real Redis, each with its own console: a call
// held by one instance is shown on the other's page, and a click there decides it.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Fiber } from "effect"
import { McpConsole, McpHttp } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import { open } from "./browser.ts"
import * as RedisServer from "./redisServer.ts"

const instances = Effect.gen(function*() {
  const redis = yield* RedisServer.start
  const options = yield* serverOptions
  const prefix = `test:${crypto.randomUUID()}:`
  const instance = Effect.gen(function*() {
    const shared = yield* RedisServer.sharedSessions(redis.url, prefix, yield* Effect.scope)
    const console = yield* McpConsole.make({ hold: ["tasks_complete"], showArguments: true })
    return yield* McpHttp.serve({ ...options, http: { port: 0 } }).pipe(
      Effect.provideContext(shared),
      Effect.provideService(McpConsole.Console, console)
    )
  })
  return { a: yield* instance, b: yield* instance }
})

describe("the console on instances sharing Redis", () => {
  it.live(
    "a call held by one instance is shown on another's page and a click there decides it",
    () =>
      Effect.gen(function*() {
        const { a, b } = yield* instances
        const page = yield* open(b.console ?? "")
        yield* Effect.promise(() => page.locator("#live.on").waitFor())
        const client = new Client({ name: "shared-console", version: "1.0.0" })
        yield* Effect.acquireRelease(
          Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(a.url)))),
          () => Effect.promise(() => client.close())
        )
        const call = (name: string, args: Record<string, unknown>) =>
          Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<CallToolResult>)
        const { id } = (yield* call("tasks_add", { title: "held on a" })).structuredContent as { readonly id: string }
        const completing = yield* Effect.forkChild(call("tasks_complete", { value: id }))
        const held = page.locator("[data-held]", { hasText: "tasks_complete" })
        yield* Effect.promise(() => held.waitFor({ timeout: 10_000 }))
        assert.include(yield* Effect.promise(() => held.innerText()), id)
        yield* Effect.promise(() => held.getByRole("button", { name: "Approve" }).click())
        const done = yield* Fiber.join(completing)
        assert.isNotTrue(done.isError, JSON.stringify(done.content))
        // Both pages' calls end the same: a's row, shown on b, approved there and answered.
        const row = page.locator("[data-call]", { hasText: "tasks_complete" })
        yield* Effect.promise(() => row.locator("td.ok").waitFor({ timeout: 10_000 }))
        assert.include(yield* Effect.promise(() => row.innerText()), "approved by operator at 127.0.0.1")
      }),
    60_000
  )
})
