// The serveTools and Guard examples of docs/serve-tools.md and docs/guard.md: each block is the example file, and each file runs,
// driven by an SDK client over stdio.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { GuardFile, Guard } from "effect-surface/guard"
import { root } from "../bin.ts"
import { blockAfter, page } from "../readmeBlocks.ts"
import { fixture } from "./guardFixture.ts"

const example = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8")

const overStdio = (args: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "readme", version: "1.0.0" })
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: ["--conditions=effect-surface-source", ...args],
          cwd: root,
          stderr: "ignore"
        })
      )
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<CallToolResult>)

describe("docs: serveTools and Guard", () => {
  it("shows exactly the examples the type check compiles and the tests below run", () => {
    assert.strictEqual(
      blockAfter(
        page("serve-tools"),
        "objects with a JSON Schema — as an MCP server, on the MCP face and the core (`examples/serve/tools.ts`):"
      ),
      example("examples/serve/tools.ts")
    )
    assert.strictEqual(
      blockAfter(page("guard"), "- **From Effect code** the guard is a layer (`examples/serve/guard.ts`):"),
      example("examples/serve/guard.ts")
    )
  })

  it.live(
    "examples/serve/tools.ts serves its tools: declarations in _meta, a wrong id named, the cap wrapped around refund enforced, a string answer shown as text",
    () =>
      Effect.gen(function*() {
        const client = yield* overStdio(["examples/serve/tools.ts"])
        const { tools } = yield* Effect.promise(() => client.listTools())
        assert.deepStrictEqual(tools.map((tool) => [tool.name, tool._meta]), [
          ["lookup_order", { "effect-surface/declarations": { owner: "support" } }],
          ["refund", undefined]
        ])
        assert.deepStrictEqual((yield* call(client, "lookup_order", { id: "o7" })).structuredContent, {
          id: "o7",
          status: "shipped"
        })
        assert.include(JSON.stringify((yield* call(client, "lookup_order", { id: "7" })).content), "id")
        assert.deepStrictEqual((yield* call(client, "refund", { id: "o7", cents: 9_000 })).content, [
          { type: "text", text: "effect-surface: a refund over $50 needs a person" }
        ])
        // A string answer is prose: one text block as written, with no structured arm to repeat it.
        const refunded = yield* call(client, "refund", { id: "o7", cents: 500 })
        assert.deepStrictEqual(refunded.content, [{ type: "text", text: "refunded 500 cents on o7" }])
        assert.isUndefined(refunded.structuredContent)
      }),
    30_000
  )

  it.live("examples/serve/guard.ts serves a guard file's granted tools over stdio", () =>
    Effect.gen(function*() {
      const f = yield* fixture()
      yield* Effect.flatMap(GuardFile.read(f.guardFile), (file) => Guard.lock(file))
      const client = yield* overStdio(["examples/serve/guard.ts", f.guardFile])
      const { tools } = yield* Effect.promise(() => client.listTools())
      assert.deepStrictEqual(tools.map((tool) => tool.name), ["echo", "get-structured-content", "get-sum"])
      assert.deepStrictEqual((yield* call(client, "echo", { message: "from the README" })).content, [{
        type: "text",
        text: "Echo: from the README"
      }])
    }), 60_000)
})
