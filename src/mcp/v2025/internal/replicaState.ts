/**
 * What the parts of an instance sharing sessions on Redis have in common: its configuration, what
 * the session table lends it, the replicas it serves and the acknowledgements it awaits from the
 * other instances. Declared apart so the instance (`replicas.ts`) and a replica's life
 * (`replicaSession.ts`) both stand on it without importing each other.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Crypto from "node:crypto"
import type * as EventStoreRedis from "../EventStoreRedis.ts"
import type * as SessionOpen from "./sessionOpen.ts"
import type * as Bus from "./redisBus.ts"
import type * as Registry from "./redisSessions.ts"
import type * as ReplicaTail from "./replicaTail.ts"
import type * as ReplicaTransport from "./replicaTransport.ts"

/** How the instance shares its sessions: where in Redis, how often it beats, how long it waits. */
export interface Config {
  readonly prefix: string
  readonly heartbeat: Duration.Duration
  readonly timeout: Duration.Duration
  readonly idleTimeout: Duration.Duration
  readonly maxSubscriptions: number
  readonly retryInterval: number | undefined
  readonly events: EventStoreRedis.Options
}

/** What the session table lends the instance. */
export interface Hooks {
  /** End this instance's replica of a session. */
  readonly end: (id: string) => Effect.Effect<void>
  /** The sessions whose replicas here have a response open now. */
  readonly inUse: () => ReadonlyArray<string>
}

/** One session served here: its SDK session, its holder, its routed transport, and whether it leads. */
export interface Replica {
  readonly session: SessionOpen.Opened
  /** Who the session belongs to: what Redis is asked for it by. */
  readonly holder: string | undefined
  readonly routed: ReplicaTransport.Routed
  leads: boolean
  /** Whether Redis has the session yet: one being opened here is not beaten for until it has. */
  registered: boolean
}

/** The instance's state, shared by its parts. */
export interface State {
  readonly config: Config
  readonly instance: string
  readonly registry: Registry.Registry
  readonly bus: Bus.Bus
  readonly tailable: EventStoreRedis.Tailable
  readonly tails: ReplicaTail.Tails
  readonly replicas: Map<string, Replica>
  readonly active: Set<string>
  /** What this instance awaits from the others, by token. */
  readonly acks: Map<string, Awaited>
  readonly hooks: Hooks
  readonly fork: <A, E>(effect: Effect.Effect<A, E>) => void
  /** Set once the instance is leaving: it beats no more. */
  leaving: boolean
}

/** A fresh random token: what an acknowledgement answers to, or a replica's name on the bus. */
export const token = () => Crypto.randomBytes(9).toString("base64url")

/**
 * Acknowledgements awaited under one token: done once `expected` have come (it may be learnt after
 * some already have).
 */
export interface Awaited {
  readonly done: Deferred.Deferred<void>
  received: number
  expected: number
}

/** Await `expected` acknowledgements under a fresh token. */
export const awaiting = (state: State, expected: number): { readonly ack: string; readonly awaited: Awaited } => {
  const ack = token()
  const awaited: Awaited = { done: Deferred.makeUnsafe<void>(), received: 0, expected }
  state.acks.set(ack, awaited)
  return { ack, awaited }
}

/** Done once every acknowledgement expected has come. */
export const settleAck = (awaited: Awaited) => {
  if (awaited.received >= awaited.expected) Deferred.doneUnsafe(awaited.done, Effect.void)
}
