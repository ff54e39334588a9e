// The HTTP face behind an OAuth 2.1 resource server, against a hand-built issuer (its keys on a free
// port): the protected-resource metadata at both well-known URLs, 401 with the challenge for every
// request without a good token (a property over hostile Authorization headers: never a 500, never a
// handler run, never the token in a log line), the caller's identity in the handler, scopes narrowing
// what each era lists and 403 naming the scope to step up to, keys cached and refetched on rotation
// at a bounded rate, and an issuer that is down refusing every request with a sentence.
import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Effect, Schema } from "effect"
import { TestClock } from "effect/testing"
import { Identity } from "effect-surface"
import { McpTokenVerifier } from "effect-surface/mcp"
import * as AuthIssuer from "./authIssuer.ts"
import { legacyInitialize, legacyRequest, modernRequest, resultOf, serveBehind } from "./authServed.ts"

const jwt = (issuer: string) => McpTokenVerifier.layerJwt({ issuer, refetchCooldown: "200 millis" })

const namesOf = (answered: { readonly messages: ReadonlyArray<Record<string, unknown>> }, key = "tools") =>
  ((resultOf(answered as never)?.result?.[key] ?? []) as ReadonlyArray<{ readonly name: string }>).map((t) => t.name)
    .sort()

describe("the HTTP face as a resource server", () => {
  it.live("serves its protected-resource metadata at the path-suffixed and the root well-known URLs", () =>
    Effect.gen(function*() {
      const issuer = yield* AuthIssuer.start()
      const served = yield* serveBehind(jwt(issuer.issuer))
      const origin = new URL(served.url).origin
      for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
        const metadata = yield* Effect.promise(() => fetch(`${origin}${path}`).then((r) => r.json()))
        assert.deepStrictEqual(metadata, {
          resource: served.url,
          authorization_servers: [issuer.issuer],
          scopes_supported: ["board:read", "board:write"],
          bearer_methods_supported: ["header"]
        })
      }
    }))

  it.live("a request without a token is answered 401 with a challenge naming the metadata, in both eras", () =>
    Effect.gen(function*() {
      const issuer = yield* AuthIssuer.start()
      const served = yield* serveBehind(jwt(issuer.issuer))
      const origin = new URL(served.url).origin
      for (
        const answered of [
          yield* legacyInitialize(served.url, undefined),
          yield* modernRequest(served.url, undefined, "tools/list")
        ]
      ) {
        assert.strictEqual(answered.status, 401)
        assert.strictEqual(
          answered.challenge,
          `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`
        )
        assert.isNull(answered.session)
      }
    }))

  it.live("the handler reads the caller's subject, client and scopes from its token, in both eras", () =>
    Effect.gen(function*() {
      const issuer = yield* AuthIssuer.start()
      const served = yield* serveBehind(jwt(issuer.issuer))
      const token = `Bearer ${yield* Effect.promise(() => issuer.sign({ aud: served.url }))}`
      for (
        const answered of [
          yield* legacyRequest(served.url, token, "tools/call", { name: "whoami", arguments: {} }),
          yield* modernRequest(served.url, token, "tools/call", { name: "whoami", arguments: {} })
        ]
      ) {
        assert.strictEqual(answered.status, 200)
        const content = resultOf(answered)?.result?.["content"] as ReadonlyArray<{ readonly text: string }>
        assert.deepStrictEqual(JSON.parse(content[0]?.text ?? ""), { value: "ada via board-cli with board:read" })
      }
      assert.strictEqual(served.runs.count, 2)
    }))

  it.live("board:read lists the reads, board:write also the mutating tools, in both eras alike", () =>
    Effect.gen(function*() {
      const issuer = yield* AuthIssuer.start()
      const served = yield* serveBehind(jwt(issuer.issuer))
      const reader = `Bearer ${yield* Effect.promise(() => issuer.sign({ aud: served.url, scope: "board:read" }))}`
      const writer = `Bearer ${yield* Effect.promise(() =>
        issuer.sign({ aud: served.url, scope: "board:read board:write" })
      )}`
      const nobody = `Bearer ${yield* Effect.promise(() => issuer.sign({ aud: served.url, scope: "" }))}`
      const reads = ["board_progress", "stopwatch_wait", "tasks_open", "tasks_require", "whoami"]
      const writes = ["board_focus", "stopwatch_watch_lap", "tasks_add", "tasks_complete"]
      for (const request of [legacyRequest, modernRequest]) {
        assert.deepStrictEqual(namesOf(yield* request(served.url, reader, "tools/list")), reads)
        assert.deepStrictEqual(namesOf(yield* request(served.url, writer, "tools/list")), [...reads, ...writes].sort())
        assert.deepStrictEqual(namesOf(yield* request(served.url, nobody, "tools/list")), [])
        assert.deepStrictEqual(namesOf(yield* request(served.url, nobody, "prompts/list"), "prompts"), [])
        assert.deepStrictEqual(namesOf(yield* request(served.url, reader, "prompts/list"), "prompts"), [
          "plan_next",
          "review_task"
        ])
        const resources = resultOf(yield* request(served.url, nobody, "resources/list"))?.result?.["resources"]
        assert.deepStrictEqual(resources, [])
        const read = resultOf(yield* request(served.url, reader, "resources/list"))?.result?.["resources"]
        assert.isAbove((read as ReadonlyArray<unknown>).length, 0)
      }
    }))

  it.live("a call outside the token's scopes is refused 403 insufficient_scope naming the scope, before it runs", () =>
    Effect.gen(function*() {
      const issuer = yield* AuthIssuer.start()
      const served = yield* serveBehind(jwt(issuer.issuer))
      const reader = `Bearer ${yield* Effect.promise(() => issuer.sign({ aud: served.url, scope: "board:read" }))}`
      const nobody = `Bearer ${yield* Effect.promise(() => issuer.sign({ aud: served.url, scope: "" }))}`
      for (const request of [legacyRequest, modernRequest]) {
        const refused = yield* request(served.url, reader, "tools/call", {
          name: "tasks_add",
          arguments: { title: "x" }
        })
        assert.strictEqual(refused.status, 403)
        assert.include(refused.challenge ?? "", `error="insufficient_scope"`)
        assert.include(refused.challenge ?? "", `scope="board:read board:write"`)
        const hidden = yield* request(served.url, nobody, "tools/call", { name: "whoami", arguments: {} })
        assert.strictEqual(hidden.status, 403)
        assert.include(hidden.challenge ?? "", `scope="board:read"`)
        const read = yield* request(served.url, nobody, "resources/read", { uri: "surface://cells/focus" })
        assert.strictEqual(read.status, 403)
      }
      assert.strictEqual(served.runs.count, 0)
    }))

  it.live("keys are fetched once, and again only for a token naming a kid not yet seen (at a bounded rate)", () =>
    Effect.gen(function*() {
      const issuer = yield* AuthIssuer.start()
      const served = yield* serveBehind(jwt(issuer.issuer))
      const token = `Bearer ${yield* Effect.promise(() => issuer.sign({ aud: served.url }))}`
      for (let i = 0; i < 5; i++) {
        assert.strictEqual((yield* modernRequest(served.url, token, "tools/list")).status, 200)
      }
      assert.strictEqual(issuer.jwksFetches(), 1)
      yield* Effect.promise(() => issuer.rotate())
      yield* Effect.sleep("250 millis")
      const rotated = `Bearer ${yield* Effect.promise(() => issuer.sign({ aud: served.url }))}`
      assert.strictEqual((yield* modernRequest(served.url, rotated, "tools/list")).status, 200)
      assert.strictEqual(issuer.jwksFetches(), 2)
      // A burst of unknown kids within the cooldown fetches nothing more.
      const hostile = yield* Effect.promise(() => issuer.hostile(served.url))
      for (let i = 0; i < 5; i++) {
        assert.strictEqual((yield* modernRequest(served.url, hostile["unknownKid"], "tools/list")).status, 401)
      }
      assert.isAtMost(issuer.jwksFetches(), 3)
    }))

  it.live("an issuer that cannot be reached fails closed: 503 with a sentence, nothing run", () =>
    Effect.gen(function*() {
      const issuer = yield* AuthIssuer.start()
      const token = `Bearer ${yield* Effect.promise(() => issuer.sign({ aud: "later" }))}`
      yield* Effect.promise(() => issuer.stop())
      const served = yield* serveBehind(jwt(issuer.issuer))
      const answered = yield* modernRequest(served.url, token, "tools/call", { name: "whoami", arguments: {} })
      assert.strictEqual(answered.status, 503)
      const message = (answered.messages[0]?.["error"] as { readonly message: string } | undefined)?.message ?? ""
      assert.match(message, /could not be reached to check the token/)
      assert.strictEqual(served.runs.count, 0)
    }))

  it.effect("a token verified once is taken on its word until its exp, never past it (under the TestClock)", () =>
    Effect.gen(function*() {
      const issuer = yield* AuthIssuer.start()
      const verifier = yield* McpTokenVerifier.makeJwt({ issuer: issuer.issuer, clockSkew: 0, verifiedFor: "1 hour" })
      // The TestClock starts at the epoch: the token lives its first ten seconds.
      const token = yield* Effect.promise(() => issuer.sign({ aud: "urn:test", iat: 0, exp: 10 }))
      assert.strictEqual((yield* verifier.verify(token, "urn:test")).subject, "ada")
      yield* TestClock.adjust("9 seconds")
      assert.strictEqual((yield* verifier.verify(token, "urn:test")).subject, "ada")
      const elsewhere = yield* Effect.flip(verifier.verify(token, "urn:elsewhere"))
      assert.strictEqual(elsewhere._tag, "InvalidToken")
      yield* TestClock.adjust("2 seconds")
      const expired = yield* Effect.flip(verifier.verify(token, "urn:test"))
      assert.strictEqual(expired._tag, "InvalidToken")
      assert.match(expired.message, /"exp" claim timestamp check failed/)
    }))

  it.live("the test verifier answers its own tokens only", () =>
    Effect.gen(function*() {
      const served = yield* serveBehind(McpTokenVerifier.layerTest({
        issuer: "https://auth.test",
        tokens: { "let-me-in": Identity.token({ subject: "bo", clientId: "t", scopes: ["board:read"] }) }
      }))
      assert.strictEqual((yield* modernRequest(served.url, "Bearer let-me-in", "tools/list")).status, 200)
      assert.strictEqual((yield* modernRequest(served.url, "Bearer let-me-out", "tools/list")).status, 401)
    }))
})

const kinds = [
  "empty",
  "bareScheme",
  "wrongScheme",
  "twoTokens",
  "notAJwt",
  "huge",
  "algNone",
  "hmacWithPublicKey",
  "expired",
  "notYetValid",
  "wrongAudience",
  "wrongIssuer",
  "unknownKid",
  "badSignature"
] as const

describe("hostile Authorization headers", () => {
  it.live.prop(
    "every hostile Authorization header is answered 401 in both eras: never a 500, never a handler run, never the token in a log line",
    {
      kind: Arbitrary.schema(Schema.Literals(kinds)),
      junk: Arbitrary.schema(Schema.String),
      legacy: Arbitrary.schema(Schema.Boolean)
    },
    ({ junk, kind, legacy }) =>
      Effect.gen(function*() {
        const issuer = yield* AuthIssuer.start()
        const served = yield* serveBehind(jwt(issuer.issuer))
        const hostile = yield* Effect.promise(() => issuer.hostile(served.url))
        // Junk is sent as it is where a header may carry it; anything fetch refuses is left out.
        const printable = junk.replace(/[^\x20-\x7e]/g, "")
        for (const header of [hostile[kind] ?? "", `Bearer ${printable}`, printable]) {
          const answered = legacy
            ? yield* legacyRequest(served.url, header, "tools/call", { name: "whoami", arguments: {} })
            : yield* modernRequest(served.url, header, "tools/call", { name: "whoami", arguments: {} })
          assert.strictEqual(answered.status, 401, `${kind}: ${header.slice(0, 80)}`)
          assert.include(answered.challenge ?? "", "resource_metadata=")
          const token = header.replace(/^Bearer /i, "")
          if (token.length >= 8)
            assert.isFalse(served.logs.some((line) => line.includes(token)), "the token was logged")
        }
        assert.strictEqual(served.runs.count, 0)
      }).pipe(Effect.scoped),
    { timeout: 60_000, arbitrary: { runs: 12 } }
  )
})
