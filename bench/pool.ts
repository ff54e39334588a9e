// `pool.use` of a trivial call — the pool's share of every `tools/call` — for the shipped pool
// against its peer built on `RcRef`, in this one process, sequential and with 64 in flight, over a
// bare client (how the MCP face dials its bundle) and an owned one announcing its close (how the
// client toolset dials a server, each call raced against that close).
import { Effect, Exit, Schedule, Scope } from "effect"
import * as ConnectionPool from "../src/core/ConnectionPool.ts"
import * as internal from "../src/core/internal/pool.ts"
import { PoolClosed } from "../src/core/internal/poolErrors.ts"
import type * as Owned from "../src/surface/Owned.ts"
import { count, emit, interleave, median, note } from "./lib/measure.ts"
import * as PoolRc from "./lib/rcPool.ts"

interface Client {
  readonly ping: Effect.Effect<number>
}

type Dial = Effect.Effect<Client | Owned.Owned<Client>>
type Pool = Pick<ConnectionPool.Pool<Client>, "use">

const bare: Dial = Effect.succeed({ ping: Effect.succeed(1) })
const owned: Dial = Effect.succeed({ client: { ping: Effect.succeed(1) }, dispose: Effect.void, onClose: () => {} })

// The peer, made as `ConnectionPool.make` makes its own: the same defaults, scope and dial wrapper.
const makeRc = (dial: Dial): Effect.Effect<Pool, never, Scope.Scope> =>
  Effect.gen(function*() {
    const inner = yield* Scope.fork(yield* Effect.scope)
    const pool = yield* PoolRc.make<Client>({
      target: "bench",
      server: "The server",
      maxDials: 3,
      backoff: Schedule.exponential("50 millis"),
      closedError: new PoolClosed({ target: "bench" }),
      inner,
      dial: internal.dialIn(dial, undefined, yield* Effect.context<never>()),
      settle: undefined
    })
    yield* Effect.addFinalizer(() => pool.close)
    return pool
  })

const trivial = (client: Client) => client.ping

// µs per call: `n` calls one after another, or `n` calls with `inFlight` of them running at once.
const timed = (pool: Pool, n: number, inFlight: number): Effect.Effect<number> =>
  Effect.suspend(() => {
    const start = performance.now()
    const calls = inFlight === 1
      ? Effect.gen(function*() {
        for (let i = 0; i < n; i++) yield* pool.use(trivial)
      })
      : Effect.forEach(Array.from({ length: n }), () => pool.use(trivial), { concurrency: inFlight, discard: true })
    return Effect.map(Effect.orDie(calls), () => ((performance.now() - start) * 1000) / n)
  })

const figures = async (label: string, dial: Dial): Promise<void> => {
  const scope = Effect.runSync(Scope.make())
  const run = <A>(effect: Effect.Effect<A, never, Scope.Scope>) => Effect.runPromise(Scope.provide(scope)(effect))
  try {
    const pools = [await run(ConnectionPool.make({ dial })), await run(makeRc(dial))] as const
    const seqCalls = count(20_000, 2_000)
    const parCalls = count(40_000, 4_000)
    const samples = count(15, 3)
    const warmup = count(3, 1)
    for (const pool of pools) await run(timed(pool, count(50_000, 2_000), 16))
    for (const [mode, n, inFlight] of [["sequential", seqCalls, 1], ["inflight64", parCalls, 64]] as const) {
      note(`pool ${label} ${mode}: ${samples} samples × ${n} calls each`)
      const taken = await interleave(pools.map((pool) => () => run(timed(pool, n, inFlight))), { samples, warmup })
      const [ours, peer] = taken.map(median) as [number, number]
      emit({
        bench: `pool.use.${label}.${mode}.vs_rcref`,
        ours,
        peer,
        unit: `µs per call${inFlight === 1 ? "" : " amortized (64 in flight)"}, median`
      })
    }
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

export const run = async (): Promise<void> => {
  await figures("bare", bare)
  await figures("owned_onclose", owned)
}
