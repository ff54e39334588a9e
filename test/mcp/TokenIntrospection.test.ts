// Introspection (RFC 7662) against a caller that sends bad tokens again and again, or many at once:
// answers kept a short while (refusals too), one call for one token however many requests ask at
// once, a bounded number of calls under way, and a refresh token never taken as a bearer.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { McpTokenVerifier } from "effect-surface/mcp"
import { legacyInitialize, modernRequest, serveBehind } from "./authServed.ts"
import * as Introspection from "./introspectionIssuer.ts"

const whoami = { name: "whoami", arguments: {} }

const behind = (
  introspector: Introspection.Introspector,
  options: Partial<McpTokenVerifier.IntrospectionOptions> = {}
) =>
  serveBehind(McpTokenVerifier.layerIntrospection({
    issuer: introspector.issuer,
    endpoint: introspector.endpoint,
    clientId: "board-rs",
    clientSecret: "secret",
    ...options
  }))

const active = (audience: string, claims: Record<string, unknown> = {}) => ({
  active: true,
  aud: audience,
  sub: "ada",
  client_id: "board-cli",
  scope: "board:read",
  exp: Math.floor(Date.now() / 1000) + 600,
  ...claims
})

const messageOf = (answered: { readonly messages: ReadonlyArray<Record<string, unknown>> }) =>
  (answered.messages[0]?.["error"] as { readonly message?: string } | undefined)?.message ?? ""

describe("introspection against a hostile caller", () => {
  it.live("a bad token sent again and again is asked about once while its refusal is kept, in both eras", () =>
    Effect.gen(function*() {
      const introspector = yield* Introspection.start()
      const served = yield* behind(introspector)
      introspector.answers.set("good", active(served.url))
      for (let i = 0; i < 10; i++) {
        assert.strictEqual((yield* modernRequest(served.url, "Bearer bad", "tools/call", whoami)).status, 401)
        assert.strictEqual((yield* legacyInitialize(served.url, "Bearer bad")).status, 401)
      }
      assert.strictEqual(introspector.calls(), 1)
      for (let i = 0; i < 10; i++) {
        assert.strictEqual((yield* modernRequest(served.url, "Bearer good", "tools/call", whoami)).status, 200)
      }
      assert.strictEqual(introspector.calls(), 2)
      assert.strictEqual(served.runs.count, 10)
    }))

  it.live(
    "two hundred requests at once with one token make one call; with two hundred tokens at most maxInFlight calls run at once and the excess is refused 503 with a sentence",
    () =>
      Effect.gen(function*() {
        const introspector = yield* Introspection.start()
        introspector.delay = 50
        const served = yield* behind(introspector, { maxInFlight: 4, maxWaiting: 20 })
        introspector.answers.set("good", active(served.url))
        const burst = (tokens: ReadonlyArray<string>) =>
          Effect.forEach(tokens, (token) => modernRequest(served.url, `Bearer ${token}`, "tools/call", whoami), {
            concurrency: "unbounded"
          })
        const same = yield* burst(Array.from({ length: 200 }, () => "good"))
        for (const answered of same) assert.strictEqual(answered.status, 200)
        assert.strictEqual(introspector.calls(), 1)
        const many = yield* burst(Array.from({ length: 200 }, (_, i) => `forged-${i}`))
        assert.isAtMost(introspector.mostAtOnce(), 4)
        const refused = many.filter((answered) => answered.status === 503)
        // Each token let through was asked about once; no refused one was asked about at all (how
        // many get through depends on how fast the burst arrives, so that is not a fixed number).
        assert.strictEqual(introspector.calls(), 1 + many.length - refused.length)
        assert.isAbove(refused.length, 0)
        for (const answered of many) assert.oneOf(answered.status, [401, 503])
        assert.match(
          messageOf(refused[0]!),
          /introspections are under way and 20 more wait \(maxInFlight, maxWaiting\)/
        )
        // The burst over, the token already answered is still served and a new one is asked about.
        assert.strictEqual((yield* modernRequest(served.url, "Bearer good", "tools/call", whoami)).status, 200)
        introspector.answers.set("later", active(served.url))
        assert.strictEqual((yield* modernRequest(served.url, "Bearer later", "tools/call", whoami)).status, 200)
      }),
    { timeout: 30_000 }
  )

  it.live("a token the issuer reports as a refresh token (or any type but an access token) is refused 401 in both eras", () =>
    Effect.gen(function*() {
      const introspector = yield* Introspection.start()
      const served = yield* behind(introspector)
      introspector.answers.set("refresh", active(served.url, { token_type: "refresh_token" }))
      introspector.answers.set("dpop", active(served.url, { token_type: "DPoP" }))
      introspector.answers.set("access", active(served.url, { token_type: "access_token" }))
      introspector.answers.set("bearer", active(served.url, { token_type: "Bearer" }))
      introspector.answers.set("untyped", active(served.url))
      for (const token of ["refresh", "dpop"]) {
        const answered = yield* modernRequest(served.url, `Bearer ${token}`, "tools/call", whoami)
        assert.strictEqual(answered.status, 401, token)
        assert.include(answered.challenge ?? "", "invalid_token")
        assert.strictEqual((yield* legacyInitialize(served.url, `Bearer ${token}`)).status, 401, token)
      }
      assert.strictEqual(served.runs.count, 0)
      for (const token of ["access", "bearer", "untyped"]) {
        assert.strictEqual((yield* modernRequest(served.url, `Bearer ${token}`, "tools/call", whoami)).status, 200)
        assert.strictEqual((yield* legacyInitialize(served.url, `Bearer ${token}`)).status, 200)
      }
    }))

  it.effect("an answer is kept until its exp or verifiedFor, a refusal for refusedFor, never longer (under the TestClock)", () =>
    Effect.gen(function*() {
      const introspector = yield* Introspection.start()
      const verifier = yield* McpTokenVerifier.makeIntrospection({
        issuer: introspector.issuer,
        endpoint: introspector.endpoint,
        clientId: "board-rs",
        clientSecret: "secret",
        clockSkew: 0,
        verifiedFor: "1 minute",
        refusedFor: "10 seconds"
      })
      // The TestClock starts at the epoch: the token lives its first hundred seconds.
      introspector.answers.set("ada", active("urn:test", { iat: 0, exp: 100 }))
      assert.strictEqual((yield* verifier.verify("ada", "urn:test")).subject, "ada")
      yield* TestClock.adjust("59 seconds")
      assert.strictEqual((yield* verifier.verify("ada", "urn:test")).subject, "ada")
      assert.strictEqual(introspector.calls(), 1)
      yield* TestClock.adjust("2 seconds")
      assert.strictEqual((yield* verifier.verify("ada", "urn:test")).subject, "ada")
      assert.strictEqual(introspector.calls(), 2)
      // Kept until its exp, not the minute after: at 101 seconds the issuer is asked and it has expired.
      yield* TestClock.adjust("40 seconds")
      assert.strictEqual((yield* Effect.flip(verifier.verify("ada", "urn:test")))._tag, "InvalidToken")
      assert.strictEqual(introspector.calls(), 3)
      const bad = yield* Effect.flip(verifier.verify("bad", "urn:test"))
      assert.match(bad.message, /not active/)
      yield* TestClock.adjust("9 seconds")
      yield* Effect.flip(verifier.verify("bad", "urn:test"))
      assert.strictEqual(introspector.calls(), 4)
      yield* TestClock.adjust("2 seconds")
      yield* Effect.flip(verifier.verify("bad", "urn:test"))
      assert.strictEqual(introspector.calls(), 5)
    }))
})

describe("a shared introspection", () => {
  it.live("a caller that goes away before the answer leaves none of the others awaiting the same token waiting", () =>
    Effect.gen(function*() {
      const introspector = yield* Introspection.start()
      introspector.delay = 200
      introspector.answers.set("ada", active("urn:test"))
      const verifier = yield* McpTokenVerifier.makeIntrospection({
        issuer: introspector.issuer,
        endpoint: introspector.endpoint,
        clientId: "board-rs",
        clientSecret: "secret"
      })
      const first = yield* Effect.forkChild(verifier.verify("ada", "urn:test"))
      yield* Effect.sleep("20 millis")
      const others = yield* Effect.forkChild(
        Effect.forEach([1, 2, 3], () => verifier.verify("ada", "urn:test"), { concurrency: "unbounded" })
      )
      yield* Effect.sleep("20 millis")
      yield* Fiber.interrupt(first)
      const answered = yield* Fiber.join(others).pipe(Effect.timeout("5 seconds"))
      assert.deepStrictEqual(answered.map((principal) => principal.subject), ["ada", "ada", "ada"])
      assert.isAtMost(introspector.calls(), 2)
    }))
})
