// A server's questions reach the toolset's handlers, in either revision: our own server asks for a
// form (with defaults), a completion and the roots inside one call; in 2026 the call comes back
// input_required and is sent again with the answers, in 2025 the server sends the questions as
// requests. Handlers may answer with an Effect, a Promise or a plain value; a form's missing fields
// take their schema's defaults; a handler that fails, or answers the wrong shape, fails the call
// with a protocol error saying so.
import { assert, describe, it } from "@effect/vitest"
import { Effect, References, Schema } from "effect"
import { Ask, Tools } from "effect-surface"
import { McpCallResult, McpToolset } from "effect-surface/client"
import { McpHttp } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"

const Form = Schema.Struct({
  name: Schema.String,
  color: Schema.Literals(["red", "blue"]).annotate({ default: "blue" })
})

/** Our own server, with a tool that asks all three kinds of question and says what it heard. */
const server = Effect.gen(function*() {
  const options = yield* serverOptions
  return yield* McpHttp.serve({
    ...options,
    tools: {
      ...options.tools,
      survey: Tools.make({
        description: "Asks a form, a completion and the roots.",
        mutates: false,
        handler: () =>
          Effect.gen(function*() {
            const form = yield* Ask.elicit("Who are you?", Form)
            const sampled = yield* Ask.sample({
              messages: [{ role: "user", content: { type: "text", text: "say hi" } }],
              maxTokens: 10
            })
            const roots = yield* Ask.roots()
            const said = sampled.content.type === "text" ? sampled.content.text : "?"
            const who = form._tag === "Accept" ? `${form.content.name}/${form.content.color}` : form._tag
            return `${who} ${said} ${roots.map((root) => root.uri).join(",")}`
          }),
        render: (text) => Tools.content([Tools.text(text)])
      })
    },
    http: { port: 0 }
  }).pipe(Effect.provideService(References.MinimumLogLevel, "Warn"))
})

describe("a server's questions", () => {
  for (const protocol of ["2026-07-28", "2025-11-25"] as const) {
    it.live(`${protocol}: a form (its default applied), a completion and the roots reach the Effect, Promise and plain handlers`, () =>
      Effect.gen(function*() {
        const served = yield* server
        const asked: Array<string> = []
        const toolset = yield* McpToolset.make(
          [{ name: "board", type: "streamable-http", url: served.url, protocol }],
          {
            allowedHosts: ["127.0.0.1"],
            elicit: (form) =>
              Effect.sync(() => {
                asked.push(`${form.server}: ${form.message}`)
                return { action: "accept", content: { name: "Ada" } }
              }),
            sample: async ({ params }) => ({
              role: "assistant",
              model: "test",
              content: { type: "text", text: `hi(${(params["maxTokens"] as number) ?? 0})` }
            }),
            roots: () => [{ uri: "file:///srv/project" }]
          }
        )
        const answer = yield* toolset.call("board__survey", {})
        assert.strictEqual(McpCallResult.textOf(answer), "Ada/blue hi(10) file:///srv/project")
        assert.deepStrictEqual(asked, ["board: Who are you?"])
      }))
  }

  it.live("a handler that fails, or answers the wrong shape, fails the call with a protocol error naming the handler", () =>
    Effect.gen(function*() {
      const served = yield* server
      const failing = yield* McpToolset.make([{ name: "board", type: "streamable-http", url: served.url }], {
        allowedHosts: ["127.0.0.1"],
        elicit: () => Effect.fail("the person closed the window"),
        sample: () => ({ role: "assistant", model: "m", content: { type: "text", text: "x" } }),
        roots: []
      })
      const refused = yield* Effect.flip(failing.call("board__survey", {}))
      assert.strictEqual(refused._tag, "McpProtocolError")
      assert.include(refused.message, "the elicit handler failed")
      const malformed = yield* McpToolset.make([{ name: "board", type: "streamable-http", url: served.url }], {
        allowedHosts: ["127.0.0.1"],
        elicit: () => ({ action: "maybe" }) as never,
        sample: () => ({ role: "assistant", model: "m", content: { type: "text", text: "x" } }),
        roots: []
      })
      const wrong = yield* Effect.flip(malformed.call("board__survey", {}))
      assert.include(wrong.message, "the elicit handler answered a wrong shape")
    }))
})
