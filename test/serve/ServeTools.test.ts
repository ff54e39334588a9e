// serveTools driven by the official SDK client: over stdio from a real child process, over real
// loopback HTTP, and through the Effect forms.
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Layer } from "effect"
import * as Net from "node:net"
import { fileURLToPath } from "node:url"
import { McpHttp, McpServer } from "effect-surface/mcp"
import { type ServeTools as ServeToolsTypes, ServeTools, serveTools } from "effect-surface/serve"
import { echo, makeQuote, quoteSchema } from "./shop.ts"

const root = fileURLToPath(new URL("../../", import.meta.url))
const http = { transport: "http", port: 0, host: "127.0.0.1" } as const

const connected = (connect: (client: Client) => Promise<void>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "serve-tools-test", version: "1.0.0" })
      await connect(client)
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

const overHttp = (url: string) => connected((client) => client.connect(new StreamableHTTPClientTransport(new URL(url))))

const served = (
  tools: ReadonlyArray<ToolLike>,
  options: Omit<Parameters<typeof serveTools>[1] & object, "transport"> = {}
) =>
  Effect.acquireRelease(
    Effect.promise(() => serveTools(tools, { ...options, transport: http })),
    (handle) => Effect.promise(() => handle.close())
  )

type ToolLike = ServeToolsTypes.PlainTool

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<CallToolResult>)

const textOf = (result: CallToolResult): string => {
  const first = result.content[0]
  return first !== undefined && first.type === "text" ? first.text : ""
}

/** Whether anything accepts a TCP connection on the port. */
const listening = (port: number) =>
  Effect.callback<boolean>((resume) => {
    const socket = Net.connect({ host: "127.0.0.1", port })
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.succeed(true))
    })
    socket.once("error", () => resume(Effect.succeed(false)))
  })

/** Why a promise rejected (it must). */
const rejection = (promise: () => Promise<unknown>) =>
  Effect.promise(() =>
    promise().then(
      () => assert.fail("expected a refusal"),
      (error: unknown) => error as { _tag: string; message: string }
    )
  )

describe("serveTools", () => {
  it.live(
    "over stdio from a child process: schemas verbatim, declarations under one _meta key and none without, the governance wrapped around a tool runs, and a throwing execute is logged on stderr under the id the host is told",
    () =>
      Effect.gen(function*() {
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: ["--conditions=effect-surface-source", "test/serve/stdio-tools.ts"],
          cwd: root,
          stderr: "pipe"
        })
        let stderr = ""
        transport.stderr?.on("data", (chunk: Buffer) => {
          stderr += chunk.toString("utf8")
        })
        const client = yield* connected((c) => c.connect(transport))
        const { tools } = yield* Effect.promise(() => client.listTools())
        assert.deepStrictEqual(tools.map((tool) => tool.name), ["quote", "echo"])
        const [quote, plain] = tools
        assert.deepStrictEqual(quote?.inputSchema, JSON.parse(JSON.stringify(quoteSchema)))
        assert.deepStrictEqual(quote?._meta, { [ServeTools.DECLARATIONS_KEY]: { owner: "shop", resultKind: "price" } })
        assert.isTrue(quote?.annotations?.readOnlyHint)
        assert.isFalse(plain !== undefined && Object.hasOwn(plain, "_meta"))

        const priced = yield* call(client, "quote", { item: "tea", qty: 2 })
        assert.deepStrictEqual(priced.structuredContent, { item: "tea", qty: 2, total: 6 })
        const refused = yield* call(client, "quote", { item: "cake", qty: 7 })
        assert.isTrue(refused.isError)
        assert.strictEqual(textOf(refused), "effect-surface: refused by policy: at most 5 per order")
        // Out of the schema's bounds: refused by the core's decoder, so the governance never saw it.
        const outOfBounds = yield* call(client, "quote", { item: "cake", qty: 11 })
        assert.isTrue(outOfBounds.isError)
        assert.include(textOf(outOfBounds), "qty")
        // A throw that is no refusal: the host reads an id, the server's stderr has the line with it.
        const failed = textOf(yield* call(client, "echo", { text: "fail" }))
        const id = /the server's log has it as ([0-9a-f]{6})$/.exec(failed)?.[1]
        assert.isDefined(id, failed)
        assert.notInclude(failed, "echo chamber")
        const logged = () => stderr.split("\n").findIndex((line) => line.includes(`(failure ${id})`))
        yield* Effect.promise(() =>
          new Promise<void>((resolve) => {
            const poll = setInterval(() => {
              if (logged() >= 0 && stderr.slice(stderr.indexOf(`(failure ${id})`)).includes("    at ")) {
                resolve(clearInterval(poll))
              }
            }, 20)
          })
        ).pipe(Effect.timeout("10 seconds"))
        assert.include(stderr.split("\n")[logged()], "the echo chamber is closed")
        yield* Effect.promise(() => client.close())
        yield* Effect.promise(() =>
          new Promise<void>((resolve) => {
            const poll = setInterval(() => {
              if (stderr.includes("shop closed")) resolve(clearInterval(poll))
            }, 20)
          })
        ).pipe(Effect.timeout("10 seconds"))
        const decisions = stderr.split("\n").filter((line) => line.startsWith("governance: "))
        assert.deepStrictEqual(decisions, ["governance: allowed quote", "governance: refused quote"])
      }),
    30_000
  )

  it.live("the object handed in is the one whose execute runs, looked up at each call", () =>
    Effect.gen(function*() {
      const tool: { -readonly [K in keyof ToolLike]: ToolLike[K] } = {
        name: "version",
        description: "Say which version answers.",
        inputSchema: { type: "object", properties: {} },
        execute: async () => "first"
      }
      const handle = yield* served([tool])
      const client = yield* overHttp(handle.url)
      assert.strictEqual(textOf(yield* call(client, "version", {})), "first")
      tool.execute = async () => "second"
      assert.strictEqual(textOf(yield* call(client, "version", {})), "second")
    }))

  it.live("arguments are checked by the core's decoder before execute, and a throwing execute is one framed sentence naming no internals", () =>
    Effect.gen(function*() {
      const { calls, tool } = makeQuote()
      const handle = yield* served([tool, echo])
      const client = yield* overHttp(handle.url)
      const wrong = yield* call(client, "quote", { item: "coffee", qty: 1 })
      assert.isTrue(wrong.isError)
      assert.include(textOf(wrong), "item")
      const extra = yield* call(client, "quote", { item: "tea", qty: 1, gift: true })
      assert.include(textOf(extra), "gift")
      assert.strictEqual(calls.count, 0)
      // A throw that is no refusal is a bug: the agent is told an id, never the thrown text.
      const failed = yield* call(client, "echo", { text: "fail" })
      assert.isTrue(failed.isError)
      assert.match(
        textOf(failed),
        /^effect-surface: tool "echo" failed unexpectedly; the server's log has it as [0-9a-f]{6}$/
      )
      assert.notInclude(JSON.stringify(failed), "echo chamber")
      assert.deepStrictEqual((yield* call(client, "quote", { item: "cake", qty: 3 })).structuredContent, {
        item: "cake",
        qty: 3,
        total: 15
      })
      assert.strictEqual(calls.count, 1)
    }))

  it.live("over HTTP it resolves once listening, with the bound port and URL, and close releases the port", () =>
    Effect.gen(function*() {
      const handle = yield* Effect.promise(() => serveTools([echo], { transport: http }))
      assert.isAbove(handle.port, 0)
      assert.strictEqual(handle.url, `http://127.0.0.1:${handle.port}/mcp`)
      assert.isTrue(yield* listening(handle.port))
      yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* overHttp(handle.url)
        assert.strictEqual(textOf(yield* call(client, "echo", { text: "hi" })), "hi")
      }))
      yield* Effect.promise(() => handle.close())
      yield* Effect.promise(() => handle.closed)
      assert.isFalse(yield* listening(handle.port))
    }))

  it.live("each refusal at construction is a typed error whose message names the tool", () =>
    Effect.gen(function*() {
      const noTools = yield* rejection(() => serveTools([], { transport: http }))
      assert.strictEqual(noTools._tag, "NoTools")
      const twice = yield* rejection(() => serveTools([echo, { ...echo }], { transport: http }))
      assert.strictEqual(twice._tag, "DuplicateTool")
      assert.include(twice.message, `"echo"`)
      const consent = yield* rejection(() =>
        serveTools([{ ...echo, name: "refund", checkIn: { ask: "ok?" } }], { transport: http })
      )
      assert.strictEqual(consent._tag, "CheckInUnsupported")
      assert.include(consent.message, `"refund"`)
      const needs = yield* rejection(() =>
        serveTools([{ ...echo, name: "charge", needs: ["card"] }], { transport: http })
      )
      assert.strictEqual(needs._tag, "CredentialsMissing")
      assert.include(needs.message, `"charge"`)
      const notATool = yield* rejection(() =>
        serveTools([{ ...echo, name: "odd", execute: "run" } as unknown as ToolLike], { transport: http })
      )
      assert.strictEqual(notATool._tag, "MalformedTool")
      assert.include(notATool.message, `"odd"`)
      const scalar = yield* rejection(() =>
        serveTools([{ ...echo, name: "scalar", inputSchema: { type: "string" } }], { transport: http })
      )
      assert.strictEqual(scalar._tag, "InvalidToolSchema")
      assert.include(scalar.message, `"scalar"`)
    }))

  it.live("a tool that declares needs is handed the provider's credential at each call", () =>
    Effect.gen(function*() {
      const asked: Array<unknown> = []
      const charge: ToolLike = {
        name: "charge",
        description: "Charge a card.",
        inputSchema: { type: "object", properties: { cents: { type: "integer" } } },
        needs: ["payments:write"],
        execute: async (args: { readonly cents: number }, ctx) => ({ cents: args.cents, with: ctx.credential })
      }
      const handle = yield* served([charge], {
        credentials: async (request) => {
          asked.push(request)
          return `token-${asked.length}`
        }
      })
      const client = yield* overHttp(handle.url)
      assert.deepStrictEqual((yield* call(client, "charge", { cents: 5 })).structuredContent, {
        cents: 5,
        with: "token-1"
      })
      assert.deepStrictEqual((yield* call(client, "charge", { cents: 6 })).structuredContent, {
        cents: 6,
        with: "token-2"
      })
      assert.deepStrictEqual(asked, [{ tool: "charge", needs: ["payments:write"] }, {
        tool: "charge",
        needs: ["payments:write"]
      }])
    }))

  it.live("a call the host cancels aborts the signal its execute was handed", () =>
    Effect.gen(function*() {
      let started = (): void => {}
      const running = new Promise<void>((resolve) => {
        started = resolve
      })
      const aborted = new Promise<string>((resolve) => {
        slow.execute = (_args, ctx) => {
          started()
          return new Promise((_, reject) => {
            ctx.signal.addEventListener("abort", () => {
              resolve(`aborted ${ctx.tool}`)
              reject(new Error("aborted"))
            })
          })
        }
      })
      const handle = yield* served([slow])
      const client = yield* overHttp(handle.url)
      const controller = new AbortController()
      const pending = client.callTool({ name: "slow", arguments: {} }, undefined, { signal: controller.signal }).catch(
        () => "cancelled"
      )
      yield* Effect.promise(() => running)
      controller.abort()
      assert.strictEqual(yield* Effect.promise(() => pending), "cancelled")
      assert.strictEqual(yield* Effect.promise(() => aborted).pipe(Effect.timeout("10 seconds")), "aborted slow")
    }))

  it.live("the Effect forms serve the same tools: layerHttp over Streamable HTTP, layer on any transport", () =>
    Effect.gen(function*() {
      const { tool } = makeQuote()
      const context = yield* Layer.build(ServeTools.layerHttp([tool], { port: 0, host: "127.0.0.1" }))
      const endpoint = yield* Effect.provideContext(Effect.service(McpHttp.Endpoint), context)
      const overHttpClient = yield* overHttp(endpoint.url)
      assert.deepStrictEqual((yield* call(overHttpClient, "quote", { item: "tea", qty: 1 })).structuredContent, {
        item: "tea",
        qty: 1,
        total: 3
      })

      const served = yield* Layer.build(ServeTools.layer([echo], { serverInfo: { name: "echoes", version: "2.0.0" } }))
      const server = yield* Effect.provideContext(Effect.service(McpServer), served)
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      yield* server.connect(serverSide)
      const inMemory = yield* connected((c) => c.connect(clientSide))
      assert.deepStrictEqual(inMemory.getServerVersion(), { name: "echoes", version: "2.0.0" })
      assert.strictEqual(textOf(yield* call(inMemory, "echo", { text: "in memory" })), "in memory")
    }))

  it.live("a string answer is one text block as written with no structured arm; any other answer is its JSON once, as text and structured alike", () =>
    Effect.gen(function*() {
      const answering = (name: string, answer: unknown): ToolLike => ({
        name,
        description: `Answer ${name}.`,
        inputSchema: { type: "object", properties: {} },
        execute: async () => answer
      })
      const built = yield* Layer.build(ServeTools.layer([
        answering("prose", "refunded 500 cents"),
        answering("record", { id: "o7", total: 6 }),
        answering("count", 3),
        answering("ids", ["o7", "o8"])
      ]))
      const server = yield* Effect.provideContext(Effect.service(McpServer), built)
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      yield* server.connect(serverSide)
      const client = yield* connected((c) => c.connect(clientSide))
      const prose = yield* call(client, "prose", {})
      assert.deepStrictEqual(prose.content, [{ type: "text", text: "refunded 500 cents" }])
      assert.isUndefined(prose.structuredContent)
      for (
        const [name, structured] of [
          ["record", { id: "o7", total: 6 }],
          ["count", { value: 3 }],
          ["ids", { value: ["o7", "o8"] }]
        ] as const
      ) {
        const answered = yield* call(client, name, {})
        assert.deepStrictEqual(answered.structuredContent, structured, name)
        assert.deepStrictEqual(answered.content, [{ type: "text", text: JSON.stringify(structured) }], name)
      }
    }))

  it.live("list and call agree for every name: `__proto__` and the rest of Object.prototype's names are tools like any other", () =>
    Effect.gen(function*() {
      // Every name an object inherits, the one a plain object takes as its prototype among them;
      // one is left unserved, so a call to it must be an unknown tool, not whatever the prototype holds.
      const unserved = "isPrototypeOf"
      const names = Object.getOwnPropertyNames(Object.prototype).filter((name) => name !== unserved)
      const tools = names.map((name): ToolLike => ({
        name,
        description: `The tool named ${name}.`,
        inputSchema: { type: "object", properties: {} },
        execute: async () => `ran ${name}`
      }))
      const built = yield* Layer.build(ServeTools.layer(tools))
      const server = yield* Effect.provideContext(Effect.service(McpServer), built)
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      yield* server.connect(serverSide)
      const client = yield* connected((c) => c.connect(clientSide))
      const listed = yield* Effect.promise(() => client.listTools())
      assert.deepStrictEqual(listed.tools.map((tool) => tool.name).sort(), [...names].sort())
      assert.include(names, "__proto__")
      for (const name of names) assert.strictEqual(textOf(yield* call(client, name, {})), `ran ${name}`)
      const unknown = yield* Effect.promise(() =>
        client.callTool({ name: unserved, arguments: {} }).then(() => "answered", (error: Error) => error.message)
      )
      assert.include(unknown, `unknown tool "isPrototypeOf"`)
    }))
})

const slow: { -readonly [K in keyof ToolLike]: ToolLike[K] } = {
  name: "slow",
  description: "Wait until cancelled.",
  inputSchema: { type: "object", properties: {} },
  execute: async () => "never"
}
