// Input nested or spread past what any host sends, over HTTP in both eras: a body nested thousands
// deep is refused with a JSON-RPC error naming the depth before anything reads it (the SDK's schemas,
// Effect's parser, the state's hash and every message that names a value go a stack level per
// level); a refusal names what it got in a bounded preview, never the whole value; a defect while
// serving is logged and answered with a JSON-RPC error, never an empty 500; and the server serves
// the next request.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Logger, Schema } from "effect"
import { SchemaBridge } from "effect-surface"
import { McpHttp } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import { rawSession } from "./httpRaw.ts"
import { contentOf, envelope, greet, overHttp } from "./modern.ts"

// Nested JSON written as text: `JSON.stringify` itself overflows on a value this deep.
const deepObject = (levels: number) => `${"{\"a\":".repeat(levels)}1${"}".repeat(levels)}`
const deepArray = (levels: number) => `${"[".repeat(levels)}1${"]".repeat(levels)}`

interface Answered {
  readonly status: number
  readonly text: string
  readonly error: { readonly code: number; readonly message: string } | undefined
  readonly result: Record<string, unknown> | undefined
}

const post = (url: string, headers: Record<string, string>, body: string) =>
  Effect.promise(async (): Promise<Answered> => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body
    })
    const text = await response.text()
    const data = text.split("\n").find((line) => line.startsWith("data: "))
    const parsed = text === "" ? undefined : JSON.parse(data === undefined ? text : data.slice(6))
    return { status: response.status, text, error: parsed?.error, result: parsed?.result }
  })

// A 2026 `tools/call` whose params are written as text, so a part of them can nest past any stringify.
const modernCall = (url: string, name: string, params: string, capabilities: Record<string, unknown> = {}) =>
  post(
    url,
    { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": name },
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${JSON.stringify(name)},${params},"_meta":${
      JSON.stringify(envelope(capabilities))
    }}}`
  )

const serve = Effect.gen(function*() {
  const options = yield* serverOptions
  return yield* McpHttp.serve({ ...options, tools: { ...options.tools, greet }, http: { port: 0 } })
})

const namesDepth = (answered: Answered) => {
  assert.strictEqual(answered.status, 400, answered.text)
  assert.strictEqual(answered.error?.code, -32600, answered.text)
  assert.include(answered.error?.message, "nests arrays and objects deeper than 256 levels")
}

describe("input nested or spread past any host's", () => {
  it.live("a 2026 call whose arguments or inputResponses nest 10,000 deep is refused with a JSON-RPC error naming the depth, and the next call is served", () =>
    Effect.gen(function*() {
      const served = yield* serve
      const elicits = { elicitation: { form: {} } }
      namesDepth(yield* modernCall(served.url, "board_focus", `"arguments":${deepArray(10_000)}`))
      namesDepth(yield* modernCall(served.url, "board_focus", `"arguments":{"value":${deepObject(10_000)}}`))
      namesDepth(
        yield* modernCall(served.url, "greet", `"arguments":{},"inputResponses":{"x":${deepArray(10_000)}}`, elicits)
      )
      namesDepth(
        yield* modernCall(
          served.url,
          "greet",
          `"arguments":{},"inputResponses":{"elicit-1":{"action":"accept","content":${deepObject(10_000)}}}`,
          elicits
        )
      )
      const client = yield* overHttp(served.url, "pin")
      const focused = yield* Effect.promise(() => client.callTool({ name: "board_focus", arguments: { value: "on" } }))
      assert.isUndefined((focused as { readonly isError?: boolean }).isError)
      assert.isDefined(contentOf(focused))
    }).pipe(Effect.scoped))

  it.live("a 2025 call whose arguments nest 10,000 deep, and an answer nested as deep, are refused with a JSON-RPC error naming the depth, and the session goes on", () =>
    Effect.gen(function*() {
      const served = yield* serve
      const session = yield* rawSession(served.url)
      const headers = { "mcp-protocol-version": "2025-11-25", "mcp-session-id": session }
      const call = (args: string) =>
        post(
          served.url,
          headers,
          `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"board_focus","arguments":${args}}}`
        )
      namesDepth(yield* call(`{"value":${deepObject(10_000)}}`))
      namesDepth(yield* post(served.url, headers, `{"jsonrpc":"2.0","id":9,"result":${deepObject(10_000)}}`))
      const after = yield* call(`{"value":"still here"}`)
      assert.strictEqual(after.status, 200, after.text)
      assert.isUndefined(after.error, after.text)
      assert.notStrictEqual(after.result?.["isError"], true, after.text)
    }).pipe(Effect.scoped))

  it.live("a 2026 refusal of arguments or an answer that is not an object names what it got in a short preview, never the whole value", () =>
    Effect.gen(function*() {
      const served = yield* serve
      const wide = JSON.stringify(Array.from({ length: 200_000 }, (_, i) => i))
      const refusals = [
        yield* modernCall(served.url, "board_focus", `"arguments":${wide}`),
        yield* modernCall(served.url, "greet", `"arguments":{},"inputResponses":{"x":${wide}}`, {
          elicitation: { form: {} }
        }),
        yield* modernCall(served.url, "board_focus", `"arguments":${deepArray(200)}`)
      ]
      for (const refused of refusals) {
        assert.strictEqual(refused.error?.code, -32602, refused.text)
        assert.match(refused.error?.message ?? "", /must be an? (answer )?object.*, got \[/)
        assert.isBelow(refused.error?.message.length ?? Infinity, 400, refused.error?.message)
      }
    }).pipe(Effect.scoped))

  it.live("a defect while serving a request is logged and answered with a JSON-RPC error, never an empty 500", () =>
    Effect.gen(function*() {
      const logs: Array<string> = []
      const keep = Logger.make((options) => {
        logs.push(`${String(options.message)} ${String(options.cause)}`)
      })
      const options = yield* serverOptions
      const served = yield* McpHttp.serve({
        ...options,
        instructions: Effect.die(new Error("the instructions could not be written")),
        http: { port: 0 }
      }).pipe(Effect.provide(Logger.layer([keep], { mergeWithExisting: false })))
      const discovered = yield* post(
        served.url,
        { "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover" },
        JSON.stringify({ jsonrpc: "2.0", id: 3, method: "server/discover", params: { _meta: envelope() } })
      )
      assert.strictEqual(discovered.status, 500)
      assert.strictEqual(discovered.error?.code, -32603, discovered.text)
      assert.include(discovered.error?.message, "Internal error")
      assert.isTrue(logs.some((line) => line.includes("the instructions could not be written")), logs.join("\n"))
    }).pipe(Effect.scoped))
})

// A value as deep as `levels`, arrays and objects in turn, under a key as long as `keyLength`.
const nested = (leaf: unknown, levels: number, key: string): unknown => {
  let value = leaf
  for (let level = 0; level < levels; level++) value = level % 2 === 0 ? [value] : { [key]: value }
  return value
}

describe("a preview of a refused value", () => {
  it.prop(
    "never throws and never runs past twice its room, however deep, wide or long-keyed the value",
    {
      leaf: Schema.Json,
      levels: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 20_000 })),
      keyLength: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 5_000 })),
      room: Schema.Int.check(Schema.isBetween({ minimum: -10, maximum: 5_000 }))
    },
    ({ keyLength, leaf, levels, room }) => {
      const shown = SchemaBridge.preview(nested(leaf, levels, "k".repeat(keyLength)), room)
      assert.isAtMost(shown.length, 2 * Math.max(8, Math.min(room, 1024)) + 8, shown)
    },
    { arbitrary: { runs: 200 } }
  )

  it("names a value whose reading throws instead of throwing itself", () => {
    const hostile = {
      get field(): never {
        throw new Error("no")
      }
    }
    assert.strictEqual(SchemaBridge.preview(hostile), "an unreadable value")
    assert.strictEqual(
      SchemaBridge.preview(
        new Proxy({}, {
          ownKeys: () => {
            throw new Error("no")
          }
        })
      ),
      "an unreadable value"
    )
  })
})
