// Plain tools served over HTTP through the Promise API, behind the resource server: `auth.issuer`
// puts the endpoint behind bearer JWTs from that issuer, in both eras; nothing answers without one.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { serveTools } from "effect-surface/serve"
import * as AuthIssuer from "../mcp/authIssuer.ts"
import { legacyRequest, modernRequest, resultOf } from "../mcp/authServed.ts"

describe("serveTools behind a resource server", () => {
  it.live("with auth.issuer, a call needs a bearer token from that issuer for this endpoint, in both eras", () =>
    Effect.gen(function*() {
      const issuer = yield* AuthIssuer.start()
      let runs = 0
      const served = yield* Effect.acquireRelease(
        Effect.promise(() =>
          serveTools([{
            name: "ping",
            description: "Answer pong.",
            inputSchema: { type: "object", properties: {} },
            execute: async () => {
              runs++
              return "pong"
            }
          }], { transport: { transport: "http", port: 0, auth: { issuer: issuer.issuer } } })
        ),
        (served) => Effect.promise(() => served.close())
      )
      const origin = new URL(served.url).origin
      const metadata = yield* Effect.promise(() =>
        fetch(`${origin}/.well-known/oauth-protected-resource/mcp`).then((r) => r.json())
      )
      assert.deepInclude(metadata, { resource: served.url, authorization_servers: [issuer.issuer] })
      const call = { name: "ping", arguments: {} }
      assert.strictEqual((yield* modernRequest(served.url, undefined, "tools/call", call)).status, 401)
      assert.strictEqual((yield* legacyRequest(served.url, "Bearer nope", "tools/call", call)).status, 401)
      assert.strictEqual(runs, 0)
      const token = `Bearer ${yield* Effect.promise(() => issuer.sign({ aud: served.url, scope: "" }))}`
      for (const request of [legacyRequest, modernRequest]) {
        const answered = yield* request(served.url, token, "tools/call", call)
        const content = resultOf(answered)?.result?.["content"] as ReadonlyArray<{ readonly text: string }>
        assert.strictEqual(content[0]?.text, "pong")
      }
      assert.strictEqual(runs, 2)
    }).pipe(Effect.scoped))
})
