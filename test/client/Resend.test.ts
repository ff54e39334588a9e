// A request lost with its connection before any answer (a server closing the kept-alive socket it
// arrived on): one that only reads is sent once more and the toolset never sees the loss; a call is
// never sent twice, and its caller is told its outcome is unknown. In both revisions, through a proxy
// that closes the connection of the request it is told to.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { McpCallResult, McpToolset } from "effect-surface/client"
import * as Resend from "../../src/client/internal/resend.ts"
import { serveFace } from "./face.ts"
import { recordingProxy } from "./servers.ts"

const closedUnder = (code: string) =>
  new TypeError("fetch failed", { cause: Object.assign(new Error("closed"), { code }) })

const post = (body: unknown): RequestInit => ({ method: "POST", body: JSON.stringify(body) })

// The first request whose body names `method`, cut; every later one forwarded.
const cutFirst = (method: string) => {
  let cut = false
  return (request: { readonly body: string }) => {
    if (cut || !request.body.includes(`"method":"${method}"`)) return false
    cut = true
    return true
  }
}

// The board served, behind a proxy that cuts the first request for `method`, and a toolset on it.
const cutting = (method: string, protocol: "2026-07-28" | "2025-11-25") =>
  Effect.gen(function*() {
    const face = yield* serveFace
    const proxy = yield* recordingProxy(new URL(face.url).origin, { cut: cutFirst(method) })
    const toolset = yield* McpToolset.make(
      [{ name: "board", type: "streamable-http", url: `${proxy.origin}/mcp`, protocol }],
      { allowedHosts: ["127.0.0.1"] }
    )
    return { face, proxy, toolset }
  })

const READS = ["initialize", "server/discover", "tools/list", "resources/list", "resources/read", "prompts/get"]
const ACTS = ["tools/call", "resources/subscribe_", "notifications/cancelled", "sampling/createMessage", "tasks/cancel"]

describe("a request lost with its connection", () => {
  it.prop(
    "a POST is repeatable exactly when every message in it only reads, and only after its connection closed under it",
    [
      Schema.Array(Schema.Literals([...READS, ...ACTS])),
      Schema.Literals(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE", "ECONNREFUSED", "UND_ERR_HEADERS_TIMEOUT"])
    ],
    ([methods, code]) => {
      const messages = methods.map((method, id) => ({ jsonrpc: "2.0", id, method }))
      const lost = code !== "ECONNREFUSED" && code !== "UND_ERR_HEADERS_TIMEOUT"
      const reads = messages.length > 0 && methods.every((method) => READS.includes(method))
      assert.strictEqual(Resend.repeatable(post(messages), closedUnder(code)), lost && reads)
      if (messages[0] !== undefined) {
        assert.strictEqual(Resend.repeatable(post(messages[0]), closedUnder(code)), lost && READS.includes(methods[0]!))
      }
    }
  )

  it("a body that is not JSON, or not a string, is never repeated; a GET or DELETE always is", () => {
    const lost = closedUnder("UND_ERR_SOCKET")
    assert.isFalse(Resend.repeatable({ method: "POST", body: "{not json" }, lost))
    assert.isFalse(Resend.repeatable({ method: "POST", body: new Uint8Array([123, 125]) }, lost))
    assert.isFalse(Resend.repeatable({ method: "POST" }, lost))
    assert.isTrue(Resend.repeatable({ method: "GET" }, lost))
    assert.isTrue(Resend.repeatable(undefined, lost))
    assert.isTrue(Resend.repeatable({ method: "DELETE" }, lost))
    assert.isFalse(Resend.repeatable({ method: "GET" }, new Error("aborted")))
  })

  for (const protocol of ["2026-07-28", "2025-11-25"] as const) {
    describe(protocol, () => {
      it.live("a listing whose connection closed under it is sent once more, and the toolset lists the tools", () =>
        Effect.gen(function*() {
          const { proxy, toolset } = yield* cutting("tools/list", protocol)
          assert.isTrue((yield* toolset.tools).has("board__watch_count"))
          assert.lengthOf(proxy.bodies("tools/list"), 2, "the one cut, and the one sent again")
          assert.deepStrictEqual(yield* toolset.diagnostics, [])
        }))

      it.live("a call whose connection closed under it is not sent again: its caller learns the outcome is unknown, and the next call is served", () =>
        Effect.gen(function*() {
          const { face, proxy, toolset } = yield* cutting("tools/call", protocol)
          const lost = yield* Effect.flip(toolset.call("board__watch_count", {}))
          assert.strictEqual(lost._tag, "ServerUnavailable")
          assert.isFalse(lost._tag === "ServerUnavailable" && lost.retrySafe)
          assert.include(lost.message, "outcome is unknown")
          assert.include(lost.message, "other side closed")
          assert.lengthOf(proxy.bodies("tools/call"), 1)
          assert.strictEqual(yield* face.calls, 0)
          assert.strictEqual(McpCallResult.textOf(yield* toolset.call("board__watch_count", {})), "{\"value\":1}")
          assert.strictEqual(yield* face.calls, 1)
        }))
    })
  }
})
