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
 * Every connection is listed as it is dialled, before it carries a call (`listing.ts`): with a
 * store, that listing is checked against the server's baseline and recorded, and a call is judged by
 * it, so a restarted server's changed tool is refused unsent on the very first call. A server that
 * cannot be listed is dialled again in the background. A link seeded from a stored row starts with
 * that catalogue and lists in the background; a call made meanwhile waits for that dial and listing.
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as MutableRef from "effect/MutableRef"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as ConnectionPool from "../../core/ConnectionPool.ts"
import { messageOf } from "../../core/ToolFailure.ts"
import * as Catalog from "../Catalog.ts"
import type * as Config from "../Config.ts"
import * as Diagnostic from "../Diagnostic.ts"
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
import * as Transports from "../Transports.ts"
import * as Child from "./child.ts"
import * as Dial from "./dial.ts"
import * as Listing from "./listing.ts"
import * as Opener from "./opener.ts"
import * as Redact from "./redact.ts"
import * as Remote from "./remote.ts"
import type * as Stored from "./stored.ts"

/**
 * A server the toolset reaches: its entry as wired, the tools it lists now, and calls on it.
 */
export interface Link {
  readonly wired: Config.Wired
  readonly entries: Effect.Effect<ReadonlyArray<Catalog.Entry>>
  /** One request, raw answer; `name` is the projected name, for the errors. */
  readonly call: (name: string, tool: string, args: unknown, timeoutMs: number) => Effect.Effect<unknown, CallFailure>
  /** Any other request (`resources/read`, `prompts/get`, a listing), raw answer; `name` is for the errors. */
  readonly request: (
    name: string,
    method: string,
    params: { readonly [key: string]: unknown },
    timeoutMs: number
  ) => Effect.Effect<unknown, CallFailure>
  /** How many connections have been dialled. */
  readonly dials: Effect.Effect<number>
  /** Completes when the link's first listing has ended (at once unless it was seeded). */
  readonly reconciled: Effect.Effect<void>
  /** Why the server offers no tools now (it could not be reached or listed), or `undefined` once listed. */
  readonly unavailable?: (() => string | undefined) | undefined
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
 * What a link needs from its toolset (see `listing.ts`).
 */
export type Env = Listing.Env

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
  (error: Remote.Rejected | Hosts.Refused): AuthFailed | McpProtocolError | HostNotAllowed | ServerUnavailable => {
    // 401: the server took no request without a credential it accepts (an OAuth sign-in failed).
    if (error._tag === "McpRejected" && error.code === 401) return new AuthFailed({ server, reason: error.reason })
    if (error._tag === "McpRejected")
      return new McpProtocolError({ name, server, code: error.code, reason: error.reason })
    return error.reason === "host"
      ? new HostNotAllowed({ server, host: error.host })
      : new ServerUnavailable({ name, server, retrySafe: false, reason: error.message })
  }

type Pool = ConnectionPool.Pool<Remote.Remote>

// A dial over a process that has ended fails with how it ended, above what the protocol saw of it;
// `last` keeps it for the diagnostic.
const endedOrAsIs = (
  error: Remote.Failure,
  opened: Transports.Opened,
  last: MutableRef.MutableRef<Diagnostic.Exited | undefined>
): Remote.Failure | Error => {
  const exited = opened.ended?.()
  MutableRef.set(last, exited)
  return exited === undefined ? error : new Error(`${Child.sentence(exited)} (${messageOf(error)})`)
}

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

type Attempted =
  | Remote.Rejected
  | Hosts.Refused
  | Remote.TimedOut
  | ConnectionPool.ConnectionLost
  | ConnectionPool.DialFailed
  | ConnectionPool.PoolClosed
  | ServerUnavailable
  | ToolQuarantined
  | ToolWithdrawn

const classified = (name: string, server: string) => (e: Attempted): CallFailure => {
  switch (e._tag) {
    case "McpTimedOut":
      return new ToolTimeout({ name, server, timeoutMs: e.timeoutMs })
    case "McpRejected":
    case "McpHostRefused":
      return remoteFailure(name, server)(e)
    case "ServerUnavailable":
    case "ToolQuarantined":
    case "ToolWithdrawn":
      return e
    default:
      return unavailable(name, server)(e)
  }
}

// One request with its deadline (the connection's to keep), inside a lease on the server's
// connection, once that connection's listing allows the tool.
const attempt = (pool: Pool, listing: Listing.Listing, server: string) =>
(
  name: string,
  tool: string,
  args: unknown,
  timeoutMs: number
) =>
  pool.use((remote): Effect.Effect<unknown, Remote.Failure | Remote.TimedOut | Listing.Refusal> => {
    const refused = Listing.check(listing, server, name, tool)
    return refused === undefined ? remote.call(tool, args, timeoutMs) : Effect.fail(refused)
  })

const caller = (pool: Pool, listing: Listing.Listing, server: string): Link["call"] => {
  const once = attempt(pool, listing, server)
  return (name, tool, args, timeoutMs) =>
    Effect.catch(once(name, tool, args, timeoutMs), (e) =>
      // The link was gone before the request was sent, so it provably never reached the server:
      // once more, on a fresh dial (listed before it carries the call). A request that was sent
      // is never sent again.
      e._tag === "ConnectionLost" && e.phase !== "call"
        ? Effect.mapError(once(name, tool, args, timeoutMs), classified(name, server))
        : Effect.fail(classified(name, server)(e)))
}

const requester = (pool: Pool, server: string): Link["request"] => {
  const once = (method: string, params: { readonly [key: string]: unknown }, timeoutMs: number) =>
    pool.use((remote) => remote.request(method, params, timeoutMs))
  return (name, method, params, timeoutMs) =>
    once(method, params, timeoutMs).pipe(
      Effect.catch((e) =>
        // As a call: once more on a fresh dial only when it provably never reached the server.
        e._tag === "ConnectionLost" && e.phase !== "call"
          ? Effect.mapError(once(method, params, timeoutMs), classified(name, server))
          : Effect.fail(classified(name, server)(e))
      )
    )
}

// A live connection whose listing is in: the one open, or one dialled now (its dial lists it).
// Fails with the sentence saying why not.
const settle = (pool: Pool, listing: Listing.Listing): Effect.Effect<void, string> =>
  pool.use(() => Effect.void).pipe(
    Effect.mapError((error) => {
      // No connection, so none listed: what is said of the server now is why.
      MutableRef.set(listing.published, { _tag: "Unlisted", reason: error.message })
      return error.message
    }),
    Effect.andThen(Effect.suspend(() => {
      const now = MutableRef.get(listing.published)
      return now?._tag === "Listed" ? Effect.void : Effect.fail(now?.reason ?? "no listing is in")
    }))
  )

// After a listing failed: tried again in the background until one is in (a connection whose
// listing failed is retired first, so the next is dialled and listed afresh).
const recover = (pool: Pool, listing: Listing.Listing, server: string): Effect.Effect<void> =>
  Effect.suspend(() =>
    MutableRef.get(listing.published)?._tag === "Listed" ? Effect.void
      : Effect.andThen(pool.retire, settle(pool, listing))
  ).pipe(
    Effect.tapError((reason) =>
      Effect.logDebug(Redact.text(`MCP server "${server}" is still not listed: ${reason}; trying again later`))
    ),
    Effect.delay(Duration.seconds(1)),
    Effect.retry(Listing.RELIST),
    Effect.ignore
  )

// Listen for tools/list_changed: list the connection again; one whose new listing cannot be read is
// refused calls and recovered in the background.
const refresher = (
  pool: Pool,
  listing: Listing.Listing,
  server: string,
  changed: Queue.Queue<void>,
  take: (remote: Remote.Remote) => Effect.Effect<void, Listing.ListingFailed>
) =>
  Effect.gen(function*() {
    yield* Queue.take(changed)
    yield* Queue.clear(changed)
    const pass = yield* Effect.result(pool.use(take))
    if (pass._tag === "Success") return
    yield* Effect.logWarning(
      Redact.text(`MCP server "${server}": the tool list could not be refreshed: ${pass.failure.message}`)
    )
    yield* recover(pool, listing, server)
  })

/**
 * Check an entry, open its pool and list its tools. Answers `undefined` for an entry that was left
 * out (with its diagnostic emitted). A server that cannot be listed now is kept, with no tools, and
 * dialled again in the background until it can. A seeded link starts from the stored catalogue and
 * lists in the background, dialling nothing first. Every connection is listed as it is dialled,
 * before any call goes over it.
 */
export const make = (
  wired: Config.Wired<Config.Remote>,
  env: Env,
  seed?: Stored.Seed
): Effect.Effect<Link | undefined, never, Scope.Scope> =>
  Effect.gen(function*() {
    const config = wired.config
    // Made before the pool, so the pool's close (every connection's) comes first and this scope's
    // close then waits for the processes it handed over to have ended.
    const reaper = yield* Child.reaper
    const open = yield* Effect.result(Opener.opener(wired, env.options, reaper))
    if (open._tag === "Failure") return yield* Effect.as(env.emit(open.failure), undefined)
    const token = credential(config, env.options)
    const changed = yield* Queue.unbounded<void>()
    const stored = seed === undefined
      ? undefined
      : Catalog.fromListing({ name: config.name, key: wired.key }, seed.tools, seed.baseline)
    if (stored !== undefined) yield* Effect.forEach(stored.diagnostics, env.emit, { discard: true })
    const listing = yield* Listing.make(stored?.entries)
    const take = Listing.take(wired, listing, env)
    const exited = MutableRef.make<Diagnostic.Exited | undefined>(undefined)
    const dial = Effect.gen(function*() {
      MutableRef.set(exited, undefined)
      if (token.resolve !== undefined) yield* token.resolve
      const opened = yield* open.success(token.bearer)
      const owned = yield* Dial.connect(opened, {
        server: config.name,
        clientInfo: env.options.clientInfo ?? { name: "effect-surface", version: "0.1.0" },
        handlers: env.options,
        protocol: config.protocol ?? env.options.protocol ?? "auto",
        connectTimeoutMs: wired.connectTimeoutMs,
        onToolsChanged: () => Queue.offerUnsafe(changed, undefined)
      }).pipe(Effect.mapError((error) => endedOrAsIs(error, opened, exited)))
      // Listed before the pool hands it out: a restarted server's changed tool is judged before
      // the first call. A listing that fails leaves the connection open and refusing calls.
      yield* Effect.ignore(take(owned.client))
      return owned
    })
    const pool = yield* ConnectionPool.make({
      dial,
      name: `MCP server "${config.name}"`,
      server: "This toolset",
      // One dial per request for a connection: a server that did not answer within its deadline is
      // reported then, and tried again in the background (`recover`), never twice in a row here.
      maxDials: 1,
      dialTimeout: Duration.millis(wired.connectTimeoutMs)
    })
    yield* Effect.forkScoped(Effect.forever(refresher(pool, listing, config.name, changed, take)))
    const reconciled = yield* Deferred.make<void>()
    const first = Effect.gen(function*() {
      const listed = yield* Effect.result(settle(pool, listing))
      MutableRef.set(listing.announce, true)
      if (listed._tag === "Failure") {
        yield* env.emit(
          seed === undefined
            ? Diagnostic.serverUnavailable(config.name, listed.failure, MutableRef.get(exited))
            : Store.serverUnreconciled(config.name, listed.failure)
        )
      }
      yield* Deferred.succeed(reconciled, undefined)
      if (listed._tag === "Failure") yield* Effect.forkScoped(recover(pool, listing, config.name))
    })
    yield* seed === undefined ? first : Effect.forkScoped(first)
    const call = caller(pool, listing, config.name)
    const request = requester(pool, config.name)
    const resolve = token.resolve
    return {
      wired,
      entries: Ref.get(listing.entries),
      dials: pool.dials,
      reconciled: Deferred.await(reconciled),
      unavailable: () => {
        const now = MutableRef.get(listing.published)
        return now?._tag === "Unlisted" ? now.reason : undefined
      },
      call: resolve === undefined ? call : (name, tool, args, timeoutMs) =>
        Effect.andThen(resolve, call(name, tool, args, timeoutMs)),
      request: resolve === undefined ? request : (name, method, params, timeoutMs) =>
        Effect.andThen(resolve, request(name, method, params, timeoutMs))
    } satisfies Link
  })
