/**
 * The roster a face serves, and how it moves.
 *
 * A served bundle outlives its siblings: rows load and unload while hosts stay connected. The
 * roster holds the current resolution, its generation and its tombstones as ONE value in a
 * `SubscriptionRef`, so a move is one write — a request reads either the old roster or the new, never
 * a mix, and a name is always either served or tombstoned in the same snapshot — and faces react to
 * `changes` (list_changed notifications, re-opening subscriptions). A move re-runs the whole boot
 * composition; a roster the boot would refuse leaves the current one exactly as it was. The core
 * never moves (serving a different core is a different endpoint); the root tools move by `retool`,
 * through the same composition, so a tool added at run time is refused exactly where a clashing name
 * at boot would be.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import type * as Bundle from "./Bundle.ts"
import type * as ResolveError from "./ResolveError.ts"
import * as Resolver from "./Resolver.ts"
import * as Tombstones from "./Tombstones.ts"

/**
 * How a roster is built. `cap` bounds the tombstone table (default `Tombstones.DEFAULT_CAP`, 10,000);
 * past it the oldest retirement is forgotten. A negative cap is read as 0 (remember nothing), NaN as
 * the default; `Infinity` opts out of the bound.
 *
 * @example
 * ```ts
 * import type { Bundle } from "effect-surface"
 * import { Roster } from "effect-surface"
 *
 * declare const bundle: Bundle.Bundle
 * Roster.make(bundle, { cap: 500 })
 * ```
 *
 * @since 0.1.0
 */
export interface Options {
  readonly cap?: number | undefined
  /** The composition each generation is resolved with (default `Resolver.resolveBundle`). */
  readonly resolve?: ((bundle: Bundle.Bundle) => Effect.Effect<Bundle.Resolved, ResolveError.ResolveError>) | undefined
}

/**
 * One generation of a roster: the resolution, its number (0 at boot, +1 per accepted move) and the
 * tombstones standing beside it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Roster } from "effect-surface"
 *
 * declare const roster: Roster.Roster
 * const program = Effect.gen(function*() {
 *   const { generation, resolved }: Roster.Snapshot = yield* roster.snapshot
 *   return `${resolved.tools.length} tools at generation ${generation}`
 * })
 * ```
 *
 * @since 0.1.0
 */
export interface Snapshot {
  readonly resolved: Bundle.Resolved
  readonly generation: number
  readonly tombstones: Tombstones.Table
}

/**
 * A live roster. `current` and `changes` give the resolution (the list answers inside it are built
 * once per generation, so reading them twice gives the same arrays); `changes` starts with the
 * current one. `reroster` replaces the sibling map whole — absent means left — and answers the new
 * resolution, or the refusal with nothing changed. Lookups read one snapshot, so a retired name is
 * never briefly unknown.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Roster } from "effect-surface"
 * const program = Effect.gen(function*() {
 *   const roster = yield* Roster.Roster
 *   yield* roster.reroster({})
 *   return yield* roster.lookupTool("t_ops_run") // Retired: sibling "t" left the roster
 * })
 * ```
 *
 * @since 0.1.0
 */
export interface Roster {
  readonly current: Effect.Effect<Bundle.Resolved>
  readonly snapshot: Effect.Effect<Snapshot>
  readonly changes: Stream.Stream<Bundle.Resolved>
  readonly generation: Effect.Effect<number>
  readonly reroster: (surfaces: Bundle.Siblings) => Effect.Effect<Bundle.Resolved, ResolveError.ResolveError>
  /** Replace the bare-named root tools whole; refused (leaving the roster as it was) like a boot clash. */
  readonly retool: (tools: Bundle.RootTools) => Effect.Effect<Bundle.Resolved, ResolveError.ResolveError>
  readonly lookupTool: (name: string) => Effect.Effect<Tombstones.ToolLookup>
  readonly lookupUri: (uri: string) => Effect.Effect<Tombstones.UriLookup>
}

/**
 * The roster as a service, for an app with one served bundle. The key's type is the roster itself
 * (the convention Effect's own `HttpClient` follows), so `Roster.Roster` names both the key and the
 * value `make` answers; a face holding several rosters uses `make` directly.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Bundle } from "effect-surface"
 * import { Resolver, Roster } from "effect-surface"
 *
 * declare const bundle: Bundle.Bundle
 * const program = Effect.gen(function*() {
 *   const roster = yield* Roster.Roster
 *   return yield* roster.generation
 * }).pipe(Effect.provide(Roster.layer(bundle)), Effect.provide(Resolver.layer))
 * ```
 *
 * @since 0.1.0
 */
export const Roster: Context.Service<Roster, Roster> = Context.Service<Roster, Roster>("effect-surface/Roster")

/**
 * Resolve a bundle and hold it as generation 0; refused exactly as `Resolver.resolveBundle` refuses.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Roster, Surface } from "effect-surface"
 *
 * const Todos = Surface.make({ cells: { filter: Surface.cell(Schema.String, "all") } })
 * const program = Effect.gen(function*() {
 *   const roster = yield* Roster.make({ core: { surface: Todos, expose: { cells: { filter: true } } } })
 *   return yield* roster.current
 * })
 * ```
 *
 * @since 0.1.0
 */
export const make = (
  bundle: Bundle.Bundle,
  options?: Options | undefined
): Effect.Effect<Roster, ResolveError.ResolveError> =>
  Effect.gen(function*() {
    const given = options?.cap ?? Tombstones.DEFAULT_CAP
    // NaN would disable eviction silently; a bound that is not a number falls back to the default.
    const cap = Number.isNaN(given) ? Tombstones.DEFAULT_CAP : Math.max(0, given)
    const resolve = options?.resolve ?? Resolver.resolveBundle
    const resolved = yield* resolve(own(bundle))
    const ref = yield* SubscriptionRef.make<Snapshot>({ resolved, generation: 0, tombstones: Tombstones.empty })
    const snapshot = SubscriptionRef.get(ref)

    // Resolved under the ref's own lock, so concurrent moves apply one at a time, each against the
    // roster the previous one left; a refusal fails before the write, leaving the value as it was.
    const move = (change: (now: Bundle.Bundle) => Bundle.Bundle) =>
      SubscriptionRef.modifyEffect(ref, (now) =>
        Effect.map(resolve(change(now.resolved.bundle)), (next): [Bundle.Resolved, Snapshot] => {
          const generation = now.generation + 1
          const tombstones = Tombstones.advance(now.tombstones, now.resolved, next, generation, cap)
          return [next, { resolved: next, generation, tombstones }]
        }))

    return Roster.of({
      current: Effect.map(snapshot, (s) =>
        s.resolved),
      snapshot,
      changes: Stream.map(SubscriptionRef.changes(ref), (s) =>
        s.resolved),
      generation: Effect.map(snapshot, (s) => s.generation),
      reroster: (surfaces) => move((now) => ({ ...now, surfaces: ownSiblings(surfaces) })),
      retool: (tools) => move((now) => ({ ...now, tools: { ...tools } })),
      lookupTool: (name) => Effect.map(snapshot, (s) => Tombstones.lookupTool(s.resolved, s.tombstones, name)),
      lookupUri: (uri) => Effect.map(snapshot, (s) => Tombstones.lookupUri(s.resolved, s.tombstones, uri))
    })
  })

// The roster keeps its own copy of every table that moves (the sibling map, each sibling's record,
// the root tools), made once per move: a caller changing its object in place afterwards moves
// nothing behind the roster's back, and whether a move touched the members is read off the
// roster's own copy (see `sameMembers`), never off the caller's object.
const ownSiblings = (surfaces: Bundle.Siblings): Bundle.Siblings =>
  Object.fromEntries(Object.entries(surfaces).map(([key, sibling]) => [key, { ...sibling }]))

const own = (bundle: Bundle.Bundle): Bundle.Bundle => ({
  // The core never moves (serving another core is another endpoint), so it is kept as given.
  ...(bundle.core === undefined ? {} : { core: bundle.core }),
  ...(bundle.surfaces === undefined ? {} : { surfaces: ownSiblings(bundle.surfaces) }),
  ...(bundle.tools === undefined ? {} : { tools: { ...bundle.tools } })
})

/**
 * Whether two resolutions of one roster serve the same members: true across a move of the root
 * tools alone, false across any `reroster` (its sibling map is the roster's own copy, made at that
 * move, so even a map the caller changed in place and handed back counts as moved). A face reads
 * it to know whether resources moved: announce the list, re-open subscriptions on the connection
 * the move re-dialled.
 *
 * @example
 * ```ts
 * import type { Bundle } from "effect-surface"
 * import { Roster } from "effect-surface"
 *
 * declare const before: Bundle.Resolved
 * declare const after: Bundle.Resolved
 * if (!Roster.sameMembers(before, after)) {
 *   // resources moved: announce the list, re-open subscriptions
 * }
 * ```
 *
 * @since 0.1.0
 */
export const sameMembers = (a: Bundle.Resolved, b: Bundle.Resolved): boolean =>
  a.bundle.surfaces === b.bundle.surfaces && a.bundle.core === b.bundle.core

/**
 * Provide `Roster.Roster` for one bundle, resolved by the `Resolver` in context; the layer fails to
 * build with the bundle's refusal.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Surface } from "effect-surface"
 * import { Resolver, Roster } from "effect-surface"
 *
 * declare const Todos: Surface.Spec
 * declare const program: Effect.Effect<void, never, Roster.Roster>
 * program.pipe(Effect.provide(Roster.layer({ core: { surface: Todos, expose: {} } })), Effect.provide(Resolver.layer))
 * ```
 *
 * @since 0.1.0
 */
export const layer = (
  bundle: Bundle.Bundle,
  options?: Omit<Options, "resolve"> | undefined
): Layer.Layer<Roster, ResolveError.ResolveError, Resolver.Resolver> =>
  Layer.effect(
    Roster,
    Effect.flatMap(Resolver.Resolver, (resolver) => make(bundle, { ...options, resolve: resolver.resolveBundle }))
  )
