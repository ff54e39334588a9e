// Behaviour 3, the SSRF guard: a URL whose host is not allowed fails with no outbound connection —
// counted on a listening socket — and so, with no allowedHosts, does one at an address that is not
// public (a literal, or a name resolving to one); every redirect hop is checked again, at most five,
// with the bearer sent only to the server's own origin.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { McpCallResult, McpHosts, McpToolset } from "effect-surface/client"
import { countingSocket, everythingHttp, recordingProxy, redirector } from "./servers.ts"

describe("allowedHosts", () => {
  it("matches hosts exactly, by port when one is given, under a *. entry, and only over http and https", () => {
    assert.isTrue(McpHosts.allows(["mcp.example.com"], new URL("https://MCP.example.com/mcp")))
    assert.isFalse(McpHosts.allows(["mcp.example.com"], new URL("https://mcp.example.com.evil.io/mcp")))
    assert.isTrue(McpHosts.allows(["127.0.0.1:8080"], new URL("http://127.0.0.1:8080/mcp")))
    assert.isFalse(McpHosts.allows(["127.0.0.1:8080"], new URL("http://127.0.0.1:8081/mcp")))
    assert.isTrue(McpHosts.allows(["*.example.com"], new URL("https://a.b.example.com/")))
    assert.isFalse(McpHosts.allows(["*.example.com"], new URL("https://example.com/")))
    assert.isTrue(McpHosts.allows(["[::1]"], new URL("http://[::1]:3000/mcp")))
    assert.isFalse(McpHosts.allows(["127.0.0.1"], new URL("file:///etc/passwd")))
  })

  it.live("a server whose host is not allowed is never contacted: no connection reaches its socket, and a diagnostic says why", () =>
    Effect.gen(function*() {
      const socket = yield* countingSocket
      const seen: Array<string> = []
      const toolset = yield* McpToolset.make([
        { name: "http", type: "streamable-http", url: `http://127.0.0.1:${socket.port}/mcp` },
        { name: "sse", type: "sse", url: `http://127.0.0.1:${socket.port}/sse` }
      ], { allowedHosts: ["mcp.example.com"], onDiagnostic: (d) => void seen.push(d.kind) })
      assert.strictEqual((yield* toolset.tools).size, 0)
      assert.deepStrictEqual(seen, ["host-not-allowed", "host-not-allowed"])
      const diagnostics = yield* toolset.diagnostics
      assert.include(diagnostics[0]?.message ?? "", `"127.0.0.1:${socket.port}" is not in allowedHosts`)
      assert.strictEqual(socket.connections(), 0)
    }))

  it.live(
    "with no allowedHosts, a server at a loopback, private or link-local address, as a literal or a name resolving to one, is never contacted",
    () =>
      Effect.gen(function*() {
        const socket = yield* countingSocket
        const toolset = yield* McpToolset.make([
          { name: "loopback", type: "streamable-http", url: `http://127.0.0.1:${socket.port}/mcp` },
          { name: "mapped", type: "streamable-http", url: `http://[::ffff:127.0.0.1]:${socket.port}/mcp` },
          { name: "v6", type: "sse", url: `http://[::1]:${socket.port}/sse` },
          { name: "metadata", type: "streamable-http", url: "http://169.254.169.254/latest/meta-data" },
          { name: "private", type: "streamable-http", url: "http://10.1.2.3/mcp" },
          { name: "named", type: "streamable-http", url: `http://localhost:${socket.port}/mcp` }
        ], { connectTimeoutMs: 5_000 })
        assert.strictEqual((yield* toolset.tools).size, 0)
        const said = new Map((yield* toolset.diagnostics).flatMap((d) => "server" in d ? [[d.server, d] as const] : []))
        for (const server of ["loopback", "mapped", "v6", "metadata", "private"]) {
          assert.strictEqual(said.get(server)?.kind, "host-not-allowed", server)
          assert.include(said.get(server)?.message ?? "", "a private, loopback or link-local address", server)
        }
        assert.strictEqual(said.get("named")?.kind, "server-unavailable")
        assert.include(said.get("named")?.message ?? "", "the host \"localhost\" resolves to 127.0.0.1")
        assert.strictEqual(socket.connections(), 0)
      })
  )

  it.live("a loopback host that allowedHosts names is contacted", () =>
    Effect.gen(function*() {
      const socket = yield* countingSocket
      yield* McpToolset.make([{ name: "local", type: "streamable-http", url: `http://localhost:${socket.port}/mcp` }], {
        allowedHosts: ["localhost"],
        connectTimeoutMs: 5_000
      })
      assert.isAtLeast(socket.connections(), 1)
    }))

  it.live("a redirect to a host outside the list is refused before connecting to it", () =>
    Effect.gen(function*() {
      const forbidden = yield* countingSocket
      const hop = yield* redirector(() => `http://localhost:${forbidden.port}/mcp`)
      const toolset = yield* McpToolset.make([{ name: "docs", type: "streamable-http", url: `${hop.origin}/mcp` }], {
        allowedHosts: ["127.0.0.1"],
        connectTimeoutMs: 5_000
      })
      assert.strictEqual((yield* toolset.tools).size, 0)
      const [diagnostic] = yield* toolset.diagnostics
      assert.strictEqual(diagnostic?.kind, "server-unavailable")
      assert.include(diagnostic?.message ?? "", `"localhost:${forbidden.port}" is not in allowedHosts`)
      assert.isAtLeast(hop.served(), 1)
      assert.strictEqual(forbidden.connections(), 0)
    }))

  it.live("a redirect chain is followed at most five hops, each checked", () =>
    Effect.gen(function*() {
      const loop = yield* redirector((path) => `/hop${Number(path.replace(/\D/g, "") || "0") + 1}`)
      const toolset = yield* McpToolset.make([{ name: "docs", type: "streamable-http", url: `${loop.origin}/hop0` }], {
        allowedHosts: ["127.0.0.1"],
        connectTimeoutMs: 5_000
      })
      const [diagnostic] = yield* toolset.diagnostics
      assert.include(diagnostic?.message ?? "", "more than 5 redirects")
      // One dial: the first request and five redirects followed.
      assert.strictEqual(loop.served(), 6)
    }))

  it.live(
    "a redirect within the allowed hosts is followed, and the bearer goes only to the server's own origin",
    () =>
      Effect.gen(function*() {
        const upstream = yield* everythingHttp("streamableHttp")
        const target = yield* recordingProxy(`http://127.0.0.1:${upstream.port}`)
        const front = yield* redirector((path) => `${target.origin}${path}`)
        const toolset = yield* McpToolset.make(
          [{ name: "moved", type: "streamable-http", url: `${front.origin}/mcp` }],
          {
            session: "s",
            allowedHosts: ["127.0.0.1"],
            auth: () => ({ token: "for-the-front-door-only" })
          }
        )
        assert.strictEqual(
          McpCallResult.textOf(yield* toolset.call("moved__echo", { message: "redirected" })),
          "Echo: redirected"
        )
        assert.isNotEmpty(target.requests)
        for (const request of target.requests) assert.isUndefined(request.headers["authorization"])
      }),
    { timeout: 60_000 }
  )
})
