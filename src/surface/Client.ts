/**
 * The typed client of a surface: how every face reaches an implementation.
 *
 * A face never holds an implementation directly. It holds a client, whether the implementation runs
 * in the same process (`directDispatch`) or behind a socket (the wire face), so the same face code
 * serves both shapes. Every read is snapshot-first, every call fails with the declared error union or
 * a `LinkError`, and interrupting a call interrupts the work behind it.
 *
 * @since 0.1.0
 */
import { Effect, Option, Stream, SubscriptionRef } from "effect"
import { LinkError } from "../core/LinkError.ts"
import type * as Implementation from "./Implementation.ts"
import type * as Surface from "./Surface.ts"
import { firstOf, mapMembers } from "./internal/members.ts"

/**
 * A cell as a client sees it: its value now, or its value now and then every change.
 *
 * @since 0.1.0
 */
export interface CellClient<A> {
  readonly read: Effect.Effect<A, LinkError>
  readonly subscribe: Stream.Stream<A, LinkError>
}

/**
 * A collection as a client sees it: the items now (one-shot or snapshot-first) and one item by key.
 *
 * @since 0.1.0
 */
export interface CollectionClient<K, V> {
  readonly read: Effect.Effect<ReadonlyMap<K, V>, LinkError>
  readonly subscribe: Stream.Stream<ReadonlyMap<K, V>, LinkError>
  readonly get: (key: K) => Effect.Effect<Option.Option<V>, LinkError>
}

/**
 * A stream as a client sees it: the backlog, or the backlog as the first frame and then each batch.
 *
 * @since 0.1.0
 */
export interface StreamClient<A> {
  readonly read: Effect.Effect<ReadonlyArray<A>, LinkError>
  readonly subscribe: Stream.Stream<ReadonlyArray<A>, LinkError>
}

/**
 * An event as a client sees it: pulses from now on, or the next one. There is no snapshot.
 *
 * @since 0.1.0
 */
export interface EventClient<A> {
  readonly subscribe: Stream.Stream<A, LinkError>
  readonly next: Effect.Effect<A, LinkError>
}

/**
 * The typed client of a surface declared by `S`.
 *
 * @since 0.1.0
 */
export interface Client<S extends Surface.Spec> {
  readonly spec: S
  readonly cells: { readonly [K in keyof S["cells"]]: CellClient<Surface.ValueOf<S["cells"][K]>> }
  readonly collections: {
    readonly [K in keyof S["collections"]]: CollectionClient<
      Surface.KeyOf<S["collections"][K]>,
      Surface.ItemOf<S["collections"][K]>
    >
  }
  readonly streams: { readonly [K in keyof S["streams"]]: StreamClient<Surface.ValueOf<S["streams"][K]>> }
  readonly events: { readonly [K in keyof S["events"]]: EventClient<Surface.ValueOf<S["events"][K]>> }
  readonly procedures: {
    readonly [N in keyof S["procedures"]]: {
      readonly [V in keyof S["procedures"][N]]: (
        input: Surface.InputOf<S["procedures"][N][V]>
      ) => Effect.Effect<
        Surface.OutputOf<S["procedures"][N][V]>,
        Surface.ErrorOf<S["procedures"][N][V]> | LinkError
      >
    }
  }
}

/**
 * A client whose spec is only known at run time — what a face that resolves names from an expose
 * map holds. Every typed `Client` is one.
 *
 * @since 0.1.0
 */
export interface AnyClient {
  readonly spec: Surface.Spec
  readonly cells: { readonly [key: string]: CellClient<unknown> }
  readonly collections: {
    readonly [key: string]: {
      readonly read: Effect.Effect<ReadonlyMap<unknown, unknown>, LinkError>
      readonly subscribe: Stream.Stream<ReadonlyMap<unknown, unknown>, LinkError>
      /** Takes a key already decoded with the collection's own key schema. */
      readonly get: (key: never) => Effect.Effect<Option.Option<unknown>, LinkError>
    }
  }
  readonly streams: { readonly [key: string]: StreamClient<unknown> }
  readonly events: { readonly [key: string]: EventClient<unknown> }
  readonly procedures: {
    readonly [ns: string]: { readonly [verb: string]: (input: never) => Effect.Effect<unknown, unknown> }
  }
}

/**
 * View a typed client as a run-time one.
 *
 * @since 0.1.0
 */
export const erase = <S extends Surface.Spec>(client: Client<S>): AnyClient =>
  // For any concrete spec `Client<S>` is assignable to `AnyClient` (the tests check one); over an
  // unresolved `S` the checker cannot see through the mapped member types.
  client as unknown as AnyClient

/**
 * Call a procedure of a run-time client by address, with an input the caller has already decoded
 * against the procedure's own input schema. A missing procedure is a `LinkError` — the far side
 * does not serve it — never a crash.
 *
 * @example
 * ```ts
 * import { Client } from "effect-surface"
 * declare const client: Client.AnyClient
 * Client.call(client, "todo", "add", { title: "milk" })
 * ```
 *
 * @since 0.1.0
 */
export const call = (
  client: AnyClient,
  ns: string,
  verb: string,
  input: unknown
): Effect.Effect<unknown, unknown> => {
  const group = Object.hasOwn(client.procedures, ns) ? client.procedures[ns] : undefined
  const procedure = group !== undefined && Object.hasOwn(group, verb) ? group[verb] : undefined
  if (procedure === undefined) {
    return Effect.fail(new LinkError({ phase: "closed", reason: `the surface serves no procedure ${ns}.${verb}` }))
  }
  // The input was decoded with this very procedure's input schema, which is what its parameter
  // type is derived from; a run-time address cannot carry that link in the type system.
  return procedure(input as never)
}

/**
 * Build a client over an implementation in the same process: no transport, no encoding, so a
 * `LinkError` never occurs, and interrupting a call interrupts the implementation's fiber.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Client } from "effect-surface"
 * declare const implemented: Implementation.Implemented<typeof Spec>
 * const client = Client.directDispatch(implemented)
 * ```
 *
 * @since 0.1.0
 */
export const directDispatch = <S extends Surface.Spec>(implemented: Implementation.Implemented<S>): Client<S> => {
  const { implementation, spec } = implemented
  // Groups the spec leaves empty may be absent from the implementation (see `Implementation`).
  const impl: {
    readonly cells?: { readonly [key: string]: SubscriptionRef.SubscriptionRef<unknown> }
    readonly collections?: { readonly [key: string]: { readonly changes: Stream.Stream<ReadonlyMap<unknown, unknown>>; readonly get: (key: unknown) => Effect.Effect<Option.Option<unknown>> } }
    readonly streams?: { readonly [key: string]: Stream.Stream<ReadonlyArray<unknown>> }
    readonly events?: { readonly [key: string]: Stream.Stream<unknown> }
    readonly procedures?: { readonly [ns: string]: { readonly [verb: string]: (input: never) => Effect.Effect<unknown, unknown> } }
    // `SubscriptionRef` is invariant, so no typed implementation is assignable to this run-time
    // view; every member is used below only at the type its own spec key declares.
  } = implementation as never
  const client: AnyClient = {
    spec,
    cells: mapMembers(impl.cells, spec.cells, (ref): CellClient<unknown> => ({
      read: SubscriptionRef.get(ref),
      subscribe: SubscriptionRef.changes(ref)
    })),
    collections: mapMembers(impl.collections, spec.collections, (store, key): CollectionClient<unknown, unknown> => ({
      read: firstOf(store.changes, `collection ${key}`),
      subscribe: store.changes,
      get: store.get
    })),
    streams: mapMembers(impl.streams, spec.streams, (frames, key): StreamClient<unknown> => ({
      read: firstOf(frames, `stream ${key}`),
      subscribe: frames
    })),
    events: mapMembers(impl.events, spec.events, (pulses, key): EventClient<unknown> => ({
      subscribe: pulses,
      next: firstOf(pulses, `event ${key}`)
    })),
    procedures: mapMembers(impl.procedures, spec.procedures, (verbs) => verbs)
  }
  // Each member was built from the implementation of the same key, whose type `Implementation<S>`
  // derives from the same spec `Client<S>` is derived from; the mapping over keys is run-time.
  return client as unknown as Client<S>
}
