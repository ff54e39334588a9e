// The one decision of which era a message speaks, held to the SDK that serves the session era and
// to what the stdio and HTTP doors decide with it.
import { assert, describe, it } from "@effect/vitest"
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Schema } from "effect"
import { McpEras } from "effect-surface/mcp"

describe("McpEras", () => {
  it("the session era's versions are exactly those the SDK serving it supports", () => {
    assert.deepStrictEqual([...McpEras.sessionVersions].sort(), [...SUPPORTED_PROTOCOL_VERSIONS].sort())
  })

  it("a version is the stateless era's from 2026-07-28 on, the session era's where the SDK knows it, else neither", () => {
    assert.strictEqual(McpEras.ofVersion("2026-07-28"), "2026-07-28")
    assert.strictEqual(McpEras.ofVersion("2027-01-01"), "2026-07-28")
    for (const version of McpEras.sessionVersions) assert.strictEqual(McpEras.ofVersion(version), "2025-11-25")
    assert.strictEqual(McpEras.ofVersion("2025-01-01"), undefined)
    assert.strictEqual(McpEras.ofVersion(""), undefined)
    assert.strictEqual(McpEras.ofVersion("nonsense"), undefined)
  })

  it("a message opens the stateless era only by server/discover or the envelope's version in its _meta", () => {
    const envelope = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" }
    assert.strictEqual(McpEras.ofMessage({ jsonrpc: "2.0", id: 1, method: "server/discover" }), "2026-07-28")
    assert.strictEqual(
      McpEras.ofMessage({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: envelope } }),
      "2026-07-28"
    )
    assert.strictEqual(McpEras.ofMessage({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }), "2025-11-25")
    assert.strictEqual(McpEras.ofMessage([{ jsonrpc: "2.0", id: 1, method: "server/discover" }]), "2025-11-25")
    assert.strictEqual(McpEras.ofMessage(null), "2025-11-25")
    assert.strictEqual(McpEras.ofMessage({ method: "tools/list", params: { _meta: null } }), "2025-11-25")
  })

  it("an HTTP request names its era by a stateless label, else a session, else its method; a bare POST waits for its body", () => {
    const of = (method: string, version: string | undefined, session: string | undefined) =>
      McpEras.ofHttp({ method, version, session })
    assert.strictEqual(of("POST", "2026-07-28", "s"), "2026-07-28")
    assert.strictEqual(of("POST", " 2026-07-28 ", undefined), "2026-07-28")
    assert.strictEqual(of("POST", undefined, "s"), "2025-11-25")
    assert.strictEqual(of("GET", undefined, undefined), "2026-07-28")
    assert.strictEqual(of("DELETE", "2025-11-25", undefined), "2026-07-28")
    assert.strictEqual(of("POST", "2025-06-18", undefined), "2025-11-25")
    assert.strictEqual(of("POST", "nonsense", undefined), undefined)
    assert.strictEqual(of("POST", undefined, undefined), undefined)
  })

  it.effect.prop(
    "any version string is decided by its date alone: a label that is not a date is neither era's",
    { version: Schema.String },
    ({ version }) =>
      Effect.sync(() => {
        const era = McpEras.ofVersion(version)
        if (/^\d{4}-\d{2}-\d{2}$/.test(version) && version >= "2026-07-28") assert.strictEqual(era, "2026-07-28")
        else assert.strictEqual(era, McpEras.sessionVersions.includes(version) ? "2025-11-25" : undefined)
      })
  )
})
