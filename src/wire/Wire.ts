/**
 * The wire face: serve a surface implementation on a local socket, and dial it from another process.
 *
 * A face that bridges a running daemon holds a client dialled over a socket. What makes that usable
 * across a restart of the daemon is not the rpc itself but three promises about the link, kept here
 * on top of `effect/rpc`: a dial answers at once when nothing listens; the transport's close is
 * announced (`onClose`) the instant it happens, so the ConnectionPool drops the dead connection
 * before the next request spends itself on it; and nothing is ever sent twice — one socket per dial,
 * never reconnected, never resent, so a call cut off in flight fails as a `LinkError` of phase
 * `"call"` (outcome unknown) and re-dialling stays the pool's decision. What crosses is the expose
 * map's to say, as on every face, and the socket is its owner's alone.
 *
 * @since 0.1.0
 */
import * as NodeSocket from "@effect/platform-node/NodeSocket"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Predicate from "effect/Predicate"
import * as References from "effect/References"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { RpcClient, RpcSerialization, RpcServer } from "effect/rpc"
import { Socket, SocketServer } from "effect/socket"
import * as Net from "node:net"
import type { Owned } from "../surface/Owned.ts"
import { LinkError } from "../surface/LinkError.ts"
import type * as Client from "../surface/Client.ts"
import * as Expose from "../surface/Expose.ts"
import type * as Implementation from "../surface/Implementation.ts"
import * as SocketFile from "./internal/socketFile.ts"
import type * as Surface from "../surface/Surface.ts"
import * as WireProtocol from "../surface/WireProtocol.ts"

// Newline-delimited JSON: every value crosses in the JSON codec of its own schema, one frame a line.
const serialization = RpcSerialization.ndjson

/**
 * The surface could not be served on the path: it is in use by a live server, occupied by something
 * that is not a socket, or the listen itself failed.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Implementation, Surface } from "effect-surface"
 * import { Wire } from "effect-surface/wire"
 *
 * declare const implemented: Implementation.Implemented<Surface.Spec>
 * const served = Wire.serve(implemented, { path: "/tmp/todos.sock", expose: { procedures: { "todo.add": true } } }).pipe(
 *   Effect.catchTag("WireServeError", (e) => Effect.logError(e.message))
 * )
 * ```
 *
 * @since 0.1.0
 */
export class ServeError extends Schema.TaggedError<ServeError>()("WireServeError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `cannot serve on ${this.path}: ${this.reason}`
  }
}

/**
 * Where to serve, and what: the expose map every face takes. Exposure is default-deny — only the
 * members the map names are served on the socket, and a dialled call to any other is refused.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Surface } from "effect-surface"
 * import type { Wire } from "effect-surface/wire"
 *
 * const Todos = Surface.make({ cells: { filter: Surface.cell(Schema.String, "all") }, procedures: { todo: { add: {}, drop: {} } } })
 * const options: Wire.ServeOptions<typeof Todos> = {
 *   path: "/tmp/todos.sock",
 *   expose: { cells: { filter: true }, procedures: { "todo.add": true } } // todo.drop is not served
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface ServeOptions<S extends Surface.Spec> {
  /** A unix socket path; keep it short (the platform limit is about 107 bytes). */
  readonly path: string
  /** Which members cross to whoever dials the socket; checked against the spec when serving starts. */
  readonly expose: Expose.ExposeMap<S>
}

const errorText = (e: unknown): string =>
  Predicate.hasProperty(e, "message") && typeof e.message === "string" ? e.message : String(e)

/**
 * Serve the members of an implementation its expose map names on a unix socket until the scope
 * closes. The map is checked against the spec first (an `Expose.CheckError` names a bad key); a
 * call to a member it does not name is refused on the served side, never run. The socket is its
 * owner's alone (mode 0600) from the moment it can be dialled. A stale socket file left by a killed
 * server is removed first; closing the scope interrupts every call in flight, closes every
 * connection (each client sees its link drop) and removes the socket file.
 *
 * No caller's identity crosses the socket: whoever dials it is the socket's owner. What the
 * procedures need (`R`: the core's caller services, say) is taken from where `serve` runs, once,
 * and answers every dialled call — provide the local caller (`Caller.none`) there.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Expose, type Implementation, type Surface } from "effect-surface"
 * import { Wire } from "effect-surface/wire"
 *
 * declare const implemented: Implementation.Implemented<Surface.Spec>
 * const program = Effect.scoped(Effect.gen(function*() {
 *   // Everything, for a socket only its owner can dial; name the members to narrow it.
 *   yield* Wire.serve(implemented, { path: "/tmp/todos.sock", expose: Expose.all(implemented.spec) })
 *   yield* Effect.never
 * }))
 * ```
 *
 * @since 0.1.0
 */
export const serve = <S extends Surface.Spec, R = never>(
  implemented: Implementation.Implemented<S, R>,
  options: ServeOptions<S>
): Effect.Effect<void, ServeError | Expose.CheckError, Scope.Scope | R> =>
  Effect.gen(function*() {
    const { path } = options
    const checked = yield* Expose.check(implemented.spec, options.expose, "wire")
    const refused = (failure: SocketFile.Failure) => new ServeError({ path, reason: failure.reason })
    yield* SocketFile.clearStale(path).pipe(Effect.mapError(refused))
    // Only what is exposed is in the group: a tag it does not hold is refused by the rpc server.
    const served = WireProtocol.exposed(implemented, checked)
    const group = WireProtocol.group(served.spec)
    // The handler record is keyed by the tags of this very group (see `WireProtocol.handlers`); the
    // group's rpc type is run-time, so the checker cannot pair each tag with its handler type.
    // `toHandlers` keeps the services it runs with (this fiber's, `R` among them) for every call.
    const handlers = yield* group.toHandlers(WireProtocol.handlers(served) as never)
    const server = yield* SocketFile.listen(path).pipe(Effect.mapError(refused))
    const protocol = yield* RpcServer.makeProtocolSocketServer.pipe(
      Effect.provideService(SocketServer.SocketServer, server),
      Effect.provideService(RpcSerialization.RpcSerialization, serialization),
      // A client that exits resets its connection, which the socket server reports as an unhandled
      // read error; for a daemon whose clients come and go that is routine, not an error.
      Effect.provideService(References.UnhandledLogLevel, "Debug")
    )
    const run = RpcServer.make(group, {
      // By default a defect in one handler is sent as a connection-wide defect, which fails every
      // other call in flight on that connection; here it fails only its own call.
      disableFatalDefects: true
    }).pipe(Effect.provideService(RpcServer.Protocol, protocol), Effect.provideContext(handlers))
    // Over a run-time rpc union the requirements compute to `unknown`; what the server needs is the
    // protocol and a handler per tag, both provided above, and the group declares no middleware.
    yield* Effect.forkScoped(run as Effect.Effect<never>)
  })

/**
 * Where to dial, and (optionally) how long a silent peer is tolerated before the link counts as
 * dropped.
 *
 * @example
 * ```ts
 * import type { Wire } from "effect-surface/wire"
 * const options: Wire.DialOptions = { path: "/tmp/todos.sock", pingInterval: "5 seconds" }
 * ```
 *
 * @since 0.1.0
 */
export interface DialOptions {
  readonly path: string
  /**
   * Ping the served side this often, and drop the link when it stays silent for `pingTimeout`. Off
   * by default: a unix socket reports its peer's exit by itself, and a heartbeat on a test clock
   * would drop a healthy link whenever the test moves time faster than the pong can arrive.
   */
  readonly pingInterval?: Duration.Input | undefined
  /** How long without any frame from the served side before the link drops (default: the interval). */
  readonly pingTimeout?: Duration.Input | undefined
}

/** One dialled socket and the announcements of its close. */
interface Link {
  readonly socket: Net.Socket
  /** Completed when the socket ends, fails or closes, whoever caused it. */
  readonly dropped: Deferred.Deferred<void>
  readonly isDropped: () => boolean
  readonly isDisposed: () => boolean
  /** Why the socket closed, in words. */
  readonly reason: () => string
  readonly onClose: (listener: () => void) => void
  /** Close the socket without announcing it: the owner asked for it. */
  readonly dispose: () => void
}

// Built inside the connect callback, so the socket is never without an `error` listener (an
// unlistened `error` event would crash the process) and no close can slip past unobserved.
const makeLink = (socket: Net.Socket, path: string): Link => {
  const dropped = Deferred.makeUnsafe<void>()
  const listeners = new Set<() => void>()
  let failure: unknown = undefined
  let disposed = false
  const drop = () => {
    if (!Deferred.doneUnsafe(dropped, Exit.void)) return
    const announce = disposed ? [] : Array.from(listeners)
    listeners.clear()
    for (const listener of announce) listener()
  }
  socket.on("error", (e) => {
    failure ??= e
    drop()
  })
  // The peer ending its side comes a moment before the close: from then on it answers nothing, and
  // a request written in between would fail on the half-closed socket rather than be refused.
  socket.once("end", drop)
  socket.once("close", drop)
  return {
    socket,
    dropped,
    isDropped: () => Deferred.isDoneUnsafe(dropped),
    isDisposed: () => disposed,
    reason: () =>
      disposed
        ? `the connection to ${path} was disposed by its owner`
        : failure !== undefined
        ? `the connection to ${path} failed: ${errorText(failure)}`
        : `the connection to ${path} closed: the serving process exited or closed it`,
    onClose: (listener) => {
      // A link already closed when the listener arrives announces at once: the pool reads a close
      // during registration as a connection born dead.
      if (!Deferred.isDoneUnsafe(dropped)) listeners.add(listener)
      else if (!disposed) listener()
    },
    dispose: () => {
      disposed = true
      socket.destroy()
    }
  }
}

const connect = (path: string): Effect.Effect<Link, LinkError> =>
  Effect.callback((resume) => {
    const socket = Net.createConnection({ path })
    const refused = (e: Error) => {
      socket.destroy()
      resume(Effect.fail(new LinkError({ phase: "dial", reason: `nothing answers on ${path}: ${e.message}` })))
    }
    socket.once("error", refused)
    socket.once("connect", () => {
      socket.off("error", refused)
      resume(Effect.succeed(makeLink(socket, path)))
    })
    return Effect.sync(() => socket.destroy())
  })

const neverReopened = new Socket.SocketError({
  reason: new Socket.SocketOpenError({
    kind: "Unknown",
    cause: new Error("a dialled wire connection is never reopened")
  })
})

const isRpcClientError = (e: unknown): e is { readonly message: string; readonly reason: unknown } =>
  Predicate.isTagged(e, "RpcClientError")

/** The rpc client as this module calls it: by tag, with a payload the spec already typed. */
type FlatRpc = (tag: string, payload: unknown) => Effect.Effect<unknown, unknown> | Stream.Stream<unknown, unknown>

const openClient = <S extends Surface.Spec>(spec: S, options: DialOptions, scope: Scope.Closeable) =>
  Effect.gen(function*() {
    const { path } = options
    const link = yield* Effect.acquireRelease(connect(path), (link) => Effect.sync(link.dispose))
    let opened = false
    // One socket per dial: the rpc protocol re-runs this on a reconnect attempt, and a second run
    // must fail rather than hand the dead socket back. Closing the reader's scope (a ping timeout)
    // closes the socket, which announces the drop.
    const openOnce = Effect.suspend(() => {
      if (opened) return Effect.fail(neverReopened)
      opened = true
      return Effect.flatMap(
        Effect.scope,
        (reader) => Effect.as(Scope.addFinalizer(reader, Effect.sync(() => link.socket.destroy())), link.socket)
      )
    })
    const socket = yield* NodeSocket.fromDuplex(openOnce)
    // Completed once the rpc layer's read loop has stopped, after it handed on every frame it read.
    const readerEnded = yield* Deferred.make<void>()
    const hooks = RpcClient.ConnectionHooks.of({
      onConnect: Effect.void,
      onDisconnect: Deferred.succeed(readerEnded, undefined)
    })
    const protocol = yield* RpcClient.makeProtocolSocket({
      // The default policy reconnects forever and resumes sending on the new socket; a dropped
      // link must stay dropped so the pool re-dials and nothing is replayed to a new daemon.
      retryPolicy: Schedule.recurs(0),
      retryTransientErrors: false,
      pingInterval: options.pingInterval ?? Duration.infinity,
      pingTimeout: options.pingTimeout
    }).pipe(
      Effect.provideService(Socket.Socket, socket),
      Effect.provideService(RpcSerialization.RpcSerialization, serialization),
      Effect.provideService(RpcClient.ConnectionHooks, hooks)
    )
    const made = yield* RpcClient.make(WireProtocol.group(spec), { flatten: true, disableTracing: true }).pipe(
      Effect.provideService(RpcClient.Protocol, protocol)
    )
    // The flat client's signature is computed from the group's rpc union, which is run-time here;
    // every tag it is called with below comes from the same spec that derived the group.
    const rpc = made as unknown as FlatRpc

    const closed = Effect.suspend(() => Effect.fail(new LinkError({ phase: "closed", reason: link.reason() })))
    // The backstop for a request the rpc layer never settles (a write to a socket that died a moment
    // ago can wait for a drain that never comes). It waits for the read loop to stop rather than for
    // the socket to drop, so an answer that arrived before the drop is never lost to it.
    const lost = Effect.andThen(
      Deferred.await(readerEnded),
      Effect.suspend(() => Effect.fail(new LinkError({ phase: "call", reason: link.reason() })))
    )
    // What the rpc layer reports when no answer came back, re-framed as the link failing with the
    // request sent: a transport error, or an interruption this side did not ask for (the served side
    // shut down, or the connection was disposed under the call).
    const frame = (tag: string) => (cause: Cause.Cause<unknown>): Effect.Effect<never, unknown> => {
      const error = Cause.findError(cause)
      if (Result.isSuccess(error) && isRpcClientError(error.success)) {
        // The rpc layer often hears of the peer's exit (end of input) just before the socket closes.
        const reason = link.isDropped() || Predicate.isTagged(error.success.reason, "SocketCloseError")
          ? link.reason()
          : `the connection to ${path} failed: ${error.success.message}`
        return Effect.fail(new LinkError({ phase: "call", reason }))
      }
      const defect = Cause.findDefect(cause)
      // The served side has no such rpc: its expose map does not name the member. A configuration
      // mismatch between the two sides, not a link failure, so the pool keeps the connection.
      if (Result.isSuccess(defect) && errorText(defect.success) === `Unknown request tag: ${tag}`) {
        return Effect.die(new Error(`${path} does not serve ${tag}: the expose map it is served with does not name it`))
      }
      // A request the socket refused to write dies in the rpc layer rather than failing.
      if (Result.isSuccess(defect) && Socket.isSocketError(defect.success)) {
        return Effect.fail(new LinkError({ phase: "call", reason: link.reason() }))
      }
      if (Cause.hasInterruptsOnly(cause)) {
        const reason = link.isDropped() || link.isDisposed() ? link.reason() : "the served side interrupted the call"
        return Effect.fail(new LinkError({ phase: "call", reason }))
      }
      return Effect.failCause(cause)
    }
    const call = (tag: string, payload: unknown): Effect.Effect<unknown, unknown> =>
      Effect.suspend(() =>
        link.isDropped() || link.isDisposed()
          ? closed
          : Effect.raceFirst(Effect.catchCause(rpc(tag, payload) as Effect.Effect<unknown, unknown>, frame(tag)), lost)
      )
    const subscribe = (tag: string): Stream.Stream<unknown, LinkError> =>
      Stream.suspend(() =>
        link.isDropped() || link.isDisposed()
          ? Stream.fromEffect(closed)
          : (rpc(tag, undefined) as Stream.Stream<unknown, unknown>).pipe(
            Stream.catchCause((cause) => Stream.fromEffect(frame(tag)(cause))),
            Stream.interruptWhen(lost),
            // subscriptions have no declared errors: whatever fails one is the link
            Stream.mapError((e) => e as LinkError)
          )
      )
    const owned: Owned<Client.Client<S>> = {
      client: WireProtocol.client(spec, {
        call,
        // Reads declare no error but `LinkError` (see `WireProtocol.group`), so `call` fails with
        // nothing else for them.
        read: (tag, payload) => call(tag, payload) as Effect.Effect<unknown, LinkError>,
        subscribe
      }),
      dispose: Effect.suspend(() => {
        link.dispose()
        return Scope.close(scope, Exit.void)
      }),
      onClose: link.onClose
    }
    return owned
  })

/**
 * Dial a surface served with {@link serve}. Fails at once with a `LinkError` of phase `"dial"` when
 * nothing listens on the path. The connection lives until `dispose` or until the caller's scope
 * closes; `onClose` announces the socket dropping (never a `dispose`) at most once per listener, at
 * once if it already dropped. Procedures fail with their declared errors or a `LinkError`: phase
 * `"call"` when the link died with the request sent (its outcome is unknown), `"closed"` when it was
 * gone before sending. Subscriptions fail with a `LinkError` when the link drops. Interrupting a
 * call interrupts the implementation on the served side. Nothing is ever retried or replayed.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { ConnectionPool, Surface } from "effect-surface"
 * import { Wire } from "effect-surface/wire"
 *
 * const Todos = Surface.make({ procedures: { todo: { count: { output: Schema.Int } } } })
 * const count = Effect.gen(function*() {
 *   const pool = yield* ConnectionPool.make({ dial: Wire.dial(Todos, { path: "/tmp/todos.sock" }), name: "todos.sock" })
 *   return yield* pool.use((client) => client.procedures.todo.count())
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
export const dial = <S extends Surface.Spec>(
  spec: S,
  options: DialOptions
): Effect.Effect<Owned<Client.Client<S>>, LinkError, Scope.Scope> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      // A scope of its own, so `dispose` closes exactly this connection.
      const scope = yield* Scope.fork(yield* Effect.scope, "sequential")
      return yield* restore(openClient(spec, options, scope).pipe(Scope.provide(scope))).pipe(
        Effect.onError(() => Scope.close(scope, Exit.void))
      )
    })
  )
