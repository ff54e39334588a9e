/**
 * One connection to a remote server, in the newest revision it speaks.
 *
 * A server is asked `server/discover` first: one that answers with 2026-07-28 among its versions is
 * spoken to statelessly (`modern.ts`), any other gets a 2025-11-25 session (`remote.ts`), unless
 * the entry pins a revision. Over stdio the probe goes to the child already started, and the
 * fallback's `initialize` follows it on the same channel: no second process is spawned to find out.
 * A server that cannot be reached at all is not retried in the older revision: that is a failed
 * dial, reported as one.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as Owned from "../../surface/Owned.ts"
import type * as Config from "../Config.ts"
import type * as Transports from "../Transports.ts"
import * as Channels from "./channels.ts"
import * as Modern from "./v2026/connect.ts"
import * as Asked from "./questions.ts"
import * as Remote from "./remote.ts"
import * as Requests from "./v2026/requests.ts"
import * as Tasks from "./v2026/tasks.ts"

/** What a dial needs beyond a session's options: the revision asked for. */
export interface Options extends Remote.Options {
  readonly protocol: Config.Protocol
  /** The whole connect's deadline: a probe left unanswered gives way in time for the fallback. */
  readonly connectTimeoutMs?: number | undefined
}

// A failure that says the server is there but does not speak 2026 — as opposed to one that is not
// there, or that wants a credential first (401, 403), which the older revision would be refused too.
const spokeOtherwise = (error: Remote.Failure): boolean =>
  error._tag === "McpRejected" && error.code !== 401 && error.code !== 403

// How long a probe on a shared channel waits for an answer before the server is taken to be one that
// ignores requests it does not know: ten seconds, or half the connect's deadline when that is
// shorter, so such a server is still reached, by its initialize, within the deadline.
const PROBE_WAIT_MS = 10_000
const probeWait = (options: Options) =>
  Duration.millis(Math.min(PROBE_WAIT_MS, (options.connectTimeoutMs ?? 2 * PROBE_WAIT_MS) / 2))

// A 2026 client follows tasks (the extension): a long call answered with one is waited on for its caller.
const identityOf = (options: Remote.Options): Requests.Identity => ({
  clientInfo: options.clientInfo,
  capabilities: { ...Asked.capabilities(options.handlers), extensions: { [Tasks.extension]: {} } }
})

const overChannel = (transport: Transport, options: Options) =>
  Effect.gen(function*() {
    yield* Effect.addFinalizer(() => Effect.promise(() => transport.close().catch(() => undefined)))
    yield* Effect.tryPromise({ try: () => transport.start(), catch: Remote.classify })
    const channel = yield* Channels.messages(transport)
    const send = Requests.sender(channel, identityOf(options))
    const found = yield* Modern.discover(send).pipe(
      Effect.timeoutOrElse({
        duration: probeWait(options),
        orElse: () => Effect.fail(new Remote.Rejected({ code: -32001, reason: "server/discover was not answered" }))
      }),
      Effect.result
    )
    if (found._tag === "Success") return yield* Modern.connect({ ...options, channel, send, discovered: found.success })
    if (options.protocol === "2026-07-28" || !spokeOtherwise(found.failure)) return yield* found.failure
    return yield* Remote.connect(Channels.started(transport), options)
  })

const overHttp = (opened: Transports.Opened, http: NonNullable<Transports.Opened["http"]>, options: Options) =>
  Effect.gen(function*() {
    const channel = Channels.http(http.url, http.fetch, http.headers)
    const send = Requests.sender(channel, identityOf(options))
    const found = yield* Effect.result(Modern.discover(send))
    if (found._tag === "Success") return yield* Modern.connect({ ...options, channel, send, discovered: found.success })
    if (options.protocol === "2026-07-28" || !spokeOtherwise(found.failure)) return yield* found.failure
    return yield* Remote.connect(opened.transport, options)
  })

/**
 * Connect over what was opened, in the revision the entry asks for (`"auto"`: the newest the server
 * speaks), for the scope's life.
 */
export const connect = (
  opened: Transports.Opened,
  options: Options
): Effect.Effect<Owned.Owned<Remote.Remote>, Remote.Failure, Scope.Scope> => {
  if (options.protocol === "2025-11-25") return Remote.connect(opened.transport, options)
  if (opened.http !== undefined) return overHttp(opened, opened.http, options)
  if (opened.kind === "sse") return Remote.connect(opened.transport, options)
  return overChannel(opened.transport, options)
}
