/**
 * One session served here as a replica on Redis: connected (from what Redis kept of it when it was
 * opened elsewhere, its `initialize` replayed), its subscriptions and log level kept in Redis and
 * followed by the session's leader, taken over when that leader has gone, and left when it ends
 * here. Apart from `replicas.ts`, which is the instance: its beat, its bus and what it is told.
 *
 * @internal
 */
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as Face from "../../face/Face.ts"
import type * as Logging from "../../face/Logging.ts"
import * as RpcError from "../../face/RpcError.ts"
import * as HttpResponse from "../HttpResponse.ts"
import * as Session from "../Session.ts"
import * as SessionOpen from "./sessionOpen.ts"
import type * as Registry from "./redisSessions.ts"
import { awaiting, type Replica, type State, token } from "./replicaState.ts"
import * as ReplicaTransport from "./replicaTransport.ts"
import * as Web from "./web.ts"

const serviceUnavailable = (error: Registry.Failed) =>
  new RpcError.ProtocolError({ code: -32000, message: `Service Unavailable: ${error.message}` })

/**
 * Serve a session here: opened here (`restored` undefined), or a replica of one opened elsewhere.
 * Its SDK server is connected to `direct`, the SDK's `transport` with the direct road beside it.
 */
export type Connect = (
  face: Face.Face,
  id: string,
  transport: WebStandardStreamableHTTPServerTransport,
  direct: Transport,
  holder: string | undefined,
  restored: Registry.Record | undefined
) => Effect.Effect<SessionOpen.Opened, never, Scope.Scope>

/** How this instance serves a session (see `Connect`). */
export const connect = (state: State): Connect => (face, id, transport, direct, holder, restored) =>
  Effect.gen(function*() {
    const { bus, instance } = state
    // Routed over the direct road: a plain call is answered where it arrived, with nothing in
    // Redis; a request that streams is the SDK transport's, its events stored in Redis.
    const routed = ReplicaTransport.make(direct, instance, token(), {
      answer: (to, message) => state.fork(bus.send(to, { kind: "answer", session: id, message })),
      cancelled: (message) => state.fork(bus.broadcast({ kind: "cancelled", session: id, from: instance, message }))
    })
    const leads = restored === undefined || restored.leads
    const session = yield* SessionOpen.connect(face, routed, {
      leads,
      registry: registryFor(state, id),
      ...(restored === undefined ? {}
        : { restore: { logLevel: restored.level, subscriptions: leads ? restored.subscriptions : [] } })
    })
    const replica: Replica = { session, holder, routed, leads, registered: restored !== undefined }
    state.replicas.set(id, replica)
    // The replica ends here; the session lives on in Redis and at the other instances.
    yield* Effect.addFinalizer(() => left(state, id, replica))
    if (restored !== undefined) {
      yield* replayInitialize(state, id, transport, restored)
      if (restored.leads) yield* announceTakeover(session, restored.subscriptions)
    }
    return session
  })

// The replica initialised as the first one was, by its host's `initialize` (through the
// transport's own door), its answer read to the end and its stored events dropped.
const replayInitialize = (
  state: State,
  id: string,
  transport: WebStandardStreamableHTTPServerTransport,
  restored: Registry.Record
) =>
  Effect.gen(function*() {
    const request = Web.toWebRequest("POST", "http://replica/mcp", {
      accept: "application/json, text/event-stream",
      "content-type": "application/json"
    })
    const body = { jsonrpc: "2.0", id: `${state.instance}~restore`, method: "initialize", params: restored.initialize }
    const text = yield* Effect.promise(() =>
      transport.handleRequest(request, { parsedBody: body }).then((response) => response.text())
    )
    const first = HttpResponse.parseEvents(text).events.find((event) => event.id !== undefined)?.id
    if (first !== undefined) yield* Effect.ignore(state.tailable.store.drop(id, first))
  })

// Changes while nobody led went unobserved: the host re-reads what it follows and every list.
const announceTakeover = (session: SessionOpen.Opened, subscriptions: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const { server } = session
    const send = (notify: () => Promise<void>) => Effect.ignore(Effect.tryPromise(notify))
    yield* Effect.forEach(subscriptions, (uri) => send(() => server.sendResourceUpdated({ uri })), { discard: true })
    yield* send(() => server.sendToolListChanged())
    yield* send(() => server.sendResourceListChanged())
    yield* send(() => server.sendPromptListChanged())
    yield* Effect.logInfo("MCP session taken over: its leader had gone").pipe(
      Effect.annotateLogs("session", session.server.transport?.sessionId ?? "")
    )
  })

// Where a replica's host keeps its subscriptions and level: Redis, followed by the leader.
const registryFor = (state: State, id: string): Session.Registry => ({
  subscribe: (uri) =>
    Effect.gen(function*() {
      const max = state.config.maxSubscriptions
      const found = yield* Effect.mapError(state.registry.subscribe(id, uri, max), serviceUnavailable)
      if (Option.isNone(found)) return yield* new RpcError.ProtocolError({ code: -32001, message: "Session not found" })
      const { admitted, claimed, leader } = found.value
      if (!admitted) return yield* Session.tooManySubscriptions(max)
      if (claimed) yield* takeOver(state, id)
      const replica = state.replicas.get(id)
      if (leader === state.instance && replica !== undefined) return yield* replica.session.follow(uri)
      yield* askLeader(state, leader, id, uri)
    }),
  unsubscribe: (uri) =>
    Effect.gen(function*() {
      const leader = yield* Effect.mapError(state.registry.unsubscribe(id, uri), serviceUnavailable)
      if (Option.isNone(leader)) return
      const replica = state.replicas.get(id)
      if (leader.value === state.instance && replica !== undefined) return yield* replica.session.unfollow(uri)
      if (leader.value !== "")
        yield* Effect.ignore(state.bus.send(leader.value, { kind: "unfollow", session: id, uri }))
    }),
  setLogLevel: (level: Logging.Level) =>
    Effect.andThen(
      Effect.mapError(state.registry.setLevel(id, level), serviceUnavailable),
      Effect.ignore(state.bus.broadcast({ kind: "level", session: id, from: state.instance, level }))
    )
})

// The leader follows it; answered once it says so, or after the subscribe's usual wait.
const askLeader = (state: State, leader: string, id: string, uri: string) =>
  Effect.gen(function*() {
    const { ack, awaited } = awaiting(state, 1)
    yield* state.bus.send(leader, { kind: "follow", session: id, uri, reply: state.instance, token: ack }).pipe(
      Effect.andThen(Effect.timeoutOption(Deferred.await(awaited.done), Session.openWait)),
      Effect.ignore,
      Effect.ensuring(Effect.sync(() => state.acks.delete(ack)))
    )
  })

/** This instance leads the session now: it follows what the host subscribed to, and tells it to re-read. */
export const takeOver = (state: State, id: string) =>
  Effect.gen(function*() {
    const replica = state.replicas.get(id)
    if (replica === undefined || replica.leads) return
    replica.leads = true
    const found = yield* Effect.orElseSucceed(state.registry.find(id, replica.holder), () =>
      Option.none<Registry.Record>())
    const subscriptions = Option.match(found, {
      onNone: () => [],
      onSome: (record) =>
        record.subscriptions
    })
    yield* replica.session.lead(true)
    yield* Effect.forEach(subscriptions, (uri) => Effect.ignore(replica.session.follow(uri)), {
      discard: true,
      concurrency: "unbounded"
    })
    yield* announceTakeover(replica.session, subscriptions)
  })

/** Claim the lead of a session served here that no live instance leads. */
export const claim = (state: State, id: string) =>
  state.replicas.get(id)?.leads === false
    ? Effect.flatMap(state.registry.claim(id), (claimed) => claimed ? takeOver(state, id) : Effect.void)
    : Effect.void

const left = (state: State, id: string, replica: Replica) =>
  Effect.suspend(() => {
    // A newer replica of the session may have taken this one's place.
    if (state.replicas.get(id) !== replica) return Effect.void
    state.replicas.delete(id)
    state.tails.endSession(id)
    return replica.leads ? Effect.ignore(state.registry.release([id], false)) : Effect.void
  })

/** The sessions this instance leads, of those Redis has. */
export const led = (state: State) =>
  [...state.replicas].flatMap(([id, replica]) => replica.leads && replica.registered ? [id] : [])
