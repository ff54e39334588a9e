// Admission under maxRequestsInFlight, driven over real loopback HTTP: behind a resource server a
// request is admitted before its token is checked, so a crowd of requests with tokens nobody has
// checked never has more checks under way than the bound (in both eras); and a 2025 batch is
// admitted as the requests it carries, or refused whole, none of them run.
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Schedule } from "effect"
import { Identity, Tools } from "effect-surface"
import { McpAuth, McpHttp, McpTokenVerifier } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import { initialize, post, rawSession, text } from "./httpRaw.ts"
import { envelope } from "./modern.ts"

/** A verifier that holds every check until `gate` opens, counting the checks under way. */
const heldVerifier = (gate: Deferred.Deferred<void>) => {
  const checks = { now: 0, peak: 0, total: 0 }
  const layer = Layer.succeed(
    McpTokenVerifier.TokenVerifier,
    McpTokenVerifier.TokenVerifier.of({
      issuer: "https://auth.test",
      verify: () =>
        Effect.sync(() => {
          checks.now++
          checks.total++
          checks.peak = Math.max(checks.peak, checks.now)
        }).pipe(
          Effect.andThen(Deferred.await(gate)),
          Effect.as(Identity.token({ subject: "ada", clientId: "cli", scopes: ["board:read"] })),
          Effect.ensuring(Effect.sync(() => checks.now--))
        )
    })
  )
  return { checks, layer }
}

/** Wait (bounded) until `read` satisfies `done`, and answer its last value. */
const eventually = <A>(read: Effect.Effect<A>, done: (a: A) => boolean) =>
  Effect.repeat(read, { until: done, schedule: Schedule.spaced("10 millis"), times: 500 })

interface Answer {
  readonly status: number
  readonly retryAfter: string | null
  readonly text: string
}

// One request of either era with a token nobody has checked yet.
const unchecked = (url: string, n: number) =>
  Effect.promise(async (): Promise<Answer> => {
    const modern = n % 2 === 0
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer token-${n}`,
        ...(modern ? { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" } : {
          "mcp-protocol-version": "2025-11-25"
        })
      },
      body: JSON.stringify(
        modern ? { jsonrpc: "2.0", id: n, method: "tools/list", params: { _meta: envelope({}) } } : initialize
      )
    })
    return { status: response.status, retryAfter: response.headers.get("retry-after"), text: await response.text() }
  })

/** A tool that counts its runs, and one that waits for `gate` once started. */
const tools = (runs: { count: number }, gate: Deferred.Deferred<void>, started: Deferred.Deferred<void>) => ({
  counted: Tools.make({
    description: "Count a run.",
    mutates: false,
    handler: () => Effect.sync(() => ++runs.count)
  }),
  gated: Tools.make({
    description: "Wait to be let through.",
    mutates: false,
    handler: () => Deferred.succeed(started, undefined).pipe(Effect.andThen(Deferred.await(gate)), Effect.as("through"))
  })
})

const call = (id: number, name: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: {} }
})

const batchOf = (ids: ReadonlyArray<number>) => ids.map((id) => call(id, "counted"))

describe("MCP over Streamable HTTP: admission", () => {
  it.live("behind a resource server no more tokens are checked at once than maxRequestsInFlight: the rest are answered 503 before their token is read, in both eras", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const { checks, layer } = heldVerifier(gate)
      const options = yield* serverOptions
      const served = yield* McpHttp.serve({ ...options, http: { port: 0, maxRequestsInFlight: 4 } }).pipe(
        Effect.provide(McpAuth.layer().pipe(Layer.provide(layer)))
      )
      const answers: Array<Answer> = []
      const crowd = yield* Effect.forEach(
        Array.from({ length: 50 }, (_, n) => n),
        (n) => Effect.tap(unchecked(served.url, n), (answer) => Effect.sync(() => answers.push(answer))),
        { concurrency: "unbounded" }
      ).pipe(Effect.forkChild)
      // Every request has either reached the verifier or been answered.
      yield* eventually(Effect.sync(() => checks.total + answers.length), (n) => n >= 50)
      assert.isAtMost(checks.peak, 4)
      assert.strictEqual(checks.total, 4)
      assert.strictEqual(answers.length, 46)
      for (const answer of answers) {
        assert.strictEqual(answer.status, 503)
        assert.strictEqual(answer.retryAfter, "1")
        assert.include(answer.text, "4 requests are in flight; retry shortly")
      }
      yield* Deferred.succeed(gate, undefined)
      const all = yield* Fiber.join(crowd).pipe(Effect.timeout("10 seconds"))
      assert.strictEqual(all.filter((answer) => answer.status === 200).length, 4)
      // The checks the crowd held are given back: a request after it is checked and served.
      assert.strictEqual((yield* unchecked(served.url, 100)).status, 200)
      assert.strictEqual((yield* unchecked(served.url, 101)).status, 200)
      assert.strictEqual(checks.total, 6)
    }))

  it.live("a 2025 batch is admitted as the requests it carries, or refused whole with none of them run", () =>
    Effect.gen(function*() {
      const runs = { count: 0 }
      const gate = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const options = yield* serverOptions
      const served = yield* McpHttp.serve({
        ...options,
        tools: { ...options.tools, ...tools(runs, gate, started) },
        http: { port: 0, maxRequestsInFlight: 4 }
      })
      const session = yield* rawSession(served.url)

      // More requests than are ever served at once: refused, saying so.
      const tooMany = yield* post(served.url, batchOf([1, 2, 3, 4, 5]), session)
      assert.strictEqual(tooMany.status, 503)
      assert.strictEqual(tooMany.headers.get("retry-after"), "1")
      assert.include(yield* text(tooMany), "this batch carries 5 requests, more than the 4 served at once")
      assert.strictEqual(runs.count, 0)

      // As many as are served at once, beside a notification: all answered.
      const fits = yield* post(
        served.url,
        [...batchOf([6, 7, 8, 9]), { jsonrpc: "2.0", method: "notifications/roots/list_changed" }],
        session
      )
      assert.strictEqual(fits.status, 200)
      const answered = yield* text(fits)
      for (const id of [6, 7, 8, 9]) assert.include(answered, `"id":${id}`)
      assert.strictEqual(runs.count, 4)

      // One call in flight: a batch of four no longer fits and none of it runs; one of three does.
      const holding = yield* Effect.flatMap(post(served.url, call(10, "gated"), session), text).pipe(Effect.forkChild)
      yield* Deferred.await(started).pipe(Effect.timeout("5 seconds"))
      const crowded = yield* post(served.url, batchOf([11, 12, 13, 14]), session)
      assert.strictEqual(crowded.status, 503)
      assert.include(yield* text(crowded), "this batch carries 4 requests, more than are free of the 4 served at once")
      assert.strictEqual(runs.count, 4)
      const three = yield* post(served.url, batchOf([15, 16, 17]), session)
      assert.strictEqual(three.status, 200)
      yield* text(three)
      assert.strictEqual(runs.count, 7)
      yield* Deferred.succeed(gate, undefined)
      assert.include(yield* Fiber.join(holding).pipe(Effect.timeout("5 seconds")), "through")

      // With the call answered, four fit again.
      const again = yield* post(served.url, batchOf([18, 19, 20, 21]), session)
      assert.strictEqual(again.status, 200)
      yield* text(again)
      assert.strictEqual(runs.count, 11)
    }))
})
