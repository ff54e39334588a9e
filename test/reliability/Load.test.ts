// Load over Streamable HTTP: N SDK-client sessions × M tool calls each, every session subscribed to
// two cells while the calls run, one of them changed K times by a driver session.
//
// What a subscribed session is owed. A session whose subscription is live — it has already received
// an update for the URI on its own stream, which the warm-up below waits for — is owed, for every
// change to the cell that is followed by a quiet gap longer than the coalescing window, one
// `notifications/resources/updated` sent after that change. So K changes, each followed by such a
// gap, owe it at least K notifications (changes closer together may be coalesced into one; that is
// the point of the window), and the last notification it receives comes after the last change, so
// the session re-reading the resource once the notifications have stopped reads the final state.
//
// And: zero JSON-RPC errors across all calls, and once every session has ended (DELETE), no session,
// subscription or heap growth is left behind (heap measured after forced collections).
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Result } from "effect"
import { McpHttp } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"
import { callTool, connectHttp, type HttpClient } from "./http.ts"
import { eventually, quiet, settledHeap } from "./resources.ts"
import { sized } from "./sizes.ts"

const sessions = sized(10, 50)
const callsPerSession = sized(100, 1_000)
const changes = sized(5, 20)
/** Calls each session keeps in flight at once. */
const inFlight = 4
const coalesce = Duration.millis(50)
/** The quiet gap after each change: several coalescing windows, so none is merged with the next. */
const gap = Duration.millis(sized(200, 250))

const focus = "surface://cells/focus"
const laps = "surface://cells/stopwatch/laps"

/** The calls a session makes, in turn: a mutation of the other subscribed cell, a read, a refusal. */
const workload = (i: number): readonly [string, Record<string, unknown>] =>
  i % 3 === 0 ? ["stopwatch_watch_lap", {}]
    : i % 3 === 1 ? ["tasks_open", {}] : ["tasks_require", { id: `missing-${i}` }]

const readFocus = (c: HttpClient) =>
  Effect.promise(() => c.client.readResource({ uri: focus })).pipe(
    Effect.map((read) => {
      const first = read.contents[0]
      return first !== undefined && "text" in first ? JSON.parse(first.text) as unknown : undefined
    })
  )

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(2)} MiB`

describe("Streamable HTTP under load", () => {
  it.live(
    `${sessions} sessions × ${callsPerSession} calls with subscriptions active: no protocol error, every subscriber gets each of ${changes} spaced changes, and sessions, subscriptions and heap return to baseline once they close`,
    () =>
      Effect.gen(function*() {
        const served = yield* McpHttp.serve({ ...(yield* serverOptions), coalesce, http: { port: 0 } })
        const driver = yield* connectHttp(served.url, "driver")
        const setFocus = (value: string) =>
          Effect.flatMap(callTool(driver.client, "board_focus", { value }), (r) =>
            Effect.sync(() =>
              assert.isTrue(Result.isSuccess(r) && r.success.isError === undefined, `board_focus: ${JSON.stringify(r)}`)
            ))

        /** One round: N sessions subscribe, take `calls` calls each while the cell changes `k` times, re-read, and close. */
        const round = (label: string, calls: number, k: number) =>
          Effect.scoped(Effect.gen(function*() {
            const clients = yield* Effect.all(
              Array.from({ length: sessions }, (_, i) =>
                connectHttp(served.url, `${label}-${i}`)),
              { concurrency: 8 }
            )
            for (const c of clients) {
              yield* Effect.promise(() =>
                c.client.subscribeResource({ uri: focus })
              )
              yield* Effect.promise(() => c.client.subscribeResource({ uri: laps }))
            }
            const watching = yield* served.face.watching

            // Each client opens its GET stream on its own schedule, and an update sent before it is
            // open has nowhere to go: change the cell until every session has heard it (bounded).
            for (let r = 0; r < 100 && clients.some((c) => (c.updates.get(focus) ?? 0) === 0); r++) {
              yield* setFocus(`${label} warm-up ${r}`)
              yield* Effect.sleep("60 millis")
            }
            const deaf = clients.filter((c) => (c.updates.get(focus) ?? 0) === 0).map((c) => c.sessionId)
            yield* Effect.sleep(gap)
            const heardBefore = clients.map((c) => c.updates.get(focus) ?? 0)

            // The load, and K spaced changes made while it runs.
            const protocolErrors: Array<string> = []
            const unexpected: Array<string> = []
            const load = yield* Effect.forEach(clients, (c) =>
              Effect.forEach(
                Array.from({ length: calls }, (_, i) => i),
                (i) => {
                  const [tool, args] = workload(i)
                  return Effect.map(callTool(c.client, tool, args), (r) => {
                    if (Result.isFailure(r)) protocolErrors.push(`${tool}: ${String(r.failure)}`)
                    // tasks_require refuses (isError) by design; the others must succeed.
                    else if ((r.success.isError === true) !== (tool === "tasks_require"))
                      unexpected.push(`${tool}: ${JSON.stringify(r.success).slice(0, 200)}`)
                  })
                },
                { concurrency: inFlight, discard: true }
              ), { concurrency: "unbounded", discard: true }).pipe(Effect.forkChild)
            for (let change = 1; change <= k; change++) {
              yield* setFocus(`${label} change ${change}`)
              yield* Effect.sleep(gap)
            }
            yield* Fiber.join(load)

            // Wait (bounded) for stragglers, then re-read after the last notification.
            const owed = (c: HttpClient, i: number) => (c.updates.get(focus) ?? 0) - (heardBefore[i] ?? 0) >= k
            yield* eventually(Effect.sync(() => clients.every(owed)), (all) => all, 200, "25 millis")
            const heard = clients.map((c, i) => (c.updates.get(focus) ?? 0) - (heardBefore[i] ?? 0))
            const finals = yield* Effect.forEach(clients, readFocus, { concurrency: 8 })
            const lapsHeard = clients.map((c) => c.updates.get(laps) ?? 0)
            // What the open sessions hold — both ends of them: this process hosts the clients too.
            const heapOpen = yield* settledHeap

            for (const c of clients) yield* c.close
            return {
              watching,
              deaf,
              protocolErrors,
              unexpected,
              heard,
              finals,
              lapsHeard,
              heapOpen,
              final: `${label} change ${k}`
            }
          }))

        /** Every session of a round has ended, and with it every subscription. */
        const settledAfterRound = Effect.gen(function*() {
          assert.deepStrictEqual(yield* eventually(served.sessions, (ids) => ids.length === 1), [driver.sessionId])
          assert.strictEqual(yield* eventually(served.face.watching, (n) => n === 0), 0)
        })

        // A warm-up round of the same shape (at most 100 calls each, two changes), so the baseline already holds
        // what a server that has served this many sessions holds: compiled code, caches, pools.
        yield* round("warm-up", Math.min(callsPerSession, 100), 2)
        yield* settledAfterRound
        const heapBefore = yield* settledHeap

        const outcome = yield* round("load", callsPerSession, changes)
        // Two URIs, each followed once however many sessions hold it.
        assert.strictEqual(outcome.watching, 2)
        assert.deepStrictEqual(outcome.deaf, [], "sessions that never heard an update")
        assert.deepStrictEqual(
          outcome.protocolErrors.slice(0, 5),
          [],
          `${outcome.protocolErrors.length} protocol errors`
        )
        assert.deepStrictEqual(outcome.unexpected.slice(0, 5), [])
        for (const [i, n] of outcome.heard.entries())
          assert.isAtLeast(n, changes, `session ${i} heard ${n} of ${changes} spaced changes`)
        for (const value of outcome.finals)
          assert.strictEqual(value, outcome.final)
        // The busy cell was announced to every session too (coalesced: far fewer times than it changed).
        for (const n of outcome.lapsHeard)
          assert.isAbove(n, 0)

        // Everything of the sessions is gone: the table, the subscriptions, and the heap they used.
        yield* settledAfterRound
        const heapAfter = yield* settledHeap
        // Self-calibrating: what the sessions held while open (heapOpen − heapBefore) must be given
        // back once they close. A session leaked whole (its SDK server, transport, event store,
        // fibers, and the client's end) keeps ~100% of it; allocator and compilation noise keeps a few
        // percent. The bound is a third of it, with a 1 MiB floor for tiny runs.
        const held = outcome.heapOpen - heapBefore
        const retained = heapAfter - heapBefore
        assert.isBelow(
          retained,
          Math.max(held / 3, 1024 * 1024),
          `after ${sessions} sessions closed the heap kept ${mib(retained)} of the ${mib(held)} they held open ` +
            `(before ${mib(heapBefore)}, open ${mib(outcome.heapOpen)}, after ${mib(heapAfter)})`
        )
      }).pipe(Effect.provide(quiet)),
    { timeout: sized(45_000, 400_000) }
  )
})
