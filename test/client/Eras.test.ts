// Both revisions of MCP from the toolset's side: a server that offers 2026-07-28 is spoken to
// statelessly (no initialize; every request with its envelope and headers), one that does not is
// reached with a 2025-11-25 session after the probe, over HTTP and over stdio on the child the probe
// started; a pin holds either way; and a tool's question reaches the toolset's handler in both.
import { assert, describe, it } from "@effect/vitest"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect } from "effect"
import { McpCallResult, McpToolset } from "effect-surface/client"
import type { McpConfig } from "effect-surface/client"
import { fileURLToPath } from "node:url"
import { childrenMentioning, entry, everythingHttp, everythingStdio, listen, recordingProxy } from "./servers.ts"
import { askingFace } from "./face.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))

const ownStdio: McpConfig.Stdio = {
  name: "board",
  type: "stdio",
  command: process.execPath,
  args: ["--conditions=effect-surface-source", "examples/main.ts", "--stdio"],
  cwd: root
}

const envelopeOf = (body: string): unknown => {
  const parsed = JSON.parse(body) as { readonly params?: { readonly _meta?: Record<string, unknown> } }
  return parsed.params?._meta?.["io.modelcontextprotocol/protocolVersion"]
}

describe("both eras", () => {
  it.live("a server that offers 2026-07-28 is spoken to in it: no initialize, and every request carries its envelope and its headers", () =>
    Effect.gen(function*() {
      const served = yield* askingFace
      const proxy = yield* recordingProxy(new URL(served.url).origin)
      const toolset = yield* McpToolset.make(
        [{ name: "board", type: "streamable-http", url: `${proxy.origin}${new URL(served.url).pathname}` }],
        { allowedHosts: ["127.0.0.1"], elicit: () => ({ action: "accept", content: { name: "Ada" } }) }
      )
      assert.isTrue((yield* toolset.tools).has("board__tasks_add"))
      assert.strictEqual(McpCallResult.textOf(yield* toolset.call("board__greet", {})), "hello Ada")
      const posts = proxy.requests.filter((r) => r.method === "POST")
      assert.lengthOf(proxy.bodies("initialize"), 0)
      assert.isAbove(posts.length, 3)
      for (const post of posts) {
        assert.strictEqual(envelopeOf(post.body), "2026-07-28")
        assert.strictEqual(post.headers["mcp-protocol-version"], "2026-07-28")
        assert.strictEqual(post.headers["mcp-method"], (JSON.parse(post.body) as { method: string }).method)
      }
      const calls = proxy.bodies("tools/call")
      assert.lengthOf(calls, 2, "the call, and once more with the answer")
      assert.strictEqual(calls[0]?.headers["mcp-name"], "greet")
      assert.include(calls[1]?.body ?? "", "\"inputResponses\"")
      assert.include(calls[1]?.body ?? "", "\"requestState\"")
    }))

  it.live("pinned to 2025-11-25, the same server is reached with a session, and its question reaches the same handler", () =>
    Effect.gen(function*() {
      const served = yield* askingFace
      const proxy = yield* recordingProxy(new URL(served.url).origin)
      const toolset = yield* McpToolset.make(
        [{
          name: "board",
          type: "streamable-http",
          url: `${proxy.origin}${new URL(served.url).pathname}`,
          protocol: "2025-11-25"
        }],
        { allowedHosts: ["127.0.0.1"], elicit: () => Effect.succeed({ action: "accept", content: { name: "Grace" } }) }
      )
      assert.strictEqual(McpCallResult.textOf(yield* toolset.call("board__greet", {})), "hello Grace")
      assert.lengthOf(proxy.bodies("initialize"), 1)
      assert.lengthOf(proxy.bodies("server/discover"), 0)
    }))

  it.live("with no elicit handler no elicitation is advertised, so the server cannot ask: in 2026 it refuses the call naming the capability", () =>
    Effect.gen(function*() {
      const served = yield* askingFace
      const modern = yield* McpToolset.make([{ name: "board", type: "streamable-http", url: served.url }], {
        allowedHosts: ["127.0.0.1"]
      })
      const refused = yield* Effect.flip(modern.call("board__greet", {}))
      assert.strictEqual(refused._tag, "McpProtocolError")
      assert.include(refused.message, "elicitation")
      const legacy = yield* McpToolset.make(
        [{ name: "board", type: "streamable-http", url: served.url, protocol: "2025-11-25" }],
        { allowedHosts: ["127.0.0.1"] }
      )
      const answered = yield* Effect.result(legacy.call("board__greet", {}))
      const said = answered._tag === "Success" ? McpCallResult.textOf(answered.success) : answered.failure.message
      assert.notInclude(said, "hello Ada")
      assert.match(said, /elicitation|Unsupported|Decline/)
    }))

  it.live("a server that speaks only 2025-11-25 over HTTP is reached after its probe is refused", () =>
    Effect.gen(function*() {
      const everything = yield* everythingHttp("streamableHttp")
      const proxy = yield* recordingProxy(`http://127.0.0.1:${everything.port}`)
      const toolset = yield* McpToolset.make(
        [{ name: "everything", type: "streamable-http", url: `${proxy.origin}/mcp` }],
        { allowedHosts: ["127.0.0.1"] }
      )
      const echoed = yield* toolset.call("everything__echo", { message: "hi" })
      assert.include(McpCallResult.textOf(echoed), "hi")
      assert.lengthOf(proxy.bodies("server/discover"), 1)
      assert.lengthOf(proxy.bodies("initialize"), 1)
    }))

  it.live(
    "over stdio our own server is spoken to in 2026-07-28, and a 2025 server answers initialize on the child the probe started",
    () =>
      Effect.gen(function*() {
        const toolset = yield* McpToolset.make([ownStdio, everythingStdio()], { connectTimeoutMs: 20_000 })
        const tools = yield* toolset.tools
        assert.isTrue(tools.has("board__tasks_add"))
        assert.isTrue(tools.has("everything__echo"))
        assert.include(McpCallResult.textOf(yield* toolset.call("everything__echo", { message: "again" })), "again")
        assert.lengthOf(childrenMentioning(entry("server-everything")), 1, "one process, no second spawn")
        const added = yield* toolset.call("board__tasks_add", { title: "from 2026" })
        assert.match(McpCallResult.textOf(added), /"id":"t\d+"/)
      }),
    60_000
  )

  it.live(
    "over a caller's own channel the probe and every request after it are 2026 requests: server/discover first, never initialize",
    () =>
      Effect.gen(function*() {
        const sent: Array<string> = []
        const toolset = yield* McpToolset.make([{
          name: "board",
          type: "transport",
          open: () => {
            const transport = new StdioClientTransport({
              command: process.execPath,
              args: ["--conditions=effect-surface-source", "examples/main.ts", "--stdio"],
              cwd: root,
              stderr: "ignore"
            })
            const send = transport.send.bind(transport)
            transport.send = (message) => {
              if ("method" in message) sent.push(message.method)
              return send(message)
            }
            return transport
          }
        }], { connectTimeoutMs: 20_000 })
        yield* toolset.call("board__tasks_add", { title: "over a channel" })
        assert.strictEqual(sent[0], "server/discover")
        assert.notInclude(sent, "initialize")
        assert.include(sent, "tools/call")
      }),
    60_000
  )

  it.live("a probe refused for want of a credential (401) is not taken for an older server: no initialize follows", () =>
    Effect.gen(function*() {
      const bodies: Array<string> = []
      const origin = yield* listen((req, res) => {
        let body = ""
        req.on("data", (chunk: Buffer) => (body += chunk.toString()))
        req.on("end", () => {
          bodies.push(body)
          res.writeHead(401, { "www-authenticate": "Bearer" }).end()
        })
      })
      const toolset = yield* McpToolset.make([{
        name: "locked",
        type: "streamable-http",
        url: `${origin}/mcp`
      }], {
        allowedHosts: ["127.0.0.1"]
      })
      const unavailable = (yield* toolset.diagnostics).find((d) => d.kind === "server-unavailable")
      assert.include(unavailable?.message ?? "", "401")
      assert.isAbove(bodies.length, 0)
      assert.isTrue(bodies.every((body) => body.includes("server/discover")), bodies.join(" | "))
    }))
})
