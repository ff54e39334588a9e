/**
 * Which session makes room for a new one, decided in one place for the session table.
 *
 * Sessions are bounded twice: per holder (`maxSessionsPerHolder`, for sessions opened behind a
 * resource server) and in all (`maxSessions`). A holder opening one past its quota gives up its own
 * least recently used idle session, never another's; only a holder whose every session is in use is
 * refused. A full table gives up the least recently used idle session of the holder with the most
 * sessions, so one caller opening many takes its own sessions' places, not those of callers with a
 * few. Without authorization there is no holder to tell callers apart (a remote address is the load
 * balancer's, or a whole network's behind NAT), so every session is one holder's and the table gives
 * up its least recently used idle session, as before.
 *
 * @internal
 */
import * as Ref from "effect/Ref"

/** What the decision reads of a session. */
export interface Held {
  readonly id: string
  readonly holder: string | undefined
  /** Responses open on the session: one with any is in use. */
  readonly open: Ref.Ref<number>
  readonly lastSeen: Ref.Ref<number>
}

/** The bounds. */
export interface Bounds {
  readonly maxSessions: number
  /** Applies to sessions with a holder only; none: no quota. */
  readonly maxSessionsPerHolder: number | undefined
}

/** The decision: a place, perhaps taken from a session given up, or a refusal saying why. */
export type Room<E> =
  | { readonly _tag: "Free" }
  | { readonly _tag: "Evict"; readonly evicted: E; readonly why: string }
  | { readonly _tag: "Refused"; readonly reason: string }

interface Holding<E> {
  count: number
  /** The holder's least recently used idle session. */
  idle: E | undefined
}

const seen = (entry: Held) => Ref.getUnsafe(entry.lastSeen)

// Every holder's count and least recently used idle session, in one pass over the table.
const holdings = <E extends Held>(entries: Iterable<E>): Map<string | undefined, Holding<E>> => {
  const held = new Map<string | undefined, Holding<E>>()
  for (const entry of entries) {
    let holding = held.get(entry.holder)
    if (holding === undefined) {
      holding = { count: 0, idle: undefined }
      held.set(entry.holder, holding)
    }
    holding.count++
    if (Ref.getUnsafe(entry.open) > 0) continue
    if (holding.idle === undefined || seen(entry) < seen(holding.idle)) holding.idle = entry
  }
  return held
}

// The holder with the most sessions among those with one idle (the older idle one on a tie).
const mostHeld = <E extends Held>(held: Map<string | undefined, Holding<E>>): E | undefined => {
  let chosen: { readonly count: number; readonly idle: E } | undefined
  for (const { count, idle } of held.values()) {
    if (idle === undefined) continue
    if (chosen === undefined || count > chosen.count || (count === chosen.count && seen(idle) < seen(chosen.idle))) {
      chosen = { count, idle }
    }
  }
  return chosen?.idle
}

/**
 * Where a new session of `holder` goes in a table holding `entries`.
 *
 * @internal
 */
export const roomFor = <E extends Held>(
  entries: ReadonlyMap<string, E>,
  holder: string | undefined,
  bounds: Bounds
): Room<E> => {
  const quota = holder === undefined ? undefined : bounds.maxSessionsPerHolder
  const full = entries.size >= bounds.maxSessions
  if (quota === undefined && !full) return { _tag: "Free" }
  const held = holdings(entries.values())
  const own = held.get(holder)
  if (quota !== undefined && own !== undefined && own.count >= quota) {
    return own.idle === undefined
      ? {
        _tag: "Refused",
        reason: `this caller already holds ${quota} sessions (maxSessionsPerHolder), each in use; end one first`
      }
      : {
        _tag: "Evict",
        evicted: own.idle,
        why: `its holder opened one past the ${quota} a holder may keep, and it was their least recently used`
      }
  }
  if (!full) return { _tag: "Free" }
  const evicted = mostHeld(held)
  return evicted === undefined
    ? { _tag: "Refused", reason: `all ${bounds.maxSessions} sessions are in use` }
    : {
      _tag: "Evict",
      evicted,
      why: "the table was full, and it was the least recently used of the holder with the most sessions"
    }
}
