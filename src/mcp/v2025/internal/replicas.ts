/**
 * One instance among several serving the same sessions, on Redis: what it does so that any of them
 * can serve any request of any session.
 *
 * A session opened here is registered (`redisSessions`); one another instance opened is served by
 * a *replica* — an SDK server and transport of its own, initialised by replaying the session's
 * `initialize`, restored at the host's log level. Exactly one instance leads each session: it
 * follows the host's subscriptions and announces roster moves, so the host hears each change
 * once, and events it writes to the standalone stream reach whichever instance serves the host's
 * GET (`replicaTail`). A subscribe that lands elsewhere is recorded in Redis and handed to the
 * leader, answered once the leader says it is live. A session whose leader has gone (its beat
 * stopped) is claimed by the next instance that serves it, which tells the host to re-read every
 * subscribed URI and every list, since changes in between went unobserved. Replicas are a cache:
 * each is bounded and evicted like any session here, and the session lives on in Redis until it
 * is deleted or idle everywhere.
 *
 * @since 0.1.0
 */
import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import type * as Redis from "effect/persistence/Redis"
import * as Crypto from "node:crypto"
import type * as EventStore from "../EventStore.ts"
import * as EventStoreRedis from "../EventStoreRedis.ts"
import type * as HttpChecks from "../../transport/HttpChecks.ts"
import type * as Logging from "../../face/Logging.ts"
import * as Bus from "./redisBus.ts"
import * as Registry from "./redisSessions.ts"
import { claim, type Connect, connect, led, takeOver } from "./replicaSession.ts"
import { awaiting, type Config, type Hooks, settleAck, type State } from "./replicaState.ts"
import * as ReplicaTail from "./replicaTail.ts"

export type { Config, Hooks } from "./replicaState.ts"

/** This instance's part in the shared sessions. */
export interface Node {
  readonly instance: string
  readonly store: EventStore.EventStore["Service"]
  /** The session, for its holder only (see `Registry.find`). */
  readonly find: (
    id: string,
    holder: string | undefined
  ) => Effect.Effect<Option.Option<Registry.Record>, Registry.Failed>
  readonly register: (
    id: string,
    initialize: unknown,
    version: string,
    level: Logging.Level,
    holder: string | undefined
  ) => Effect.Effect<void, Registry.Failed>
  /** Serve a session here, opened here or elsewhere (see `Connect`). */
  readonly connect: Connect
  /** The session was used here since the last beat. */
  readonly touch: (id: string) => void
  readonly leads: (id: string) => boolean
  /** The host deleted the session: it ends everywhere. */
  readonly deleted: (id: string) => Effect.Effect<void>
  /** Answer a GET of a session served here. */
  readonly openTail: (
    id: string,
    headers: Readonly<Record<string, string | undefined>>,
    version: string | undefined
  ) => Effect.Effect<Response, HttpChecks.Refusal>
  /** Stop leading anything and say this instance is gone (the server is stopping). */
  readonly leave: Effect.Effect<void>
}

/** Join the instances sharing `config.prefix` for the scope's life. */
export const make = (config: Config, hooks: Hooks): Effect.Effect<Node, never, Scope.Scope | Redis.Redis> =>
  Effect.gen(function*() {
    const instance = Crypto.randomBytes(8).toString("hex")
    const registry = yield* Registry.make({ ...config, instance })
    const tailable = yield* EventStoreRedis.makeTailable({
      ...config.events,
      prefix: `${config.prefix}e:`,
      timeToLive: config.idleTimeout,
      timeout: config.timeout
    })
    const runFork = Effect.runForkWith(yield* Effect.context<never>())
    const fork = <A, E>(effect: Effect.Effect<A, E>) => {
      runFork(Effect.catchCause(effect, (cause) => Effect.logWarning("MCP shared session step failed", cause)))
    }
    // Filled once the bus is listening; its handler reads the state then.
    const holder: { state?: State } = {}
    const bus = yield* Bus.make(
      { ...config, instance },
      (message) => holder.state === undefined ? Effect.void : handle(holder.state, message)
    )
    const tails = ReplicaTail.make({
      tailable,
      inbox: bus.inbox,
      instanceOfInbox: (channel) =>
        channel.startsWith(`${config.prefix}inbox:`) ? channel.slice(`${config.prefix}inbox:`.length) : undefined,
      superseded: (other, session, stream) =>
        Effect.ignore(bus.send(other, { kind: "superseded", session, stream, holder: bus.inbox })),
      retryInterval: config.retryInterval,
      keepAlive: Duration.seconds(15),
      runFork
    })
    const state: State = {
      config,
      instance,
      registry,
      bus,
      tailable,
      tails,
      replicas: new Map(),
      active: new Set(),
      acks: new Map(),
      hooks,
      fork,
      leaving: false
    }
    holder.state = state
    // Alive before the first session is registered as led here.
    yield* Effect.catch(
      registry.beat([], []),
      (error) => Effect.logWarning(`MCP instance not yet known to the others: ${error.message}`)
    )
    yield* reported(beat(state), yield* Ref.make(false)).pipe(
      Effect.repeat(Schedule.spaced(config.heartbeat)),
      Effect.forkScoped
    )
    return {
      instance,
      store: tailable.store,
      find: registry.find,
      register: (id, initialize, version, level, holder) =>
        Effect.tap(registry.register(id, initialize, version, level, holder), () =>
          Effect.sync(() => {
            const replica = state.replicas.get(id)
            if (replica !== undefined) replica.registered = true
          })),
      connect: connect(state),
      touch: (id) => {
        state.active.add(id)
      },
      leads: (id) => state.replicas.get(id)?.leads === true,
      deleted: (id) => deleted(state, id),
      openTail: (id, headers, version) =>
        Effect.tap(tails.open({ session: id, headers, version }), () => Effect.sync(() => fork(claim(state, id)))),
      leave: Effect.suspend(() => {
        state.leaving = true
        return Effect.ignore(registry.release(led(state), true))
      })
    } satisfies Node
  })

// Gone from Redis first, so no instance restores it again; then every instance listening ends its
// replica and says so before the DELETE is answered, so no request after the answer is served
// anywhere. An instance silent for the whole timeout is not waited for longer, and said to be so
// in the log: one that missed the message ends its replica only once a beat finds the session gone.
const deleted = (state: State, id: string) =>
  Effect.gen(function*() {
    yield* state.registry.remove(id)
    const { ack, awaited } = awaiting(state, Number.POSITIVE_INFINITY)
    yield* Effect.gen(function*() {
      const reached = yield* state.bus.broadcast({ kind: "ended", session: id, from: state.instance, token: ack })
      awaited.expected = reached - 1
      settleAck(awaited)
      const all = yield* Effect.timeoutOption(Deferred.await(awaited.done), state.config.timeout)
      if (Option.isNone(all)) {
        yield* Effect.logWarning(
          `MCP session deleted: ${awaited.received} of ${awaited.expected} other instances said they ended it in time`
        )
      }
    }).pipe(Effect.ensuring(Effect.sync(() => state.acks.delete(ack))))
    yield* state.tailable.store.forget(id)
  }).pipe(
    Effect.catch((error) => Effect.logWarning(`MCP session deleted here, not yet everywhere: ${error.message}`))
  )

// Say this instance lives, keep what it served alive, and act on what the registry says.
const beat = (state: State) =>
  Effect.gen(function*() {
    if (state.leaving) return
    const active = [...new Set([...state.active, ...state.hooks.inUse(), ...state.tails.sessions()])].filter((id) =>
      state.replicas.get(id)?.registered === true
    )
    state.active.clear()
    const said = yield* state.registry.beat(active, led(state))
    for (const id of said.gone) {
      yield* state.hooks.end(id)
      yield* Effect.ignore(state.tailable.store.forget(id))
    }
    for (const id of said.lost) {
      const replica = state.replicas.get(id)
      if (replica === undefined) continue
      replica.leads = false
      yield* replica.session.lead(false)
    }
    yield* Effect.forEach(said.claimed, (id) => takeOver(state, id), { discard: true })
  })

// While Redis is away every beat fails: that is said once when it goes and once when it is back,
// not at every beat.
const reported = <E extends { readonly message: string }>(beating: Effect.Effect<void, E>, away: Ref.Ref<boolean>) =>
  beating.pipe(
    Effect.tap(() =>
      Effect.flatMap(
        Ref.getAndSet(away, false),
        (was) =>
          was ? Effect.logInfo("MCP sessions in Redis: Redis is back, and this instance beats again")
            : Effect.void
      )
    ),
    Effect.catch((error) =>
      Effect.flatMap(Ref.getAndSet(away, true), (was) =>
        was ? Effect.void : Effect.logWarning(
          `MCP sessions in Redis: a beat failed (${error.message}); requests that need Redis are answered 503 ` +
            "until it is back, which is said once it is"
        ))
    )
  )

const handle = (state: State, message: Bus.Message): Effect.Effect<void> => {
  switch (message.kind) {
    case "event":
      return Effect.sync(() => state.tails.deliver(message))
    case "answer":
    case "cancelled": {
      if (message.kind === "cancelled" && message.from === state.instance) return Effect.void
      const parsed = JSONRPCMessageSchema.safeParse(message.message)
      const replica = state.replicas.get(message.session)
      if (!parsed.success) return Effect.logWarning(`MCP bus: a forwarded ${message.kind} is no JSON-RPC message`)
      return Effect.sync(() => replica?.routed.inject(parsed.data))
    }
    case "ended": {
      const { from, token } = message
      return from === state.instance ? Effect.void : Effect.andThen(
        state.hooks.end(message.session),
        Effect.sync(() => token === undefined ? undefined : state.fork(state.bus.send(from, { kind: "live", token })))
      )
    }
    case "level": {
      const replica = state.replicas.get(message.session)
      return message.from === state.instance || replica === undefined ? Effect.void
        : replica.session.setLogLevel(message.level)
    }
    case "follow": {
      const replica = state.replicas.get(message.session)
      const following = replica?.leads === true ? Effect.ignore(replica.session.follow(message.uri)) : Effect.void
      return Effect.sync(() =>
        state.fork(Effect.andThen(following, state.bus.send(message.reply, { kind: "live", token: message.token })))
      )
    }
    case "unfollow": {
      const replica = state.replicas.get(message.session)
      return replica?.leads === true ? replica.session.unfollow(message.uri) : Effect.void
    }
    case "live":
      return Effect.sync(() => {
        const awaited = state.acks.get(message.token)
        if (awaited === undefined) return
        awaited.received++
        settleAck(awaited)
      })
    case "superseded":
      return Effect.sync(() => state.tails.supersede(message.session, message.stream))
  }
}
