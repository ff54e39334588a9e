// Tokens sent to wear the verifier down or to pass as someone: forged `kid`s against an issuer whose
// key set fails (fetched at most once per cooldown, answered or not, shared by concurrent callers),
// tokens that name no subject, and tokens issued in the future.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { McpTokenVerifier } from "effect-surface/mcp"
import * as AuthIssuer from "./authIssuer.ts"
import { modernRequest, serveBehind } from "./authServed.ts"

const whoami = { name: "whoami", arguments: {} }

describe("the key set while the issuer's key-set endpoint fails", () => {
  it.live(
    "fifty forged kids after the cooldown ask a failing key-set endpoint once, not fifty times",
    () =>
      Effect.gen(function*() {
        const issuer = yield* AuthIssuer.start()
        const served = yield* serveBehind(
          McpTokenVerifier.layerJwt({ issuer: issuer.issuer, refetchCooldown: "1 second" })
        )
        const token = `Bearer ${yield* Effect.promise(() => issuer.sign({ aud: served.url }))}`
        assert.strictEqual((yield* modernRequest(served.url, token, "tools/list")).status, 200)
        assert.strictEqual(issuer.jwksFetches(), 1)
        issuer.answerJwks(503)
        yield* Effect.sleep("1100 millis")
        const forged = (yield* Effect.promise(() => issuer.hostile(served.url)))["unknownKid"] ?? ""
        const burst = yield* Effect.forEach(
          Array.from({ length: 25 }, () => forged),
          (header) => modernRequest(served.url, header, "tools/call", whoami),
          { concurrency: "unbounded" }
        )
        for (let i = 0; i < 25; i++) burst.push(yield* modernRequest(served.url, forged, "tools/call", whoami))
        for (const answered of burst) assert.oneOf(answered.status, [401, 503])
        assert.strictEqual(issuer.jwksFetches(), 2)
        // The token already verified is still taken; nothing ran for a forged one.
        assert.strictEqual((yield* modernRequest(served.url, token, "tools/list")).status, 200)
        assert.strictEqual(served.runs.count, 0)
        yield* Effect.sleep("1100 millis")
        assert.oneOf((yield* modernRequest(served.url, forged, "tools/list")).status, [401, 503])
        assert.strictEqual(issuer.jwksFetches(), 3)
      }),
    { timeout: 30_000 }
  )

  it.effect(
    "a failing key set is asked at most once per refetchCooldown, whether unread, aged or missing a kid, and concurrent checks share the one fetch (under the TestClock)",
    () =>
      Effect.gen(function*() {
        const issuer = yield* AuthIssuer.start()
        const verifier = yield* McpTokenVerifier.makeJwt({
          issuer: issuer.issuer,
          refetchCooldown: "10 seconds",
          keysMaxAge: "1 minute",
          verifiedFor: 0
        })
        // The TestClock starts at the epoch: the tokens are issued then and live an hour.
        const sign = () => Effect.promise(() => issuer.sign({ aud: "urn:test", iat: 0, exp: 3600 }))
        const burst = (token: string) =>
          Effect.forEach(
            Array.from({ length: 20 }, () => token),
            (t) => Effect.flip(verifier.verify(t, "urn:test")),
            { concurrency: "unbounded" }
          )
        issuer.answerJwks(503)
        const token = yield* sign()
        // Never read: the first burst shares one attempt, the failure then answered from memory.
        for (const refused of yield* burst(token)) assert.strictEqual(refused._tag, "VerifierUnavailable")
        assert.strictEqual(issuer.jwksFetches(), 1)
        yield* TestClock.adjust("9 seconds")
        yield* burst(token)
        assert.strictEqual(issuer.jwksFetches(), 1)
        issuer.answerJwks(200)
        yield* TestClock.adjust("1 second")
        assert.strictEqual((yield* verifier.verify(token, "urn:test")).subject, "ada")
        assert.strictEqual(issuer.jwksFetches(), 2)
        // A forged kid within the cooldown of that fetch asks nothing.
        const forged = (yield* Effect.promise(() => issuer.hostile("urn:test")))["unknownKid"]!.slice(7)
        for (const refused of yield* burst(forged)) assert.strictEqual(refused._tag, "InvalidToken")
        assert.strictEqual(issuer.jwksFetches(), 2)
        // After the cooldown, against a failing endpoint: one attempt for the whole burst and the next.
        issuer.answerJwks(503)
        yield* TestClock.adjust("10 seconds")
        yield* burst(forged)
        yield* burst(forged)
        assert.strictEqual(issuer.jwksFetches(), 3)
        // Keys aged past keysMaxAge are not trusted; their refetch is bounded alike.
        yield* TestClock.adjust("1 minute")
        for (const refused of yield* burst(token)) assert.strictEqual(refused._tag, "VerifierUnavailable")
        assert.strictEqual(issuer.jwksFetches(), 4)
        issuer.answerJwks(200)
        yield* TestClock.adjust("10 seconds")
        assert.strictEqual((yield* verifier.verify(token, "urn:test")).subject, "ada")
        assert.strictEqual(issuer.jwksFetches(), 5)
      })
  )
})
