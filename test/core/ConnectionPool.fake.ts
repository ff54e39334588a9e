/**
 * A fake daemon for the ConnectionPool tests: dialled over a pretend socket, it counts dials,
 * disposes and calls, can be killed per connection, and can misbehave while being dialled.
 */
import { assert } from "@effect/vitest"
import { Deferred, type Duration, Effect, Exit, Ref, type Scope } from "effect"
import type * as ConnectionPool from "../../src/core/ConnectionPool.ts"
import type * as Owned from "../../src/surface/Owned.ts"
import { LinkError } from "../../src/surface/LinkError.ts"

export interface Client {
  readonly id: number
  /** Answers `#id` while its transport is up; once it is down, fails the way a socket client does. */
  readonly call: Effect.Effect<string, LinkError>
}

interface Transport {
  readonly id: number
  readonly alive: Ref.Ref<boolean>
  readonly listener: Deferred.Deferred<() => void>
}

export interface FakeOptions {
  /** Whether the dial projects its transport's close (default true). */
  readonly announce?: boolean
  /** How many first dials announce their close while being registered. */
  readonly bornDead?: number
  /** Announce a born-dead close on a microtask rather than synchronously. */
  readonly microtask?: boolean
  /** How long the dial takes before it opens its socket. */
  readonly delay?: Duration.Input
  /** How long the handshake takes after the socket is open. */
  readonly handshake?: Duration.Input
  /** Register the socket's close in the Scope the pool hands the dial, instead of returning `dispose`. */
  readonly scoped?: boolean
  /** How dial `n` misbehaves once its socket is open: it dies (a defect) or interrupts itself. */
  readonly fault?: ((dial: number) => "die" | "interrupt" | undefined) | undefined
}

/** A daemon reached over a socket: counts dials, disposes and calls, and can be killed per connection. */
export const makeFake = (options: FakeOptions = {}) =>
  Effect.gen(function*() {
    const dials = yield* Ref.make(0)
    const disposes = yield* Ref.make(0)
    const calls = yield* Ref.make(0)
    const transports = yield* Ref.make<ReadonlyArray<Transport>>([])
    const dial: Effect.Effect<Owned.Owned<Client> | Client, never, Scope.Scope> = Effect.gen(function*() {
      if (options.delay !== undefined) yield* Effect.sleep(options.delay)
      const transport: Transport = {
        id: yield* Ref.updateAndGet(dials, (n) => n + 1),
        alive: yield* Ref.make(true),
        listener: yield* Deferred.make<() => void>()
      }
      const id = transport.id
      const close = Effect.andThen(Ref.update(disposes, (n) => n + 1), Ref.set(transport.alive, false))
      if (options.scoped === true) yield* Effect.addFinalizer(() => close)
      yield* Ref.update(transports, (ts) => [...ts, transport])
      const fault = options.fault?.(id)
      if (fault === "die") return yield* Effect.die(new Error(`dial #${id} crashed`))
      if (fault === "interrupt") return yield* Effect.interrupt
      if (options.handshake !== undefined) yield* Effect.sleep(options.handshake)
      const bornDead = id <= (options.bornDead ?? 0)
      const client: Client = {
        id,
        call: Effect.gen(function*() {
          yield* Ref.update(calls, (n) => n + 1)
          if (!(yield* Ref.get(transport.alive)))
            return yield* new LinkError({ phase: "call", reason: "socket closed" })
          return `#${id}`
        })
      }
      if (options.scoped === true) return client
      const onClose = (listener: () => void) => {
        Deferred.doneUnsafe(transport.listener, Exit.succeed(listener))
        if (bornDead && options.microtask === true) queueMicrotask(listener)
        else if (bornDead) listener()
      }
      return { client, dispose: close, ...(options.announce === false ? {} : { onClose }) }
    })
    const transport = (id: number) =>
      Effect.flatMap(Ref.get(transports), (ts) => Effect.fromNullishOr(ts.find((t) => t.id === id))).pipe(Effect.orDie)
    /** The daemon behind connection `id` goes away; with `announce`, its transport says so. */
    const kill = (id: number, announce = true) =>
      Effect.gen(function*() {
        const t = yield* transport(id)
        yield* Ref.set(t.alive, false)
        if (announce) (yield* Deferred.await(t.listener))()
      })
    return {
      dial,
      kill,
      dials: Ref.get(dials),
      disposes: Ref.get(disposes),
      calls: Ref.get(calls)
    }
  })

/** The request every test sends. */
export const call = (client: Client) => client.call

/** Closes the pool and checks what every test ends on: each connection opened was disposed. */
export const closesClean = (pool: ConnectionPool.Pool<Client>, fake: Effect.Success<ReturnType<typeof makeFake>>) =>
  Effect.gen(function*() {
    yield* pool.close
    assert.strictEqual(yield* fake.disposes, yield* fake.dials, "every connection opened is disposed")
  })

/** Lets forked fibers and the pool's close drainer run without moving the clock. */
export const settle = Effect.repeat(Effect.yieldNow, { times: 20 })
