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
 */
import { Duration, Effect, MutableRef, Queue, Ref } from "effect"
import type { Scope } from "effect"
import * as ConnectionPool from "../../core/ConnectionPool.ts"
import { messageOf } from "../../core/ToolFailure.ts"
import * as Catalog from "../Catalog.ts"
import type * as Config from "../Config.ts"
import * as Containment from "../Containment.ts"
import * as Diagnostic from "../Diagnostic.ts"
import { AuthFailed, HostNotAllowed, McpProtocolError, ServerUnavailable, ToolsetClosed, ToolTimeout, type UnknownTool } from "../Errors.ts"
import * as Hosts from "../Hosts.ts"
import * as Remote from "./remote.ts"
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
}

/**
 * How a call on a link can fail before an answer is read.
 */
export type CallFailure = AuthFailed | HostNotAllowed | McpProtocolError | ServerUnavailable | ToolsetClosed | ToolTimeout | UnknownTool

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

const allowedHostsFor = (config: Config.StreamableHttp | Config.Sse, options: Config.Options<any>): Effect.Effect<ReadonlyArray<string>, string> => {
  const given = options.allowedHosts
  if (given === undefined) return Effect.succeed([new URL(config.url).host])
  if (typeof given !== "function") return Effect.succeed(given)
  return Effect.suspend(() => {
    const answer = given(config.name, { session: options.session })
    return Effect.isEffect(answer) ? answer : Effect.succeed(answer)
  }).pipe(Effect.catchCause((cause) => Effect.fail(`its allowedHosts could not be resolved (${messageOf(cause)})`)))
}

// How this entry's transport is opened, or the diagnostic saying why it is not.
const opener = (wired: Config.Wired<Config.Remote>, options: Config.Options<any>): Effect.Effect<Open, Diagnostic.Diagnostic> => {
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
        Effect.mapError(allowedHostsFor(config, options), (reason) => Diagnostic.serverUnavailable(config.name, reason)),
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
(error: ConnectionPool.ConnectionLost | ConnectionPool.DialFailed | ConnectionPool.PoolClosed): ServerUnavailable | ToolsetClosed => {
  switch (error._tag) {
    case "PoolClosed":
      return new ToolsetClosed({ name })
    case "DialFailed":
      return new ServerUnavailable({ name, server, retrySafe: true, reason: error.message })
    case "ConnectionLost":
      return new ServerUnavailable({ name, server, retrySafe: error.phase !== "call", reason: error.message })
  }
}

const remoteFailure = (name: string, server: string) => (error: Remote.Rejected | Hosts.Refused): McpProtocolError | HostNotAllowed | ServerUnavailable => {
  if (error._tag === "McpRejected") return new McpProtocolError({ name, server, code: error.code, reason: error.reason })
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
  const resolve: Effect.Effect<void, AuthFailed> | undefined = auth === undefined || !(config.type === "streamable-http" || config.type === "sse")
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

// The server's listing, run through the catalogue into `entries`; answers the entries it replaced.
// The deadline bounds the request alone, inside the lease: a dial has its own (connectTimeoutMs).
const lister = (pool: Pool, wired: Config.Wired, entries: Ref.Ref<ReadonlyArray<Catalog.Entry>>, env: Env) =>
  pool.use((remote) =>
    remote.list.pipe(Effect.timeoutOrElse({
      duration: Duration.millis(wired.timeoutMs),
      orElse: () => Effect.fail(`tools/list gave no answer within ${wired.timeoutMs} ms`)
    }))
  ).pipe(
    Effect.mapError((error) => typeof error === "string" ? error : error.message),
    Effect.flatMap((listing) => {
      const projected = Catalog.fromListing({ name: wired.config.name, key: wired.key }, listing)
      return Effect.andThen(Effect.forEach(projected.diagnostics, env.emit, { discard: true }), Ref.getAndSet(entries, projected.entries))
    })
  )

// One refresh after a change was announced (or a re-dial): list again, say what moved, republish.
const refresher = (
  server: string,
  changed: Queue.Queue<void>,
  list: Effect.Effect<ReadonlyArray<Catalog.Entry>, string>,
  entries: Ref.Ref<ReadonlyArray<Catalog.Entry>>,
  env: Env
) =>
  Effect.gen(function*() {
    yield* Queue.take(changed)
    yield* Queue.clear(changed)
    const before = yield* Effect.result(list)
    if (before._tag === "Failure") return yield* Effect.logWarning(`MCP server "${server}": the tool list could not be refreshed: ${before.failure}`)
    yield* announce(server, before.success, yield* Ref.get(entries), env)
  })

/**
 * Say what a refreshed listing moved (a `tools-changed` diagnostic, when anything did) and
 * republish the map: the last step of every refresh, remote or local.
 */
export const announce = (server: string, before: ReadonlyArray<Catalog.Entry>, after: ReadonlyArray<Catalog.Entry>, env: Env) =>
  Effect.suspend(() => {
    const now = new Set(after.map((e) => e.tool.name))
    const was = new Set(before.map((e) => e.tool.name))
    const added = [...now].filter((n) => !was.has(n))
    const removed = [...was].filter((n) => !now.has(n))
    return added.length > 0 || removed.length > 0
      ? Effect.andThen(env.emit(Diagnostic.toolsChanged(server, added, removed)), env.publish)
      : env.publish
  })

type Attempted = Remote.Rejected | Hosts.Refused | ToolTimeout | ConnectionPool.ConnectionLost | ConnectionPool.DialFailed | ConnectionPool.PoolClosed

const classified = (name: string, server: string) => (e: Attempted): CallFailure =>
  e._tag === "ToolTimeout" ? e
  : e._tag === "McpRejected" || e._tag === "McpHostRefused" ? remoteFailure(name, server)(e)
  : unavailable(name, server)(e)

// One request with its deadline, inside a lease on the server's connection.
const attempt = (pool: Pool, server: string) => (name: string, tool: string, args: unknown, timeoutMs: number) =>
  pool.use((remote) =>
    remote.call(tool, args).pipe(Effect.timeoutOrElse({
      duration: Duration.millis(timeoutMs),
      orElse: () => Effect.fail(new ToolTimeout({ name, server, timeoutMs }))
    }))
  )

const caller = (pool: Pool, server: string): Link["call"] => {
  const once = attempt(pool, server)
  return (name, tool, args, timeoutMs) =>
    once(name, tool, args, timeoutMs).pipe(
      Effect.catch((e) =>
        // The link was gone before the request was sent, so it provably never reached the server:
        // once more, on a fresh dial. A request that was sent is never sent again.
        e._tag === "ConnectionLost" && e.phase !== "call"
          ? Effect.mapError(once(name, tool, args, timeoutMs), classified(name, server))
          : Effect.fail(classified(name, server)(e))
      )
    )
}

/**
 * Check an entry, open its pool and list its tools. Answers `undefined` for an entry that was left
 * out (with its diagnostic emitted). A server that cannot be listed now is kept, with no tools.
 */
export const make = (wired: Config.Wired<Config.Remote>, env: Env): Effect.Effect<Link | undefined, never, Scope.Scope> =>
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
    const entries = yield* Ref.make<ReadonlyArray<Catalog.Entry>>([])
    const list = lister(pool, wired, entries, env)
    yield* Effect.forkScoped(Effect.forever(refresher(config.name, changed, list, entries, env)))
    const first = yield* Effect.result(list)
    if (first._tag === "Failure") yield* env.emit(Diagnostic.serverUnavailable(config.name, first.failure))
    const call = caller(pool, config.name)
    const resolve = token.resolve
    return {
      wired,
      entries: Ref.get(entries),
      dials: pool.dials,
      call: resolve === undefined ? call : (name, tool, args, timeoutMs) => Effect.andThen(resolve, call(name, tool, args, timeoutMs))
    } satisfies Link
  })
