// Behind a load balancer the resource server is reached at its public URL, not at the address it
// listens on: every challenge (no token, a token for the listening URL, a call outside the token's
// scopes) names the protected-resource metadata under the public URL, in both eras, and the server
// answers that metadata at the public path's well-known URL as well as at the listening one.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Identity } from "effect-surface"
import { McpTokenVerifier } from "effect-surface/mcp"
import { legacyInitialize, legacyRequest, modernRequest, serveBehind } from "./authServed.ts"

const publicUrl = "https://mcp.example.com/board/mcp"
const publicMetadata = "https://mcp.example.com/.well-known/oauth-protected-resource/board/mcp"

const issuer = "https://auth.test"

// Tokens for one audience each, as an issuer gives them: one for the listening URL is refused at the public one.
const verifier = (listening: { url: string }) =>
  Layer.succeed(
    McpTokenVerifier.TokenVerifier,
    McpTokenVerifier.TokenVerifier.of({
      issuer,
      verify: (token, audience) => {
        const [aud, scope] = token === "for-listening" ? [listening.url, "board:read"]
          : token === "no-scope" ? [publicUrl, ""]
          : token === "reader" ? [publicUrl, "board:read"]
          : [undefined, ""]
        return aud === audience
          ? Effect.succeed(
            Identity.token({ subject: "ada", clientId: "cli", scopes: scope === "" ? [] : scope.split(" ") })
          )
          : Effect.fail(new McpTokenVerifier.InvalidToken({ reason: `it was not issued for ${audience}` }))
      }
    })
  )

const behindPublicUrl = Effect.gen(function*() {
  const listening = { url: "" }
  const served = yield* serveBehind(verifier(listening), { resource: publicUrl })
  listening.url = served.url
  return served
})

const metadataOf = (challenge: string | null) => /resource_metadata="([^"]*)"/.exec(challenge ?? "")?.[1]

describe("a resource server behind a public URL", () => {
  it.live("a request with no token, or with a token for the listening URL, is sent to the metadata under the public URL, in both eras", () =>
    Effect.gen(function*() {
      const served = yield* behindPublicUrl
      for (const authorization of [undefined, "Bearer for-listening"]) {
        for (
          const answered of [
            yield* legacyInitialize(served.url, authorization),
            yield* modernRequest(served.url, authorization, "tools/list")
          ]
        ) {
          assert.strictEqual(answered.status, 401)
          assert.strictEqual(metadataOf(answered.challenge), publicMetadata)
        }
      }
      assert.strictEqual(served.runs.count, 0)
    }))

  it.live("a call outside the token's scopes is refused 403 with a challenge naming the metadata under the public URL, in both eras", () =>
    Effect.gen(function*() {
      const served = yield* behindPublicUrl
      const noScope = "Bearer no-scope"
      for (
        const answered of [
          yield* legacyRequest(served.url, noScope, "tools/call", { name: "whoami", arguments: {} }),
          yield* modernRequest(served.url, noScope, "tools/call", { name: "whoami", arguments: {} })
        ]
      ) {
        assert.strictEqual(answered.status, 403)
        assert.strictEqual(metadataOf(answered.challenge), publicMetadata)
      }
      assert.strictEqual(served.runs.count, 0)
    }))

  it.live("the metadata names the public URL as the resource and is answered at the public path's well-known URL and at the listening one", () =>
    Effect.gen(function*() {
      const served = yield* behindPublicUrl
      const origin = new URL(served.url).origin
      for (
        const path of [
          "/.well-known/oauth-protected-resource/board/mcp",
          "/.well-known/oauth-protected-resource/mcp",
          "/.well-known/oauth-protected-resource"
        ]
      ) {
        const response = yield* Effect.promise(() => fetch(`${origin}${path}`))
        assert.strictEqual(response.status, 200, path)
        const metadata = (yield* Effect.promise(() => response.json())) as Record<string, unknown>
        assert.strictEqual(metadata["resource"], publicUrl)
        assert.deepStrictEqual(metadata["authorization_servers"], [issuer])
      }
      // A token for the public URL is served.
      const answered = yield* modernRequest(served.url, "Bearer reader", "tools/call", {
        name: "whoami",
        arguments: {}
      })
      assert.strictEqual(answered.status, 200)
      assert.strictEqual(served.runs.count, 1)
    }))
})
