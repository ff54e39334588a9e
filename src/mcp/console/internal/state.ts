/**
 * What the operator's console knows, and the feed that tells its pages each change.
 *
 * A page opened late must see what one open from the start saw, and an open page must hear each move
 * the moment it happens, without polling. So the console keeps one state — the roster as listed, the
 * recent calls, the calls held for a decision, the clients seen, the exposed cells' values — and a
 * `PubSub` of the same moves: a page subscribes, is sent the state whole, then each move. Every move
 * goes through `apply`, which updates the state and publishes under one lock, so no page misses one
 * between its snapshot and its subscription.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import * as Ref from "effect/Ref"
import * as Semaphore from "effect/Semaphore"
import type * as Scope from "effect/Scope"
import type * as Identity from "../../../core/Identity.ts"
import type * as Json from "../../../core/Json.ts"
import type { Peer } from "../../face/Peer.ts"

/** The lists an agent is shown, as listed, with what is retired and what the expose map holds back. */
export interface RosterView {
  readonly generation: number
  readonly tools: ReadonlyArray<Json.JsonObject>
  readonly resources: ReadonlyArray<Json.JsonObject>
  readonly templates: ReadonlyArray<Json.JsonObject>
  readonly prompts: ReadonlyArray<Json.JsonObject>
  readonly tombstones: ReadonlyArray<{ readonly name: string; readonly reason: string }>
  /** Declared members the expose map keeps from agents (`key/group.name`). */
  readonly hidden: ReadonlyArray<string>
  /** With authorization on, the scope each tool needs (a tool needing none is absent). */
  readonly toolScopes: Readonly<Record<string, string>>
}

/** What callers holding one set of scopes are listed (authorization on), by name. */
export interface ScopeView {
  /** The scopes, sorted and space-separated; empty for a token with none. */
  readonly scopes: string
  readonly tools: ReadonlyArray<string>
  readonly resources: ReadonlyArray<string>
  readonly templates: ReadonlyArray<string>
  readonly prompts: ReadonlyArray<string>
}

/**
 * Who made a call. A client names itself (`clientInfo`) however it likes — "ada's Claude Code
 * (trusted)" — so that name is only ever shown as its claim; who the caller is, when authorization is
 * on, is the subject of its verified token.
 */
export interface Caller {
  /** As the page names the caller: the verified subject first, then what the client says it is. */
  readonly caller: string
  /** The subject of the caller's verified bearer token; absent when calls are not authenticated. */
  readonly subject?: string | undefined
  /** The name and version the client declared: its own claim, never verified. */
  readonly client?: string | undefined
}

/** One call, as the console shows it (argument values only when the operator opted in). */
export interface CallRow extends Caller {
  readonly id: string
  readonly time: number
  readonly tool: string
  readonly decision: "allow" | "held" | "approved" | "denied"
  readonly outcome: "running" | "ok" | "error" | "refused" | "cancelled"
  readonly durationMs?: number | undefined
  readonly decidedBy?: string | undefined
  readonly args?: unknown
}

/** A call waiting for the operator. */
export interface Held extends Caller {
  readonly id: string
  readonly time: number
  readonly deadline: number
  readonly tool: string
  readonly server: string
  readonly description?: string | undefined
  readonly args?: unknown
}

/** A decision on a held call: whose call it was, who decided (the page, or the clock), and what. */
export interface Decided extends Caller {
  readonly id: string
  readonly time: number
  readonly tool: string
  readonly decision: "allow" | "deny"
  readonly by: string
  readonly reason?: string | undefined
}

/** A client seen calling, keyed by its session or its subject, name and era. */
export interface Client {
  readonly key: string
  readonly era: string
  /** What the client says it is (`client says "…"`): its claim, never verified. */
  readonly name: string
  /** The subject of its verified bearer token, when authorization is on. */
  readonly subject?: string | undefined
  readonly session?: string | undefined
  /** The console (one per instance) that saw it: on Redis, which instance the client reached. */
  readonly instance: string
  readonly lastSeen: number
  readonly calls: number
}

/** Each move a page hears. */
export type Move =
  | { readonly _tag: "roster"; readonly roster: RosterView }
  | { readonly _tag: "call"; readonly call: CallRow }
  | { readonly _tag: "held"; readonly held: Held }
  | { readonly _tag: "decided"; readonly decided: Decided }
  | { readonly _tag: "client"; readonly client: Client }
  | { readonly _tag: "cell"; readonly uri: string; readonly text: string }
  | { readonly _tag: "cellsServed"; readonly uris: ReadonlyArray<string> }
  | { readonly _tag: "audit"; readonly row: Json.JsonObject }
  | { readonly _tag: "views"; readonly views: ReadonlyArray<ScopeView> }

/** The whole state a page is sent first. */
export interface Snapshot {
  readonly roster: RosterView | undefined
  readonly calls: ReadonlyArray<CallRow>
  readonly held: ReadonlyArray<Held>
  readonly decided: ReadonlyArray<Decided>
  readonly clients: ReadonlyArray<Client>
  readonly cells: Readonly<Record<string, string>>
  readonly audit: ReadonlyArray<Json.JsonObject>
  readonly views: ReadonlyArray<ScopeView>
}

/** The console's state and feed. */
export interface State {
  readonly apply: (move: Move) => Effect.Effect<void>
  /** The state whole and a subscription to every later move, taken together. */
  readonly follow: Effect.Effect<
    { readonly snapshot: Snapshot; readonly moves: PubSub.Subscription<Move> },
    never,
    Scope.Scope
  >
  readonly snapshot: Effect.Effect<Snapshot>
}

const empty: Snapshot = {
  roster: undefined,
  calls: [],
  held: [],
  decided: [],
  clients: [],
  cells: {},
  audit: [],
  views: []
}

const upsert = <A extends { readonly id: string }>(rows: ReadonlyArray<A>, row: A, keep: number): ReadonlyArray<A> => {
  const at = rows.findIndex((r) => r.id === row.id)
  if (at >= 0) return rows.map((r, i) => i === at ? row : r)
  const next = [...rows, row]
  return next.length > keep ? next.slice(next.length - keep) : next
}

/** The state after one move; `keep` bounds each history. */
export const step = (state: Snapshot, move: Move, keep: number): Snapshot => {
  switch (move._tag) {
    case "roster":
      return { ...state, roster: move.roster }
    case "call":
      return { ...state, calls: upsert(state.calls, move.call, keep) }
    case "held":
      return { ...state, held: upsert(state.held, move.held, keep) }
    case "decided":
      return {
        ...state,
        held: state.held.filter((h) => h.id !== move.decided.id),
        decided: upsert(state.decided, move.decided, keep)
      }
    case "client": {
      const others = state.clients.filter((c) => c.key !== move.client.key)
      return { ...state, clients: [...others, move.client].slice(-keep) }
    }
    case "cell":
      return { ...state, cells: { ...state.cells, [move.uri]: move.text } }
    case "cellsServed":
      return {
        ...state,
        cells: Object.fromEntries(Object.entries(state.cells).filter(([uri]) => move.uris.includes(uri)))
      }
    case "audit":
      return { ...state, audit: [...state.audit, move.row].slice(-keep) }
    case "views":
      return { ...state, views: move.views }
  }
}

/** A fresh state and feed, keeping at most `keep` rows of each history. */
export const make = (keep: number): Effect.Effect<State> =>
  Effect.gen(function*() {
    const ref = yield* Ref.make(empty)
    // A page that stops reading holds at most this many moves; past it the oldest go (reloading it
    // sends the state whole again), so no page can grow the server's memory without bound.
    const pubsub = yield* PubSub.sliding<Move>(4096)
    const lock = yield* Semaphore.make(1)
    return {
      apply: (move) =>
        lock.withPermits(1)(Effect.andThen(Ref.update(ref, (s) => step(s, move, keep)), PubSub.publish(pubsub, move))),
      follow: lock.withPermits(1)(Effect.all({ snapshot: Ref.get(ref), moves: PubSub.subscribe(pubsub) })),
      snapshot: Ref.get(ref)
    }
  })

// A claimed name is quoted (so nothing in it reads as the page's own words) and bounded.
const claimLimit = 120
const quoted = (claim: string) => JSON.stringify(claim.length > claimLimit ? `${claim.slice(0, claimLimit)}…` : claim)

/** What a client says it is, as the page shows it: `client says "…"`, or `a client` when it named none. */
export const claimOf = (peer: Peer): string =>
  peer.client === undefined ? "a client" : `client says ${quoted(`${peer.client.name} ${peer.client.version}`)}`

/** How a caller is named on the page and in the record: its verified subject, beside the client's claim. */
export const callerOf = (peer: Peer | undefined, principal: Identity.Principal): Caller => {
  const subject = principal._tag === "Token" ? principal.subject : undefined
  if (peer === undefined) return { caller: subject ?? "in process", subject }
  const where = peer.session === undefined ? `(${peer.era})` : `(${peer.era}, session ${peer.session.slice(0, 8)})`
  return {
    caller: `${subject === undefined ? "" : `${subject} — `}${claimOf(peer)} ${where}`,
    subject,
    client: peer.client === undefined ? undefined : `${peer.client.name} ${peer.client.version}`
  }
}
