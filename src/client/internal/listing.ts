/**
 * What a link knows of its server's tool list, and the rule every call obeys: nothing is sent over
 * a connection before that connection's listing is in and checked.
 *
 * A server can change its tools whenever it restarts, and a toolset learns of it only by listing.
 * So each connection is listed as it is dialled, before the pool hands it to any call: the listing
 * runs through the catalogue (drift against the baseline included), is recorded, and becomes what
 * calls are judged by — a tool the listing quarantined or no longer has is refused unsent, and a
 * connection whose listing failed carries no call at all. A listing that failed is tried again in
 * the background, on a widening schedule, so a server that was down when the toolset started (or
 * when a rebuild reconciled) is dialled again later and its tools appear.
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as MutableRef from "effect/MutableRef"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Catalog from "../Catalog.ts"
import type * as Config from "../Config.ts"
import * as Diagnostic from "../Diagnostic.ts"
import type * as Drift from "../Drift.ts"
import { ServerUnavailable, ToolQuarantined, ToolWithdrawn } from "../Errors.ts"
import * as Store from "../Store.ts"
import type * as Remote from "./remote.ts"
import * as Stored from "./stored.ts"

/**
 * What a link needs from its toolset: the options, where diagnostics go, and how to republish the
 * tool map once this server's tools have changed.
 */
export interface Env {
  readonly options: Config.Options<any>
  readonly emit: (diagnostic: Diagnostic.Diagnostic) => Effect.Effect<void>
  readonly publish: Effect.Effect<void>
}

/**
 * What the connection a call goes over was last listed as: the tool names it listed and which of
 * them may be called, or why it could not be listed (then nothing may be called over it).
 */
export type Published =
  | {
    readonly _tag: "Listed"
    readonly listed: ReadonlySet<string>
    readonly callable: ReadonlySet<string>
  }
  | { readonly _tag: "Unlisted"; readonly reason: string }

/**
 * A link's listing: its entries (what the map shows of it), what its current connection was listed
 * as (`undefined` before any connection was), and whether a listing that moves the entries is news —
 * said and republished — which the very first listing of a toolset made by connecting is not (the
 * toolset publishes its first map itself).
 */
export interface Listing {
  readonly entries: Ref.Ref<ReadonlyArray<Catalog.Entry>>
  readonly published: MutableRef.MutableRef<Published | undefined>
  readonly announce: MutableRef.MutableRef<boolean>
}

/** A fresh listing state, seeded with a stored catalogue's entries or empty. */
export const make = (seeded: ReadonlyArray<Catalog.Entry> | undefined): Effect.Effect<Listing> =>
  Effect.map(Ref.make(seeded ?? []), (entries) => ({
    entries,
    published: MutableRef.make<Published | undefined>(undefined),
    announce: MutableRef.make(seeded !== undefined)
  }))

/** A listing that could not be taken in, with the sentence saying why. */
export class ListingFailed extends Data.TaggedError("McpListingFailed")<{ readonly reason: string }> {
  override get message(): string {
    return this.reason
  }
}

/**
 * How often a listing that failed is tried again: after a second, doubling, then once a minute for
 * as long as the toolset lives.
 */
export const RELIST: Schedule.Schedule<unknown> = Schedule.min([
  Schedule.exponential("1 second"),
  Schedule.spaced("1 minute")
])

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

// Whether an entry of a listing can only be called as a task.
const tasksOnly = (entry: unknown): string | undefined => {
  if (typeof entry !== "object" || entry === null) return undefined
  const { execution, name } = entry as { readonly execution?: unknown; readonly name?: unknown }
  return typeof name === "string" && typeof execution === "object" && execution !== null &&
      (execution as { readonly taskSupport?: unknown }).taskSupport === "required"
    ? name
    : undefined
}

// What of a listing can be called over a session of `protocol`: on a 2025-11-25 session, where
// tasks are not followed, a tool that can only be called as a task is left out, each said once.
const callableOver = (
  protocol: Remote.Remote["protocol"],
  listed: ReadonlyArray<unknown>,
  server: string,
  env: Env
): Effect.Effect<ReadonlyArray<unknown>> => {
  if (protocol !== "2025-11-25") return Effect.succeed(listed)
  const left = listed.flatMap((entry) => {
    const name = tasksOnly(entry)
    return name === undefined ? [] : [name]
  })
  if (left.length === 0) return Effect.succeed(listed)
  return Effect.as(
    Effect.forEach(left, (tool) => env.emit(Diagnostic.toolNeedsTasks(server, tool)), { discard: true }),
    listed.filter((entry) => tasksOnly(entry) === undefined)
  )
}

/**
 * List one connection: the server's listing, checked for drift, run through the catalogue into the
 * entries, recorded, and published for the calls that follow on it (announced when it is news). The
 * deadline bounds the request alone. A failure leaves the connection `Unlisted`.
 */
export const take = (wired: Config.Wired<Config.Remote>, listing: Listing, env: Env) =>
(
  remote: Remote.Remote
): Effect.Effect<void, ListingFailed> =>
  remote.list.pipe(
    Effect.timeoutOrElse({
      duration: Duration.millis(wired.timeoutMs),
      orElse: () => Effect.fail(`tools/list gave no answer within ${wired.timeoutMs} ms`)
    }),
    Effect.mapError((error) => typeof error === "string" ? error : error.message),
    Effect.flatMap((listed) =>
      Effect.gen(function*() {
        const raw = yield* callableOver(remote.protocol, listed, wired.config.name, env)
        const baseline = yield* baselineFor(wired, env)
        const projected = Catalog.fromListing({ name: wired.config.name, key: wired.key }, raw, baseline)
        yield* Effect.forEach(projected.diagnostics, env.emit, { discard: true })
        const store = env.options.storage
        if (store !== undefined) yield* Stored.record(store, wired, projected.listed, projected.fingerprints, env.emit)
        MutableRef.set(listing.published, {
          _tag: "Listed",
          listed: new Set(projected.listed.map((tool) => tool.name)),
          callable: new Set(projected.entries.flatMap((entry) => entry.quarantined === true ? [] : [entry.tool.tool]))
        })
        const before = yield* Ref.getAndSet(listing.entries, projected.entries)
        if (MutableRef.get(listing.announce)) yield* announce(wired.config.name, before, projected.entries, env)
      })
    ),
    Effect.mapError((reason) => {
      MutableRef.set(listing.published, { _tag: "Unlisted", reason })
      return new ListingFailed({ reason })
    })
  )

/** Why a call was refused by its connection's listing. */
export type Refusal = ServerUnavailable | ToolQuarantined | ToolWithdrawn

/**
 * Whether `tool` may be sent over the connection just leased: refused, unsent, when that
 * connection's listing failed, no longer lists the tool, or lists it changed.
 */
export const check = (listing: Listing, server: string, name: string, tool: string): Refusal | undefined => {
  const now = MutableRef.get(listing.published)
  if (now === undefined || now._tag === "Unlisted") {
    const why = now === undefined ? "no listing is in" : now.reason
    return new ServerUnavailable({
      name,
      server,
      retrySafe: true,
      reason: `its tools could not be listed (${why}), so nothing is sent to it`
    })
  }
  if (now.callable.has(tool)) return undefined
  return now.listed.has(tool) ? new ToolQuarantined({ name, server, tool }) : new ToolWithdrawn({ name, server, tool })
}

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
