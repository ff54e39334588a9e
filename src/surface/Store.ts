/**
 * The keyed store that implements a collection member.
 *
 * A collection must answer two questions at once — "what is in it now" and "tell me when that
 * changes" — without a reader ever seeing a change it cannot place against a snapshot. Holding the
 * whole map in a `SubscriptionRef` gives exactly that: `changes` starts with the current map and then
 * emits every later one, so a subscriber is snapshot-first by construction.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { lookup } from "./internal/members.ts"

/**
 * A keyed store with change notifications: what implements a `Surface.Collection` member. A key
 * is present when the map has it, whatever its value — a stored `undefined` is `Some(undefined)`.
 *
 * @example
 * ```ts
 * import { Effect, Option } from "effect"
 * import { Store } from "effect-surface"
 * declare const users: Store.Store<string, { readonly name: string }>
 * const rename = users.update("u1", Option.map((user) => ({ ...user, name: "Ada" })))
 * ```
 *
 * @since 0.1.0
 */
export interface Store<K, V> {
  readonly ref: SubscriptionRef.SubscriptionRef<ReadonlyMap<K, V>>
  /** The current items. */
  readonly snapshot: Effect.Effect<ReadonlyMap<K, V>>
  /** The current items, then every later state of the store. */
  readonly changes: Stream.Stream<ReadonlyMap<K, V>>
  readonly get: (key: K) => Effect.Effect<Option.Option<V>>
  readonly set: (key: K, value: V) => Effect.Effect<void>
  readonly update: (key: K, f: (current: Option.Option<V>) => Option.Option<V>) => Effect.Effect<void>
  readonly remove: (key: K) => Effect.Effect<boolean>
  readonly replace: (items: Iterable<readonly [K, V]>) => Effect.Effect<void>
}

/**
 * Make a store, optionally with initial items. Each write copies the map, which keeps every
 * published snapshot immutable; a store meant for very large collections should be sharded.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Store } from "effect-surface"
 *
 * const program = Effect.gen(function*() {
 *   const users = yield* Store.make<string, { name: string }>()
 *   yield* users.set("u1", { name: "Ada" })
 *   return yield* users.get("u1")
 * })
 * ```
 *
 * @since 0.1.0
 */
export const make = <K, V>(initial: Iterable<readonly [K, V]> = []): Effect.Effect<Store<K, V>> =>
  Effect.map(SubscriptionRef.make<ReadonlyMap<K, V>>(new Map(initial)), (ref): Store<K, V> => ({
    ref,
    snapshot: SubscriptionRef.get(ref),
    changes: SubscriptionRef.changes(ref),
    get: (key) => Effect.map(SubscriptionRef.get(ref), (map) => lookup(map, key)),
    set: (key, value) => SubscriptionRef.update(ref, (map) => new Map(map).set(key, value)),
    update: (key, f) =>
      SubscriptionRef.update(ref, (map) => {
        const next = new Map(map)
        const result = f(lookup(map, key))
        if (Option.isSome(result)) next.set(key, result.value)
        else next.delete(key)
        return next
      }),
    remove: (key) =>
      SubscriptionRef.modify(ref, (map) => {
        if (!map.has(key)) return [false, map] as const
        const next = new Map(map)
        next.delete(key)
        return [true, next] as const
      }),
    replace: (items) => SubscriptionRef.set(ref, new Map(items))
  }))
