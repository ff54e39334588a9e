// A 2025-11-25 server's questions while several of the toolset's calls are in flight on one
// session: each question arrives as a request of its own, and is answered in the context of the
// call that caused it (over Streamable HTTP, the call on whose response stream it came), however
// the calls interleave — not in that of whichever call was made last. Over one stream for
// everything, it is the call still in flight.
import { assert, describe, it } from "@effect/vitest"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Context, Deferred, Effect, Fiber, Queue, References, Schema } from "effect"
import { Ask, Surface, Tools } from "effect-surface"
import { McpCallResult, McpToolset } from "effect-surface/client"
import type { McpConfig } from "effect-surface/client"
import { McpHttp } from "effect-surface/mcp"

/** Who a call is made for: what the toolset's caller provides around each call. */
const Who = Context.Reference<string>("test/QuestionsInFlight/Who", { defaultValue: () => "nobody" })

/** Our own server over HTTP: `ask` waits until told, then asks whether the call is for `who`. */
const askingServer = Effect.gen(function*() {
  const go = yield* Deferred.make<void>()
  const started = yield* Queue.unbounded<string>()
  const served = yield* McpHttp.serve({
    core: { surface: Surface.make({}), expose: {} },
    client: Effect.succeed({ clients: {} }),
    tools: {
      ask: Tools.make({
        description: "Waits until told, then asks whether the call is for who it says.",
        input: Schema.Struct({ who: Schema.String }),
        mutates: false,
        handler: ({ who }) =>
          Queue.offer(started, who).pipe(
            Effect.andThen(Deferred.await(go)),
            Effect.andThen(Ask.elicit(`for ${who}?`, Schema.Struct({ answeredFor: Schema.String }))),
            Effect.map((answer) =>
              answer._tag === "Accept" ? `${who}: answered for ${answer.content.answeredFor}` : who
            )
          ),
        render: (text) => Tools.content([Tools.text(text)])
      })
    },
    http: { port: 0 }
  }).pipe(Effect.provideService(References.MinimumLogLevel, "Warn"))
  return { url: served.url, go, started }
})

describe("a 2025 server's questions with several calls in flight", () => {
  it.live("each question is answered in the context of the call that asked it, the earliest call's too", () =>
    Effect.gen(function*() {
      const { go, started, url } = yield* askingServer
      const toolset = yield* McpToolset.make(
        [{ name: "s", type: "streamable-http", url, protocol: "2025-11-25" }],
        {
          allowedHosts: ["127.0.0.1"],
          elicit: () => Effect.map(Effect.service(Who), (who) => ({ action: "accept", content: { answeredFor: who } }))
        }
      )
      const people = ["ada", "grace", "edsger"]
      // Each call starts once the one before it is running, so the last made is edsger's.
      const calls: Array<Fiber.Fiber<McpCallResult.Result, unknown>> = []
      for (const who of people) {
        calls.push(yield* Effect.forkChild(toolset.call("s__ask", { who }).pipe(Effect.provideService(Who, who))))
        assert.strictEqual(yield* Queue.take(started), who)
      }
      yield* Deferred.succeed(go, undefined)
      const results = yield* Fiber.joinAll(calls)
      assert.deepStrictEqual(
        results.map(McpCallResult.textOf),
        people.map((who) => `${who}: answered for ${who}`)
      )
    }))
})

/**
 * A 2025 server on one in-memory channel (as stdio is): `slow` asks once `release` is called,
 * `quick` answers at once. `asked` settles when `slow` has started.
 */
const oneChannel = () => {
  let release = () => {}
  let started = () => {}
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  const asked = new Promise<void>((resolve) => {
    started = resolve
  })
  const entry: McpConfig.Custom = {
    name: "s",
    type: "transport",
    protocol: "2025-11-25",
    open: () => {
      const [client, server] = InMemoryTransport.createLinkedPair()
      const sdk = new Server({ name: "s", version: "1.0.0" }, { capabilities: { tools: {} } })
      sdk.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: [{ name: "slow", inputSchema: { type: "object" } }, { name: "quick", inputSchema: { type: "object" } }]
      }))
      sdk.setRequestHandler(CallToolRequestSchema, async (request) => {
        if (request.params.name === "quick") return { content: [{ type: "text", text: "quick" }] }
        started()
        await gate
        const answer = await sdk.elicitInput({
          mode: "form",
          message: "for whom?",
          requestedSchema: { type: "object", properties: { answeredFor: { type: "string" } } }
        })
        return { content: [{ type: "text", text: `answered for ${String(answer.content?.["answeredFor"])}` }] }
      })
      void sdk.connect(server)
      return client
    }
  }
  return { entry, release: () => release(), asked }
}

describe("a 2025 server's question over one channel for everything", () => {
  it.live("is answered in the context of the call still in flight, not of a later call that has ended", () =>
    Effect.gen(function*() {
      const server = oneChannel()
      const toolset = yield* McpToolset.make([server.entry], {
        elicit: () => Effect.map(Effect.service(Who), (who) => ({ action: "accept", content: { answeredFor: who } }))
      })
      const slow = yield* Effect.forkChild(toolset.call("s__slow", {}).pipe(Effect.provideService(Who, "ada")))
      yield* Effect.promise(() => server.asked)
      const quick = yield* toolset.call("s__quick", {}).pipe(Effect.provideService(Who, "grace"))
      assert.strictEqual(McpCallResult.textOf(quick), "quick")
      server.release()
      assert.strictEqual(McpCallResult.textOf(yield* Fiber.join(slow)), "answered for ada")
    }))
})
