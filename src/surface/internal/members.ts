/**
 * What every client builder shares: `Client.directDispatch`, `Project.make` and the wire client all
 * turn per-member sources into the same client members, walk only the members the spec declares, and
 * fail a read whose source ends empty in the same way. Kept in one place so the three cannot drift.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { LinkError } from "../LinkError.ts"
import type * as Surface from "../Surface.ts"

/**
 * A read found nothing to answer with: the member's source ended before yielding the value the read
 * waits for — a cell, collection or stream's snapshot (the first frame of a snapshot-first source),
 * or an event's next pulse. The link is fine, so a pool keeps its connection; the *source* is empty.
 * `member` names it as its kind and key (`cell count`). Exported as `Client.NoSnapshot`.
 *
 * @example
 * ```ts
 * import { Effect, Schema, Stream } from "effect"
 * import { Project, Surface } from "effect-surface"
 *
 * const Spec = Surface.make({ cells: { count: Surface.cell(Schema.Int, 0) } })
 * const client = Project.make(Spec, { cells: { count: Stream.empty } })
 * const count = client.cells.count.read.pipe(Effect.catchTag("NoSnapshot", () => Effect.succeed(0)))
 * ```
 *
 * @since 0.1.0
 */
export class NoSnapshot extends Schema.TaggedError<NoSnapshot>()("NoSnapshot", { member: Schema.String }) {
  override get message(): string {
    return `${this.member} ended without a value`
  }
}

/**
 * The first element of a source read snapshot first; a source that ends empty fails with
 * {@link NoSnapshot} naming `member` (its kind and key, e.g. `stream log`), never with a link error.
 *
 * @since 0.1.0
 */
export const firstOf = <A, E>(stream: Stream.Stream<A, E>, member: string): Effect.Effect<A, E | NoSnapshot> =>
  Effect.flatMap(
    Stream.runHead(stream),
    Option.match({
      onNone: () => Effect.fail(new NoSnapshot({ member })),
      onSome: Effect.succeed
    })
  )

/**
 * Map the members a spec group declares, skipping any the source does not provide. Keys come from
 * `declared` only, and a source member is read only if it is the source's own property, so nothing
 * the spec does not name (or that an object inherits) ever becomes a client member.
 *
 * @since 0.1.0
 */
export const mapMembers = <M, C>(
  members: { readonly [key: string]: M } | undefined,
  declared: object,
  f: (member: M, key: string) => C
): { readonly [key: string]: C } =>
  Object.fromEntries(
    Object.keys(declared).flatMap((key) => {
      const member = members !== undefined && Object.hasOwn(members, key) ? members[key] : undefined
      return member === undefined ? [] : [[key, f(member, key)]]
    })
  )

/**
 * An item of a collection snapshot by key: present only when the map *has* the key, so an item whose
 * stored value is `undefined` is `Some(undefined)`, not absent.
 *
 * @since 0.1.0
 */
export const lookup = <K, V>(items: ReadonlyMap<K, V>, key: K): Option.Option<V> =>
  items.has(key) ? Option.some(items.get(key) as V) : Option.none() // `has` said the key is there

/**
 * A spec group that may be left out when the spec declares none of it, and is required otherwise.
 * Used by the shapes a spec demands (`Implementation.Implementation`, `Project.Derivation`).
 *
 * @since 0.1.0
 */
export type Group<K extends string, T> = keyof T extends never ? { readonly [P in K]?: T } : { readonly [P in K]: T }

/** A run-time client's procedures: `{ ns: { verb: call } }`, each needing `R` (what `Client.AnyClient` carries). */
type Procedures<R> = {
  readonly [ns: string]: { readonly [verb: string]: (input: never) => Effect.Effect<unknown, unknown, R> }
}

/**
 * The per-member sources a client is assembled from, each group keyed as in the spec. Cells and
 * collections differ by builder (a `SubscriptionRef`, a `Store`, a derived stream); streams, events
 * and procedures have one source shape everywhere.
 *
 * @since 0.1.0
 */
export interface Sources<C, L, R = unknown> {
  readonly cells?: { readonly [key: string]: C }
  readonly collections?: { readonly [key: string]: L }
  readonly streams?: { readonly [key: string]: Stream.Stream<ReadonlyArray<unknown>, LinkError> }
  readonly events?: { readonly [key: string]: Stream.Stream<unknown, LinkError> }
  readonly procedures?: Procedures<R>
}

/**
 * Assemble a run-time client from per-member sources: `cell` and `collection` say how one source
 * of those kinds becomes a client member; a stream is read snapshot first off its frames, an event
 * waits for its next pulse, and a procedure is served only under a namespace *and* verb the spec
 * declares — an implementation's extra verb is never reachable.
 *
 * @since 0.1.0
 */
export const assemble = <C, L, R, CellClient, CollectionClient>(
  spec: Surface.Spec,
  sources: Sources<C, L, R>,
  build: {
    readonly cell: (source: C, key: string) => CellClient
    readonly collection: (source: L, key: string) => CollectionClient
  }
) => ({
  spec,
  cells: mapMembers(sources.cells, spec.cells, build.cell),
  collections: mapMembers(sources.collections, spec.collections, build.collection),
  streams: mapMembers(sources.streams, spec.streams, (frames, key) => ({
    read: firstOf(frames, `stream ${key}`),
    subscribe: frames
  })),
  events: mapMembers(sources.events, spec.events, (pulses, key) => ({
    subscribe: pulses,
    next: firstOf(pulses, `event ${key}`)
  })),
  procedures: declaredProcedures(sources.procedures, spec.procedures)
})

/**
 * The procedures of `source` that `declared` names, namespace and verb alike.
 *
 * @since 0.1.0
 */
export const declaredProcedures = <R>(source: Procedures<R> | undefined, declared: Surface.Procedures): Procedures<R> =>
  mapMembers(source, declared, (verbs, ns) => mapMembers(verbs, declared[ns] ?? {}, (call) => call))
