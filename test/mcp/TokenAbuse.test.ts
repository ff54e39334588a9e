// Tokens sent to wear the verifier down or to pass as someone: forged `kid`s against an issuer whose
// key set fails (fetched at most once per cooldown, answered or not, shared by concurrent callers),
// tokens that name no subject, and tokens issued in the future.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { McpAuth, McpTokenVerifier } from "effect-surface/mcp"
import { serve } from "../../examples/conformance-server/main.ts"
import * as AuthIssuer from "./authIssuer.ts"
import * as Introspection from "./introspectionIssuer.ts"
import { legacyInitialize, modernRequest, resultOf, serveBehind } from "./authServed.ts"

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

// The conformance server (its tasks kept per subject) behind the JWT verifier of `issuer`.
const tasksBehind = (issuer: string) =>
  Effect.flatMap(
    Layer.build(McpAuth.layer().pipe(Layer.provide(McpTokenVerifier.layerJwt({ issuer })))),
    (context) => Effect.provide(serve(0), context)
  )

const follows = { extensions: { "io.modelcontextprotocol/tasks": {} } }

describe("whom a token names", () => {
  it.live(
    "a token with no sub is refused 401 in both eras: one carrying client_id ada cannot read ada's task, and two naming no one share nothing",
    () =>
      Effect.gen(function*() {
        const issuer = yield* AuthIssuer.start()
        const served = yield* tasksBehind(issuer.issuer)
        const sign = (claims: Record<string, unknown>) =>
          Effect.map(Effect.promise(() => issuer.sign({ aud: served.url, ...claims })), (t) => `Bearer ${t}`)
        const ada = yield* sign({ sub: "ada" })
        const started = resultOf(
          yield* modernRequest(served.url, ada, "tools/call", {
            name: "slow_compute",
            arguments: { seconds: 60, label: "ada's" }
          }, follows)
        )
        assert.strictEqual(started?.result?.["resultType"], "task", JSON.stringify(started))
        const taskId = String(started?.result?.["taskId"])
        const posing = yield* sign({ sub: undefined, client_id: "ada" })
        const read = yield* modernRequest(served.url, posing, "tasks/get", { taskId }, follows)
        assert.strictEqual(read.status, 401, JSON.stringify(read.messages))
        assert.include(read.challenge ?? "", "invalid_token")
        assert.strictEqual((yield* legacyInitialize(served.url, posing)).status, 401)
        // Two tokens naming neither a subject nor a client: neither may start a task the other could read.
        for (const claims of [{ sub: undefined, client_id: undefined }, { sub: "", client_id: "" }]) {
          const nobody = yield* sign(claims)
          const answered = yield* modernRequest(served.url, nobody, "tools/call", {
            name: "slow_compute",
            arguments: { seconds: 60, label: "nobody's" }
          }, follows)
          assert.strictEqual(answered.status, 401, JSON.stringify(answered.messages))
          assert.strictEqual((yield* legacyInitialize(served.url, nobody)).status, 401)
        }
        // Ada herself still reads her task.
        const own = resultOf(yield* modernRequest(served.url, ada, "tasks/get", { taskId }, follows))
        assert.strictEqual(own?.result?.["taskId"], taskId, JSON.stringify(own))
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )

  it.live("a token issued a year from now is refused 401 in both eras; one issued within the clock skew is served", () =>
    Effect.gen(function*() {
      const issuer = yield* AuthIssuer.start()
      const served = yield* serveBehind(McpTokenVerifier.layerJwt({ issuer: issuer.issuer, clockSkew: "30 seconds" }))
      const now = Math.floor(Date.now() / 1000)
      const later = `Bearer ${yield* Effect.promise(() =>
        issuer.sign({ aud: served.url, iat: now + 365 * 86_400, exp: now + 366 * 86_400 })
      )}`
      const answered = yield* modernRequest(served.url, later, "tools/call", whoami)
      assert.strictEqual(answered.status, 401)
      assert.include(answered.challenge ?? "", "invalid_token")
      assert.strictEqual((yield* legacyInitialize(served.url, later)).status, 401)
      const skewed = `Bearer ${yield* Effect.promise(() => issuer.sign({ aud: served.url, iat: now + 10 }))}`
      assert.strictEqual((yield* modernRequest(served.url, skewed, "tools/call", whoami)).status, 200)
      assert.strictEqual(served.runs.count, 1)
    }))

  it.live("an introspection answer with no sub, or issued a year from now, is refused 401 in both eras", () =>
    Effect.gen(function*() {
      const introspector = yield* Introspection.start()
      const served = yield* serveBehind(McpTokenVerifier.layerIntrospection({
        issuer: introspector.issuer,
        endpoint: introspector.endpoint,
        clientId: "board-rs",
        clientSecret: "secret"
      }))
      const now = Math.floor(Date.now() / 1000)
      const base = { active: true, aud: served.url, scope: "board:read", exp: now + 600 }
      introspector.answers.set("ada", { ...base, sub: "ada" })
      introspector.answers.set("posing", { ...base, client_id: "ada" })
      introspector.answers.set("nobody", base)
      introspector.answers.set("later", { ...base, sub: "ada", iat: now + 365 * 86_400 })
      for (const token of ["posing", "nobody", "later"]) {
        const answered = yield* modernRequest(served.url, `Bearer ${token}`, "tools/call", whoami)
        assert.strictEqual(answered.status, 401, token)
        assert.strictEqual((yield* legacyInitialize(served.url, `Bearer ${token}`)).status, 401, token)
      }
      assert.strictEqual(served.runs.count, 0)
      assert.strictEqual((yield* modernRequest(served.url, "Bearer ada", "tools/call", whoami)).status, 200)
    }))
})
