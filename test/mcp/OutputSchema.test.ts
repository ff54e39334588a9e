// Every tool made from a procedure declares its output's JSON Schema, in both revisions, and every
// structured answer it gives — a success or a declared refusal — conforms to it: checked by the
// clients' own validation (the 1.x SDK client checks refusals too) and by a JSON Schema validator.
import { Client as ClientV2 } from "@modelcontextprotocol/client"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { assert, describe, it } from "@effect/vitest"
import { Ajv2020 } from "ajv/dist/2020.js"
import { Effect, References } from "effect"
import { McpHttp } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import { overHttp } from "./modern.ts"

const PROCEDURES = ["tasks_add", "tasks_complete", "tasks_open", "board_focus", "stopwatch_watch_lap"]
const BESPOKE = ["board_progress", "tasks_require", "stopwatch_wait"]

interface Listed {
  readonly name: string
  readonly outputSchema?: { readonly [key: string]: unknown } | undefined
}
interface Answer {
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly structuredContent?: { readonly [key: string]: unknown } | undefined
  readonly isError?: boolean | undefined
}
type Call = (name: string, args: Record<string, unknown>) => Promise<Answer>

const served = Effect.flatMap(
  serverOptions,
  (options) =>
    McpHttp.serve({ ...options, http: { port: 0 } }).pipe(Effect.provideService(References.MinimumLogLevel, "Warn"))
)

// Both revisions are held to the same rules: the list, then calls whose every structured answer is
// checked against what the list declared, and carried as its JSON text too.
const holdsToItsSchemas = (tools: ReadonlyArray<Listed>, call: Call) =>
  Effect.promise(async () => {
    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    for (const name of PROCEDURES) {
      const schema = byName.get(name)?.outputSchema
      assert.isDefined(schema, `${name} declares an outputSchema`)
      assert.strictEqual(schema?.["type"], "object", name)
    }
    for (const name of BESPOKE) assert.isUndefined(byName.get(name)?.outputSchema, name)
    const ajv = new Ajv2020({ strict: false })
    const check = async (name: string, args: Record<string, unknown>, expectError = false) => {
      const answer = await call(name, args)
      assert.strictEqual(answer.isError === true, expectError, `${name} ${JSON.stringify(answer)}`)
      assert.isDefined(answer.structuredContent, name)
      const validate = ajv.compile(byName.get(name)?.outputSchema ?? {})
      assert.isTrue(validate(answer.structuredContent), `${name}: ${JSON.stringify(validate.errors)}`)
      return answer
    }
    const added = await check("tasks_add", { title: "write docs" })
    assert.deepStrictEqual(added.content.map((block) => block.text), [JSON.stringify(added.structuredContent)])
    const id = String(added.structuredContent?.["id"])
    const open = await check("tasks_open", {})
    assert.deepStrictEqual(open.content, [{ type: "text", text: JSON.stringify({ value: [id] }) }])
    await check("tasks_complete", { value: id })
    const again = await check("tasks_complete", { value: id }, true)
    assert.strictEqual(again.structuredContent?.["_tag"], "AlreadyDone")
    const missing = await check("tasks_complete", { value: "t404" }, true)
    assert.deepStrictEqual(missing.structuredContent, { _tag: "TaskNotFound", id: "t404" })
    const focused = await check("board_focus", { value: "docs" })
    assert.deepStrictEqual(focused.structuredContent, { value: null })
    await check("stopwatch_watch_lap", {})
  })

describe("output schemas", () => {
  it.live("on 2025-11-25 each procedure's outputSchema holds every structured answer, refusals included", () =>
    Effect.gen(function*() {
      const { url } = yield* served
      const client = yield* Effect.acquireRelease(
        Effect.promise(async () => {
          const client = new Client({ name: "outputs", version: "1.0.0" })
          await client.connect(new StreamableHTTPClientTransport(new URL(url)))
          return client
        }),
        (client) => Effect.promise(() => client.close())
      )
      // listTools also arms the SDK client's own output validation, which checks refusals too.
      const { tools } = yield* Effect.promise(() => client.listTools())
      yield* holdsToItsSchemas(tools, (name, args) => client.callTool({ name, arguments: args }) as Promise<Answer>)
    }))

  it.live("on 2026-07-28 each procedure's outputSchema holds every structured answer, refusals included", () =>
    Effect.gen(function*() {
      const { url } = yield* served
      const client: ClientV2 = yield* overHttp(url, "pin")
      const { tools } = yield* Effect.promise(() => client.listTools())
      yield* holdsToItsSchemas(tools, (name, args) => client.callTool({ name, arguments: args }) as Promise<Answer>)
    }))
})
