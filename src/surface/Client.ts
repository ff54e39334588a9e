/**
 * The typed client of a surface: how every face reaches an implementation.
 *
 * A face never holds an implementation directly. It holds a client, whether the implementation runs
 * in the same process (`directDispatch`) or behind a socket (the wire face), so the same face code
 * serves both shapes. Every read is snapshot-first, every call fails with the declared error union or
 * a `LinkError`, and interrupting a call interrupts the work behind it.
 *
 * Error channels, and who reacts to them: a `LinkError` means the link itself failed, and a
 * connection pool drops the connection on it; {@link NoSnapshot} (a read whose source ended empty)
 * and {@link NotServed} (a run-time address the client does not serve) are answers over a healthy
 * link, so they pass through a pool untouched.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SubscriptionRef from "effect/SubscriptionRef"
import type * as Option from "effect/Option"
import type * as Stream from "effect/Stream"
import type { LinkError } from "./LinkError.ts"
import type * as Implementation from "./Implementation.ts"
import type * as Store from "./Store.ts"
import type * as Surface from "./Surface.ts"
import { assemble, NoSnapshot } from "./internal/members.ts"
import type { Sources } from "./internal/members.ts"

/**
 * A read found nothing to answer with: the member's source ended before yielding its snapshot (or,
 * for an event's `next`, its next pulse). Not a link failure: a pool keeps the connection.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Client } from "effect-surface"
 * declare const client: Client.AnyClient
 * const count = Effect.catchTag(client.cells["count"]!.read, "NoSnapshot", () => Effect.succeed(0))
 * ```
 *
 * @since 0.1.0
 */
export { NoSnapshot }

/**
 * A run-time address names nothing the client serves: `member` says what was asked for, as its kind
 * and key (`procedure todo.nope`). The link is fine — the far side was never asked — so a pool keeps
 * the connection and a caller can report the name as a mistake.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Client } from "effect-surface"
 * declare const client: Client.AnyClient
 * // A run-time call's error channel is `unknown` (the declared errors are not known statically).
 * const answer = Client.call(client, "todo", "nope", undefined).pipe(
 *   Effect.catchIf(Schema.is(Client.NotServed), (e) => Effect.succeed(e.message)) // "the surface serves no procedure todo.nope"
 * )
 * ```
 *
 * @since 0.1.0
 */
export class NotServed extends Schema.TaggedError<NotServed>()("NotServed", { member: Schema.String }) {
  override get message(): string {
    return `the surface serves no ${this.member}`
  }
}

/**
 * A cell as a client sees it: its value now, or its value now and then every change. A read fails
 * with `NoSnapshot` only when its source ended before it had a value (a projection of a source that
 * closed); an implemented cell always has one.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Client, LinkError } from "effect-surface"
 * declare const count: Client.CellClient<number>
 * const now: Effect.Effect<number, LinkError | Client.NoSnapshot> = count.read
 * ```
 *
 * @since 0.1.0
 */
export interface CellClient<A> {
  readonly read: Effect.Effect<A, LinkError | NoSnapshot>
  readonly subscribe: Stream.Stream<A, LinkError>
}

/**
 * A collection as a client sees it: the items now (one-shot or snapshot-first) and one item by key.
 *
 * @example
 * ```ts
 * import type { Client } from "effect-surface"
 * declare const users: Client.CollectionClient<string, { readonly name: string }>
 * const ada = users.get("u1") // Effect<Option<{ name: string }>, LinkError | NoSnapshot>
 * ```
 *
 * @since 0.1.0
 */
export interface CollectionClient<K, V> {
  readonly read: Effect.Effect<ReadonlyMap<K, V>, LinkError | NoSnapshot>
  readonly subscribe: Stream.Stream<ReadonlyMap<K, V>, LinkError>
  readonly get: (key: K) => Effect.Effect<Option.Option<V>, LinkError | NoSnapshot>
}

/**
 * A stream as a client sees it: the backlog, or the backlog as the first frame and then each batch.
 *
 * @example
 * ```ts
 * import type { Client } from "effect-surface"
 * declare const log: Client.StreamClient<string>
 * const backlog = log.read // Effect<ReadonlyArray<string>, LinkError | NoSnapshot>
 * ```
 *
 * @since 0.1.0
 */
export interface StreamClient<A> {
  readonly read: Effect.Effect<ReadonlyArray<A>, LinkError | NoSnapshot>
  readonly subscribe: Stream.Stream<ReadonlyArray<A>, LinkError>
}

/**
 * An event as a client sees it: pulses from now on, or the next one. There is no snapshot; `next`
 * fails with `NoSnapshot` if the event's source ends before another pulse.
 *
 * @example
 * ```ts
 * import type { Client } from "effect-surface"
 * declare const saved: Client.EventClient<{ readonly id: string }>
 * const next = saved.next // Effect<{ id: string }, LinkError | NoSnapshot>
 * ```
 *
 * @since 0.1.0
 */
export interface EventClient<A> {
  readonly subscribe: Stream.Stream<A, LinkError>
  readonly next: Effect.Effect<A, LinkError | NoSnapshot>
}

/**
 * The typed client of a surface declared by `S`. A procedure fails with exactly its declared error
 * union or a `LinkError`, and needs `R` of whoever calls it: what its implementation's procedures
 * need (`Implementation.Services`) for a client in the same process, nothing for one dialled over a
 * wire (the serving side provides its own).
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Client, Surface } from "effect-surface"
 *
 * const Counter = Surface.make({ procedures: { counter: { incr: { input: Schema.Int, output: Schema.Int } } } })
 * declare const client: Client.Client<typeof Counter>
 * const two = client.procedures.counter.incr(2) // Effect<number, LinkError>
 * ```
 *
 * @since 0.1.0
 */
export interface Client<S extends Surface.Spec, R = never> {
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
        Surface.ErrorOf<S["procedures"][N][V]> | LinkError,
        R
      >
    }
  }
}

/**
 * A client whose spec is only known at run time — what a face that resolves names from an expose
 * map holds. Every typed `Client` is one; its procedures need `R` of their caller, as the typed
 * client's do.
 *
 * @example
 * ```ts
 * import { Client } from "effect-surface"
 * declare const client: Client.AnyClient
 * const cell = Object.hasOwn(client.cells, "count") ? client.cells["count"] : undefined
 * ```
 *
 * @since 0.1.0
 */
export interface AnyClient<R = never> {
  readonly spec: Surface.Spec
  readonly cells: { readonly [key: string]: CellClient<unknown> }
  readonly collections: {
    readonly [key: string]: {
      readonly read: Effect.Effect<ReadonlyMap<unknown, unknown>, LinkError | NoSnapshot>
      readonly subscribe: Stream.Stream<ReadonlyMap<unknown, unknown>, LinkError>
      /** Takes a key already decoded with the collection's own key schema. */
      readonly get: (key: never) => Effect.Effect<Option.Option<unknown>, LinkError | NoSnapshot>
    }
  }
  readonly streams: { readonly [key: string]: StreamClient<unknown> }
  readonly events: { readonly [key: string]: EventClient<unknown> }
  readonly procedures: {
    readonly [ns: string]: { readonly [verb: string]: (input: never) => Effect.Effect<unknown, unknown, R> }
  }
}

/**
 * View a typed client as a run-time one.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Client, Surface } from "effect-surface"
 *
 * const Counter = Surface.make({ cells: { count: Surface.cell(Schema.Int, 0) } })
 * declare const client: Client.Client<typeof Counter>
 * const any: Client.AnyClient = Client.erase(client)
 * ```
 *
 * @since 0.1.0
 */
export const erase = <S extends Surface.Spec, R = never>(client: Client<S, R>): AnyClient<R> =>
  // For any concrete spec `Client<S, R>` is assignable to `AnyClient<R>` (the tests check one); over
  // an unresolved `S` the checker cannot see through the mapped member types.
  client as unknown as AnyClient<R>

/**
 * Recover the typed client of a run-time one — a root tool's view of a bundle client — when it was
 * built for exactly this spec. The check is by identity of the declaration, the one every client
 * carries, so a client of another surface is refused rather than trusted.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Client, Surface } from "effect-surface"
 *
 * const Counter = Surface.make({ cells: { count: Surface.cell(Schema.Int, 0) } })
 * declare const any: Client.AnyClient | undefined
 * const count = Effect.flatMap(Client.narrow(Counter, any), (client) => client.cells.count.read)
 * ```
 *
 * @since 0.1.0
 */
export const narrow = <S extends Surface.Spec, R = never>(
  spec: S,
  client: AnyClient<R> | undefined
): Effect.Effect<Client<S, R>, NotServed> =>
  client !== undefined && client.spec === spec
    // Every client is built from the spec it carries (directDispatch, Project, Wire), so a client
    // carrying this very declaration serves it; the checker cannot follow that identity.
    ? Effect.succeed(client as unknown as Client<S, R>)
    : Effect.fail(
      new NotServed({ member: `surface this client was asked for${client === undefined ? " (no client)" : ""}` })
    )

/**
 * Call a procedure of a run-time client by address, with an input the caller has already decoded
 * against the procedure's own input schema. It fails with the procedure's declared errors or a
 * `LinkError`, and with {@link NotServed} when the client serves no such procedure — a wrong name,
 * not a broken link, so a pool keeps its connection.
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
export const call = <R>(
  client: AnyClient<R>,
  ns: string,
  verb: string,
  input: unknown
): Effect.Effect<unknown, unknown, R> => {
  const group = Object.hasOwn(client.procedures, ns) ? client.procedures[ns] : undefined
  const procedure = group !== undefined && Object.hasOwn(group, verb) ? group[verb] : undefined
  if (procedure === undefined) return Effect.fail(new NotServed({ member: `procedure ${ns}.${verb}` }))
  // The input was decoded with this very procedure's input schema, which is what its parameter
  // type is derived from; a run-time address cannot carry that link in the type system.
  return procedure(input as never)
}

/**
 * Build a client over an implementation in the same process: no transport, no encoding, so a
 * `LinkError` never occurs, and interrupting a call interrupts the implementation's fiber. Only what
 * the spec declares is served: a verb the implementation has beyond its spec is not reachable. A
 * procedure runs in its caller's fiber, so what it needs (`R`, say the caller's `Identity`) is what
 * the face calling it provides.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Client, Implementation, Surface } from "effect-surface"
 *
 * const Echo = Surface.make({ procedures: { echo: { say: { input: Schema.String, output: Schema.String } } } })
 * const client = Client.directDispatch(Implementation.make(Echo, { procedures: { echo: { say: Effect.succeed } } }))
 * const hi = client.procedures.echo.say("hi") // Effect<string, LinkError>
 * ```
 *
 * @since 0.1.0
 */
export const directDispatch = <S extends Surface.Spec, R = never>(
  implemented: Implementation.Implemented<S, R>
): Client<S, R> => {
  const { implementation, spec } = implemented
  // `SubscriptionRef` is invariant, so no typed implementation is assignable to this run-time view;
  // every member is used by `assemble` only under the spec key that typed it.
  const impl: Sources<SubscriptionRef.SubscriptionRef<unknown>, Store.Store<unknown, unknown>> = implementation as never
  const client = assemble(spec, impl, {
    cell: (ref) => ({ read: SubscriptionRef.get(ref), subscribe: SubscriptionRef.changes(ref) }),
    collection: (store) => ({ read: store.snapshot, subscribe: store.changes, get: store.get })
  })
  // Each member was built from the implementation of the same key, whose type `Implementation<S>`
  // derives from the same spec `Client<S, R>` is derived from; the mapping over keys is run-time.
  return client as unknown as Client<S, R>
}
