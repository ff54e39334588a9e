/**
 * One configured server, from its entry to its live tools: the checks before anything starts, the
 * connection pool it is dialled through, and the listing that follows it.
 *
 * Each server gets its own `ConnectionPool`, so the pool's rules hold per server: a connection is
 * shared by concurrent calls, dropped the moment its transport closes, re-dialled on the next call,
 * and a request whose outcome is unknown is never sent again. Before the first dial the entry is
 * checked — a URL's host against `allowedHosts`, a stdio command against its root — and an entry
 * that fails is reported and left out while the other servers load. A credential is resolved before
 * every dial (so the handshake carries it) and before every call (so a rotated one is used at once);
 * it lives in one cell read by the transport's `fetch`, and goes nowhere else.
 *
 * With a store, every listing is checked against the server's baseline and recorded. A link seeded
 * from a stored row starts with that catalogue and lists in the background; until that listing is
 * in, a call waits for it, and afterwards a call to a tool the server no longer publishes is refused
 * without being sent.
 */
import { Deferred, Duration, Effect, MutableRef, Queue, Ref } from "effect"
import type { Scope } from "effect"
import * as ConnectionPool from "../../core/ConnectionPool.ts"
import { messageOf } from "../../core/ToolFailure.ts"
import * as Catalog from "../Catalog.ts"
import type * as Config from "../Config.ts"
import * as Containment from "../Containment.ts"
import * as Diagnostic from "../Diagnostic.ts"
import type * as Drift from "../Drift.ts"
import {
  AuthFailed,
  HostNotAllowed,
  McpProtocolError,
  ServerUnavailable,
  ToolQuarantined,
  ToolsetClosed,
  ToolTimeout,
  ToolWithdrawn,
  type UnknownTool
} from "../Errors.ts"
import * as Hosts from "../Hosts.ts"
import * as Store from "../Store.ts"
import * as Remote from "./remote.ts"
import * as Stored from "./stored.ts"
import * as Transports from "../Transports.ts"

/**
 * A server the toolset reaches: its entry as wired, the tools it lists now, and calls on it.
 */
export interface Link {
  readonly wired: Config.Wired
  readonly entries: Effect.Effect<ReadonlyArray<Catalog.Entry>>
  /** One request, raw answer; `name` is the projected name, for the errors. */
  readonly call: (name: string, tool: string, args: unknown, timeoutMs: number) => Effect.Effect<unknown, CallFailure>
  /** How many connections have been dialled. */
  readonly dials: Effect.Effect<number>
  /** Completes when the link's first listing has ended (at once unless it was seeded). */
  readonly reconciled: Effect.Effect<void>
}

/**
 * How a call on a link can fail before an answer is read.
 */
export type CallFailure =
  | AuthFailed
  | HostNotAllowed
  | McpProtocolError
  | ServerUnavailable
  | ToolsetClosed
  | ToolTimeout
  | ToolQuarantined
  | ToolWithdrawn
  | UnknownTool

/**
 * What a link needs from its toolset: the options, where diagnostics go, and how to republish the
 * tool map once this server's tools have changed.
 */
export interface Env {
  readonly options: Config.Options<any>
  readonly emit: (diagnostic: Diagnostic.Diagnostic) => Effect.Effect<void>
  readonly publish: Effect.Effect<void>
}

type Open = (bearer: () => string | undefined) => Effect.Effect<Transports.Opened, never, Scope.Scope>

const allowedHostsFor = (
  config: Config.StreamableHttp | Config.Sse,
  options: Config.Options<any>
): Effect.Effect<ReadonlyArray<string>, string> => {
  const given = options.allowedHosts
  if (given === undefined) return Effect.succeed([new URL(config.url).host])
  if (typeof given !== "function") return Effect.succeed(given)
  return Effect.suspend(() => {
    const answer = given(config.name, { session: options.session })
    return Effect.isEffect(answer) ? answer : Effect.succeed(answer)
  }).pipe(Effect.catchCause((cause) => Effect.fail(`its allowedHosts could not be resolved (${messageOf(cause)})`)))
}

// How this entry's transport is opened, or the diagnostic saying why it is not.
const opener = (
  wired: Config.Wired<Config.Remote>,
  options: Config.Options<any>
): Effect.Effect<Open, Diagnostic.Diagnostic> => {
  const config = wired.config
  switch (config.type) {
    case "stdio": {
      const root = config.root ?? options.stdio?.root
      return Effect.mapBoth(Containment.confine(config, root), {
        onFailure: (reason) => Diagnostic.stdioRefused(config.name, reason),
        onSuccess: (confined): Open => () => Transports.openStdio(config, confined)
      })
    }
    case "streamable-http":
    case "sse":
      return Effect.flatMap(
        Effect.mapError(
          allowedHostsFor(config, options),
          (reason) => Diagnostic.serverUnavailable(config.name, reason)
        ),
        (allowed): Effect.Effect<Open, Diagnostic.Diagnostic> => {
          const url = new URL(config.url)
          if (!Hosts.allows(allowed, url)) return Effect.fail(Diagnostic.hostNotAllowed(config.name, url.host))
          return Effect.succeed((bearer) => Effect.succeed(Transports.openHttp(config, { allowed, bearer })))
        }
      )
    case "transport":
      return Effect.succeed(() => Effect.sync(() => ({ transport: config.open() })))
  }
}

const unavailable = (name: string, server: string) =>
(
  error: ConnectionPool.ConnectionLost | ConnectionPool.DialFailed | ConnectionPool.PoolClosed
): ServerUnavailable | ToolsetClosed => {
  switch (error._tag) {
    case "PoolClosed":
      return new ToolsetClosed({ name })
    case "DialFailed":
      return new ServerUnavailable({ name, server, retrySafe: true, reason: error.message })
    case "ConnectionLost":
      return new ServerUnavailable({ name, server, retrySafe: error.phase !== "call", reason: error.message })
  }
}

const remoteFailure =
  (name: string, server: string) =>
  (error: Remote.Rejected | Hosts.Refused): McpProtocolError | HostNotAllowed | ServerUnavailable => {
    if (error._tag === "McpRejected")
      return new McpProtocolError({ name, server, code: error.code, reason: error.reason })
    return error.reason === "host"
      ? new HostNotAllowed({ server, host: error.host })
      : new ServerUnavailable({ name, server, retrySafe: false, reason: error.message })
  }

type Pool = ConnectionPool.Pool<Remote.Remote>

// The credential cell and how to fill it: the bearer the transport's fetch reads, resolved again
// before every dial and every call; nothing for a server that takes no bearer.
const credential = (config: Config.Server, options: Config.Options<any>) => {
  const bearer = MutableRef.make<string | undefined>(undefined)
  const auth = options.auth
  const resolve: Effect.Effect<void, AuthFailed> | undefined =
    auth === undefined || !(config.type === "streamable-http" || config.type === "sse")
      ? undefined
      : Effect.suspend(() => {
        const answer = auth(config.name, { session: options.session })
        return Effect.isEffect(answer) ? answer : Effect.succeed(answer)
      }).pipe(
        Effect.flatMap((given) => Effect.sync(() => MutableRef.set(bearer, given.token))),
        Effect.catchCause((cause) => Effect.fail(new AuthFailed({ server: config.name, reason: messageOf(cause) })))
      )
  return { bearer: () => MutableRef.get(bearer), resolve }
}

// What the link knows of the server's own list: `published` the tool names of its last listing and
// which of them may be called (`undefined` before one came in), `settled` once the first listing
// attempt has ended.
interface Listing {
  readonly entries: Ref.Ref<ReadonlyArray<Catalog.Entry>>
  readonly published: MutableRef.MutableRef<
    { readonly listed: ReadonlySet<string>; readonly callable: ReadonlySet<string> } | undefined
  >
  readonly settled: Deferred.Deferred<void>
}

// The baseline this listing is checked against: none without a store; a store that cannot be read
// fails the listing, so a changed tool is never taken in unchecked.
const baselineFor = (
  wired: Config.Wired<Config.Remote>,
  env: Env
): Effect.Effect<Drift.Baseline | undefined, string> => {
  const store = env.options.storage
  return store === undefined
    ? Effect.succeed(undefined)
    : Effect.tapError(
      Stored.baselineOf(store, wired, env.emit),
      (reason) => env.emit(Store.storeUnavailable(wired.config.name, reason))
    )
}

// The server's listing, checked for drift, run through the catalogue into `entries` and recorded;
// answers the entries it replaced. The deadline bounds the request alone, inside the lease: a dial
// has its own (connectTimeoutMs).
const lister = (pool: Pool, wired: Config.Wired<Config.Remote>, listing: Listing, env: Env) =>
  pool.use((remote) =>
    remote.list.pipe(Effect.timeoutOrElse({
      duration: Duration.millis(wired.timeoutMs),
      orElse: () => Effect.fail(`tools/list gave no answer within ${wired.timeoutMs} ms`)
    }))
  ).pipe(
    Effect.mapError((error) => typeof error === "string" ? error : error.message),
    Effect.flatMap((raw) =>
      Effect.gen(function*() {
        const baseline = yield* baselineFor(wired, env)
        const projected = Catalog.fromListing({ name: wired.config.name, key: wired.key }, raw, baseline)
        yield* Effect.forEach(projected.diagnostics, env.emit, { discard: true })
        const store = env.options.storage
        if (store !== undefined) yield* Stored.record(store, wired, projected.listed, projected.fingerprints, env.emit)
        MutableRef.set(listing.published, {
          listed: new Set(projected.listed.map((tool) => tool.name)),
          callable: new Set(projected.entries.flatMap((entry) => entry.quarantined === true ? [] : [entry.tool.tool]))
        })
        return yield* Ref.getAndSet(listing.entries, projected.entries)
      })
    ),
    Effect.ensuring(Deferred.succeed(listing.settled, undefined))
  )

// One pass after a change was announced (or a re-dial, or a rebuild): list again, say what moved,
// republish.
const refresh = (
  server: string,
  list: Effect.Effect<ReadonlyArray<Catalog.Entry>, string>,
  entries: Ref.Ref<ReadonlyArray<Catalog.Entry>>,
  env: Env
): Effect.Effect<void, string> =>
  Effect.gen(function*() {
    const before = yield* list
    yield* announce(server, before, yield* Ref.get(entries), env)
  })

const refresher = (server: string, changed: Queue.Queue<void>, pass: Effect.Effect<void, string>) =>
  Effect.gen(function*() {
    yield* Queue.take(changed)
    yield* Queue.clear(changed)
    yield* Effect.catch(
      pass,
      (reason) => Effect.logWarning(`MCP server "${server}": the tool list could not be refreshed: ${reason}`)
    )
  })

/**
 * Say what a refreshed listing moved (a `tools-changed` diagnostic, when anything did) and
 * republish the map: the last step of every refresh, remote or local.
 */
export const announce = (
  server: string,
  before: ReadonlyArray<Catalog.Entry>,
  after: ReadonlyArray<Catalog.Entry>,
  env: Env
) =>
  Effect.suspend(() => {
    const now = new Set(after.map((e) => e.tool.name))
    const was = new Set(before.map((e) => e.tool.name))
    const added = [...now].filter((n) => !was.has(n))
    const removed = [...was].filter((n) => !now.has(n))
    return added.length > 0 || removed.length > 0
      ? Effect.andThen(env.emit(Diagnostic.toolsChanged(server, added, removed)), env.publish)
      : env.publish
  })

// A call checked against what the server publishes: before the first listing is in (a rebuilt
// link), it waits for it; a tool the server no longer lists, or lists changed, is refused, unsent.
const published = (listing: Listing, server: string, call: Link["call"]): Link["call"] => {
  const check: Link["call"] = (name, tool, args, timeoutMs) => {
    const now = MutableRef.get(listing.published)
    if (now === undefined || now.callable.has(tool)) return call(name, tool, args, timeoutMs)
    return Effect.fail(
      now.listed.has(tool) ? new ToolQuarantined({ name, server, tool }) : new ToolWithdrawn({ name, server, tool })
    )
  }
  let settled = false
  return (name, tool, args, timeoutMs) =>
    settled
      ? check(name, tool, args, timeoutMs)
      : Effect.andThen(
        Deferred.await(listing.settled),
        Effect.suspend(() => {
          settled = true
          return check(name, tool, args, timeoutMs)
        })
      )
}

type Attempted =
  | Remote.Rejected
  | Hosts.Refused
  | Remote.TimedOut
  | ConnectionPool.ConnectionLost
  | ConnectionPool.DialFailed
  | ConnectionPool.PoolClosed

const classified = (name: string, server: string) => (e: Attempted): CallFailure =>
  e._tag === "McpTimedOut" ? new ToolTimeout({ name, server, timeoutMs: e.timeoutMs })
    : e._tag === "McpRejected" || e._tag === "McpHostRefused" ? remoteFailure(name, server)(e)
    : unavailable(name, server)(e)

// One request with its deadline (the connection's to keep), inside a lease on the server's connection.
const attempt = (pool: Pool) => (tool: string, args: unknown, timeoutMs: number) =>
  pool.use((remote) => remote.call(tool, args, timeoutMs))

const caller = (pool: Pool, server: string): Link["call"] => {
  const once = attempt(pool)
  return (name, tool, args, timeoutMs) =>
    once(tool, args, timeoutMs).pipe(
      Effect.catch((e) =>
        // The link was gone before the request was sent, so it provably never reached the server:
        // once more, on a fresh dial. A request that was sent is never sent again.
        e._tag === "ConnectionLost" && e.phase !== "call"
          ? Effect.mapError(once(tool, args, timeoutMs), classified(name, server))
          : Effect.fail(classified(name, server)(e))
      )
    )
}

/**
 * Check an entry, open its pool and list its tools. Answers `undefined` for an entry that was left
 * out (with its diagnostic emitted). A server that cannot be listed now is kept, with no tools. A
 * seeded link starts from the stored catalogue and lists in the background, dialling nothing first.
 */
export const make = (
  wired: Config.Wired<Config.Remote>,
  env: Env,
  seed?: Stored.Seed
): Effect.Effect<Link | undefined, never, Scope.Scope> =>
  Effect.gen(function*() {
    const config = wired.config
    const open = yield* Effect.result(opener(wired, env.options))
    if (open._tag === "Failure") return yield* Effect.as(env.emit(open.failure), undefined)
    const token = credential(config, env.options)
    const changed = yield* Queue.unbounded<void>()
    const dialled = yield* Ref.make(0)
    const dial = Effect.gen(function*() {
      const n = yield* Ref.updateAndGet(dialled, (k) => k + 1)
      if (token.resolve !== undefined) yield* token.resolve
      const opened = yield* open.success(token.bearer)
      const owned = yield* Remote.connect(opened.transport, {
        server: config.name,
        clientInfo: env.options.clientInfo ?? { name: "effect-surface", version: "0.1.0" },
        roots: env.options.roots,
        onToolsChanged: () => Queue.offerUnsafe(changed, undefined)
      })
      // A re-dial may reach a restarted server with other tools: list again.
      if (n > 1) Queue.offerUnsafe(changed, undefined)
      return owned
    })
    const pool = yield* ConnectionPool.make({
      dial,
      name: `MCP server "${config.name}"`,
      server: "This toolset",
      maxDials: 2,
      dialTimeout: Duration.millis(wired.connectTimeoutMs)
    })
    const listing: Listing = {
      entries: yield* Ref.make<ReadonlyArray<Catalog.Entry>>([]),
      published: MutableRef.make<Listing["published"]["current"]>(undefined),
      settled: yield* Deferred.make<void>()
    }
    const list = lister(pool, wired, listing, env)
    const pass = refresh(config.name, list, listing.entries, env)
    yield* Effect.forkScoped(Effect.forever(refresher(config.name, changed, pass)))
    const reconciled = yield* Deferred.make<void>()
    if (seed === undefined) {
      const first = yield* Effect.result(list)
      if (first._tag === "Failure") yield* env.emit(Diagnostic.serverUnavailable(config.name, first.failure))
      yield* Deferred.succeed(reconciled, undefined)
    } else {
      const stored = Catalog.fromListing({ name: config.name, key: wired.key }, seed.tools, seed.baseline)
      yield* Effect.forEach(stored.diagnostics, env.emit, { discard: true })
      yield* Ref.set(listing.entries, stored.entries)
      yield* Effect.forkScoped(
        pass.pipe(
          Effect.catch((reason) => env.emit(Store.serverUnreconciled(config.name, reason))),
          Effect.ensuring(Deferred.succeed(reconciled, undefined))
        )
      )
    }
    const call = published(listing, config.name, caller(pool, config.name))
    const resolve = token.resolve
    return {
      wired,
      entries: Ref.get(listing.entries),
      dials: pool.dials,
      reconciled: Deferred.await(reconciled),
      call: resolve === undefined ? call : (name, tool, args, timeoutMs) =>
        Effect.andThen(resolve, call(name, tool, args, timeoutMs))
    } satisfies Link
  })
