// `npm start` serves the example board with its console: the page's URL is printed beside the MCP
// URL, and an agent's `tasks_complete` (which cannot be undone) waits on that page until a person
// approves it in the browser.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Fiber } from "effect"
import { readFileSync } from "node:fs"
import { blockAfter, page } from "../readmeBlocks.ts"
import { open } from "./browser.ts"
import { spawnExample } from "./exampleProcess.ts"

describe("the example's console", () => {
  it("docs/console.md shows exactly the console example this test runs", () => {
    assert.strictEqual(
      blockAfter(page("console"), "It is off unless its layer is provided (`examples/serve/console.ts`):"),
      readFileSync(new URL("../../examples/serve/console.ts", import.meta.url), "utf8")
    )
  })

  it.live(
    "the README's console example holds counter_add until a decision is posted from its page",
    () =>
      Effect.gen(function*() {
        const { printed } = yield* spawnExample("examples/serve/console.ts")
        const mcp = yield* printed(/MCP over HTTP at (\S+)/)
        const link = new URL(yield* printed(/Console at (\S+)/))
        const console = new URL(link.pathname, link)
        // The printed link's key, as the page sends it with its stream and each decision.
        const key = { "x-console-key": new URLSearchParams(link.hash.slice(1)).get("key") ?? "" }
        const client = new Client({ name: "readme-agent", version: "1.0.0" })
        yield* Effect.acquireRelease(
          Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(mcp)))),
          () => Effect.promise(() => client.close())
        )
        const adding = yield* Effect.forkChild(
          Effect.promise(() =>
            client.callTool({ name: "counter_add", arguments: { value: 2 } }) as Promise<CallToolResult>
          )
        )
        // The page's token, title and the held call's id, read from the page's own event stream (the
        // id in its snapshot, or as a move).
        const events = yield* Effect.promise(() => fetch(`${console.href}/events`, { headers: key }))
        const reader = events.body?.getReader()
        let seen = ""
        while (!/"held":\[?\{"id":"([^"]+)"/.test(seen)) {
          const chunk = yield* Effect.promise(() => reader?.read() ?? Promise.resolve({ done: true, value: undefined }))
          if (chunk.done) break
          seen += new TextDecoder().decode(chunk.value)
        }
        yield* Effect.promise(() => reader?.cancel() ?? Promise.resolve())
        const id = /"held":\[?\{"id":"([^"]+)"/.exec(seen)?.[1] ?? ""
        const token = /"token":"([^"]+)"/.exec(seen)?.[1] ?? ""
        assert.include(seen, `"title":"counter"`)
        assert.isUndefined(adding.pollUnsafe())
        const decided = yield* Effect.promise(() =>
          fetch(`${console.href}/decide`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-console-token": token, origin: console.origin, ...key },
            body: JSON.stringify({ id, decision: "allow" })
          })
        )
        assert.strictEqual(decided.status, 200)
        const added = yield* Fiber.join(adding)
        assert.isNotTrue(added.isError, JSON.stringify(added.content))
        assert.deepStrictEqual(added.structuredContent, { value: 2 })
      }),
    60_000
  )

  it.live(
    "npm start prints the console's URL beside the MCP URL, and an agent's tasks_complete waits there for a click",
    () =>
      Effect.gen(function*() {
        const { printed } = yield* spawnExample("examples/main.ts")
        const mcp = yield* printed(/Task board MCP server at (\S+)/)
        const console = yield* printed(/Operator console at (\S+)/)
        assert.match(console, /\/console#key=[\w-]{32,}$/)
        assert.strictEqual(console.slice(0, console.indexOf("#")), mcp.replace(/\/mcp$/, "/console"))

        const page = yield* open(console)
        yield* Effect.promise(() => page.locator("#live.on").waitFor())
        const client = new Client({ name: "example-agent", version: "1.0.0" })
        yield* Effect.acquireRelease(
          Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(mcp)))),
          () => Effect.promise(() => client.close())
        )
        const call = (name: string, args: Record<string, unknown>) =>
          Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<CallToolResult>)
        const added = yield* call("tasks_add", { title: "ship the console" })
        const id = (added.structuredContent as { readonly id: string }).id
        const completing = yield* Effect.forkChild(call("tasks_complete", { value: id }))
        const held = page.locator("[data-held]", { hasText: "tasks_complete" })
        yield* Effect.promise(() => held.waitFor({ timeout: 10_000 }))
        assert.isUndefined(completing.pollUnsafe())
        yield* Effect.promise(() => held.getByRole("button", { name: "Approve" }).click())
        const done = yield* Fiber.join(completing)
        assert.isNotTrue(done.isError, JSON.stringify(done.content))
        assert.include(JSON.stringify(done.structuredContent), "\"done\":true")
      }),
    90_000
  )
})
