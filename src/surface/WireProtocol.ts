/**
 * What a surface looks like on the wire: the `effect/rpc` group a spec derives, the handlers an
 * implementation serves it with, and the typed client rebuilt from the rpc calls on the far side.
 *
 * Both ends derive the group from the same spec at run time, so there is no second declaration to
 * keep in step: a procedure's declared error schema is its rpc's error schema, which is why a tagged
 * error raised by the implementation arrives as the same tagged error on the client. Kept apart from
 * the sockets (`Wire.ts`) so the mapping can be read, and reused over another transport, on its own.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import type * as Option from "effect/Option"
import { Rpc, RpcGroup } from "effect/rpc"
import type { LinkError } from "./LinkError.ts"
import type * as Client from "./Client.ts"
import type * as Expose from "./Expose.ts"
import type * as Implementation from "./Implementation.ts"
import { assemble, declaredProcedures, mapMembers } from "./internal/members.ts"
import type { Sources } from "./internal/members.ts"
import type * as Store from "./Store.ts"
import type * as Surface from "./Surface.ts"

/**
 * The rpc tag of each member operation. Every part is URI-encoded, so no key (which may contain
 * `/` or `.`) can make two operations share a tag.
 *
 * @example
 * ```ts
 * import { WireProtocol } from "effect-surface/wire"
 * WireProtocol.tag("procedure", "todo", "add") // "procedure/todo/add"
 * ```
 *
 * @since 0.1.0
 */
export const tag = (operation: Operation, ...parts: ReadonlyArray<string>): string =>
  [operation, ...parts.map(encodeURIComponent)].join("/")

/**
 * The operations a surface offers over the wire. `read` operations are one-shot; `subscribe`
 * operations are streams whose first element is the snapshot (events have none).
 *
 * @example
 * ```ts
 * import type { WireProtocol } from "effect-surface/wire"
 * const op: WireProtocol.Operation = "cell.subscribe"
 * ```
 *
 * @since 0.1.0
 */
export type Operation =
  | "procedure"
  | "cell.read"
  | "cell.subscribe"
  | "collection.read"
  | "collection.subscribe"
  | "collection.get"
  | "stream.subscribe"
  | "event.subscribe"

/** An rpc whose schemas are only known at run time. */
type AnyRpc = Rpc.Rpc<string, Schema.Top, Schema.Top, Schema.Top>

/**
 * The rpc group a spec derives.
 *
 * @example
 * ```ts
 * import { Surface } from "effect-surface"
 * import { WireProtocol } from "effect-surface/wire"
 *
 * const Todos = Surface.make({ procedures: { todo: { add: {} } } })
 * const group: WireProtocol.Group = WireProtocol.group(Todos)
 * ```
 *
 * @since 0.1.0
 */
export type Group = RpcGroup.RpcGroup<AnyRpc>

// A Map is not JSON: a collection crosses as its entries and is rebuilt on arrival.
const entriesOf = (collection: Surface.Collection) => Schema.Array(Schema.Tuple([collection.key, collection.value]))

const groups = new WeakMap<Surface.Spec, Group>()

/**
 * Derive the rpc group of a spec: one rpc per procedure (payload, success and error from its
 * declaration), a one-shot read and a snapshot-first subscription per cell and collection, an item
 * lookup per collection, and a subscription per stream and per event. Memoised per spec, so every
 * dial of the same spec shares the codecs `effect/rpc` compiles per rpc.
 *
 * @example
 * ```ts
 * import { Surface } from "effect-surface"
 * import { WireProtocol } from "effect-surface/wire"
 *
 * const Todos = Surface.make({ procedures: { todo: { add: {} } } })
 * const group = WireProtocol.group(Todos)
 * group.requests.has("procedure/todo/add") // true
 * ```
 *
 * @since 0.1.0
 */
export const group = (spec: Surface.Spec): Group => {
  const known = groups.get(spec)
  if (known !== undefined) return known
  const rpcs: Array<AnyRpc> = []
  for (const [key, cell] of Object.entries(spec.cells)) {
    rpcs.push(Rpc.make(tag("cell.read", key), { success: cell.schema }))
    rpcs.push(Rpc.make(tag("cell.subscribe", key), { success: cell.schema, stream: true }))
  }
  for (const [key, collection] of Object.entries(spec.collections)) {
    const entries = entriesOf(collection)
    rpcs.push(Rpc.make(tag("collection.read", key), { success: entries }))
    rpcs.push(Rpc.make(tag("collection.subscribe", key), { success: entries, stream: true }))
    rpcs.push(
      Rpc.make(tag("collection.get", key), { payload: collection.key, success: Schema.Option(collection.value) })
    )
  }
  for (const [key, log] of Object.entries(spec.streams)) {
    // A stream is read as the first frame of its subscription (its backlog), as every client does.
    rpcs.push(Rpc.make(tag("stream.subscribe", key), { success: Schema.Array(log.schema), stream: true }))
  }
  for (const [key, event] of Object.entries(spec.events)) {
    rpcs.push(Rpc.make(tag("event.subscribe", key), { success: event.schema, stream: true }))
  }
  for (const [ns, verbs] of Object.entries(spec.procedures)) {
    for (const [verb, procedure] of Object.entries(verbs)) {
      rpcs.push(Rpc.make(tag("procedure", ns, verb), {
        payload: procedure.input ?? Schema.Void,
        success: procedure.output ?? Schema.Void,
        error: procedure.error ?? Schema.Never
      }))
    }
  }
  const made: Group = RpcGroup.make(...rpcs)
  groups.set(spec, made)
  return made
}

const only = <M>(members: { readonly [key: string]: M }, keys: ReadonlyArray<string>): { readonly [key: string]: M } =>
  Object.fromEntries(keys.map((key) => [key, members[key]!]))

/**
 * An implementation narrowed to what a checked expose map lets cross: its spec declares only the
 * exposed members, so the group derived from it and the handlers served for it hold nothing else.
 * The tags are the full spec's, so a client derived from the full spec reaches every exposed member.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Expose, Implementation, Surface } from "effect-surface"
 * import { WireProtocol } from "effect-surface/wire"
 *
 * const Todos = Surface.make({ procedures: { todo: { add: {}, drop: {} } } })
 * const implemented = Implementation.make(Todos, { procedures: { todo: { add: () => Effect.void, drop: () => Effect.void } } })
 * const narrowed = Effect.map(
 *   Expose.check(Todos, { procedures: { "todo.add": true } }, "wire"),
 *   (checked) => WireProtocol.exposed(implemented, checked)
 * )
 * // its group holds "procedure/todo/add" alone
 * ```
 *
 * @since 0.1.0
 */
export const exposed = <S extends Surface.Spec, R = never>(
  implemented: Implementation.Implemented<S, R>,
  checked: Expose.Checked
): Implementation.Implemented<Surface.Spec, R> => {
  const { spec } = implemented
  const procedures: Record<string, Record<string, Surface.Procedure>> = {}
  for (const { ns, verb, procedure } of checked.procedures) (procedures[ns] ??= {})[verb] = procedure
  return {
    spec: {
      cells: only(spec.cells, checked.cells),
      collections: only(spec.collections, checked.collections),
      streams: only(spec.streams, checked.streams),
      events: only(spec.events, checked.events),
      procedures
    },
    // Served under the narrowed spec only: what it does not declare is never looked up.
    implementation: implemented.implementation as Implementation.Implemented<Surface.Spec, R>["implementation"]
  }
}

/** The members a spec declares that the implementation provides, as `[key, member]` pairs. */
const present = <M>(members: { readonly [key: string]: M } | undefined, declared: object) =>
  Object.entries(mapMembers(members, declared, (member) => member))

/** A served operation: an Effect for one-shot operations, a Stream for subscriptions; a procedure needs `R`. */
type Handler<R> = (payload: never) => Effect.Effect<unknown, unknown, R> | Stream.Stream<unknown, unknown>

/**
 * The handler of every rpc the spec derives, keyed by tag, each dispatching to the implementation
 * of the same member. Pass the record to `group.toHandlers`, which runs each call with the services
 * it was built with: those are what the procedures' `R` is answered by on the served side.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Implementation, Surface } from "effect-surface"
 * import { WireProtocol } from "effect-surface/wire"
 *
 * const Todos = Surface.make({ procedures: { todo: { add: {} } } })
 * const implemented = Implementation.make(Todos, { procedures: { todo: { add: () => Effect.void } } })
 * const context = WireProtocol.group(Todos).toHandlers(WireProtocol.handlers(implemented) as never)
 * ```
 *
 * @since 0.1.0
 */
export const handlers = <S extends Surface.Spec, R = never>(
  implemented: Implementation.Implemented<S, R>
): { readonly [tag: string]: Handler<R> } => {
  const { spec } = implemented
  // The run-time view `Client.directDispatch` takes too: `SubscriptionRef` is invariant, so no typed
  // implementation is assignable to it, and each member is used only under the spec key that typed it.
  const impl: Sources<SubscriptionRef.SubscriptionRef<unknown>, Store.Store<unknown, unknown>, R> = implemented
    .implementation as never
  const out: Record<string, Handler<R>> = {}
  for (const [key, ref] of present(impl.cells, spec.cells)) {
    out[tag("cell.read", key)] = () => SubscriptionRef.get(ref)
    out[tag("cell.subscribe", key)] = () => SubscriptionRef.changes(ref)
  }
  for (const [key, store] of present(impl.collections, spec.collections)) {
    out[tag("collection.read", key)] = () => Effect.map(store.snapshot, (items) => Array.from(items))
    out[tag("collection.subscribe", key)] = () => Stream.map(store.changes, (items) => Array.from(items))
    out[tag("collection.get", key)] = (k: unknown) => store.get(k)
  }
  for (const [key, frames] of present(impl.streams, spec.streams)) {
    out[tag("stream.subscribe", key)] = () => frames
  }
  for (const [key, pulses] of present(impl.events, spec.events)) {
    out[tag("event.subscribe", key)] = () => pulses
  }
  for (const [ns, verbs] of Object.entries(declaredProcedures(impl.procedures, spec.procedures))) {
    for (const [verb, procedure] of Object.entries(verbs)) out[tag("procedure", ns, verb)] = procedure
  }
  return out
}

/**
 * How the client side reaches the rpcs, already framed by the transport: `read` and `subscribe`
 * fail only with a `LinkError`, `call` with a procedure's declared errors or a `LinkError`.
 *
 * @example
 * ```ts
 * import type { Effect, Stream } from "effect"
 * import type { LinkError, Surface } from "effect-surface"
 * import { WireProtocol } from "effect-surface/wire"
 *
 * declare const Todos: Surface.Spec
 * declare const call: (tag: string, payload?: unknown) => Effect.Effect<unknown, LinkError>
 * declare const subscribe: (tag: string) => Stream.Stream<unknown, LinkError>
 * const dispatch: WireProtocol.Dispatch = { read: call, call, subscribe }
 * const client = WireProtocol.client(Todos, dispatch)
 * ```
 *
 * @since 0.1.0
 */
export interface Dispatch {
  readonly read: (tag: string, payload?: unknown) => Effect.Effect<unknown, LinkError>
  readonly call: (tag: string, payload: unknown) => Effect.Effect<unknown, unknown>
  readonly subscribe: (tag: string) => Stream.Stream<unknown, LinkError>
}

const toMap = (entries: unknown): ReadonlyMap<unknown, unknown> =>
  // decoded by the `entriesOf` schema of the same collection: an array of key/value pairs
  new Map(entries as ReadonlyArray<readonly [unknown, unknown]>)

/** Each key of a spec group, as its own source: the rpc tags are all a wire member needs. */
const keysOf = (declared: { readonly [key: string]: unknown }): { readonly [key: string]: string } =>
  mapMembers(declared, declared, (_, key) => key)

/**
 * Build the typed client of a spec over a dispatch. Assembled like every other client, so streams
 * and events read as the first frame of their subscription, and only declared members exist.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Surface } from "effect-surface"
 * import { WireProtocol } from "effect-surface/wire"
 *
 * const Todos = Surface.make({ procedures: { todo: { add: { input: Schema.Struct({ id: Schema.String, title: Schema.String }) } } } })
 * declare const dispatch: WireProtocol.Dispatch
 * const client = WireProtocol.client(Todos, dispatch)
 * const added = client.procedures.todo.add({ id: "a", title: "milk" })
 * ```
 *
 * @since 0.1.0
 */
export const client = <S extends Surface.Spec>(spec: S, dispatch: Dispatch): Client.Client<S> => {
  const subscriptions = (declared: { readonly [key: string]: unknown }, operation: Operation) =>
    mapMembers(declared, declared, (_, key) => dispatch.subscribe(tag(operation, key)))
  const anyClient = assemble(spec, {
    cells: keysOf(spec.cells),
    collections: keysOf(spec.collections),
    // decoded by `Schema.Array` of the entry schema: each frame is an array
    streams: subscriptions(spec.streams, "stream.subscribe") as NonNullable<Sources<never, never>["streams"]>,
    events: subscriptions(spec.events, "event.subscribe"),
    procedures: mapMembers(
      spec.procedures,
      spec.procedures,
      (verbs, ns) =>
        mapMembers(verbs, verbs, (_, verb) => (input: never) => dispatch.call(tag("procedure", ns, verb), input))
    )
  }, {
    cell: (key): Client.CellClient<unknown> => ({
      read: dispatch.read(tag("cell.read", key)),
      subscribe: dispatch.subscribe(tag("cell.subscribe", key))
    }),
    collection: (key) => ({
      read: Effect.map(dispatch.read(tag("collection.read", key)), toMap),
      subscribe: Stream.map(dispatch.subscribe(tag("collection.subscribe", key)), toMap),
      // decoded by `Schema.Option` of the item schema
      get: (k: never) =>
        dispatch.read(tag("collection.get", key), k) as Effect.Effect<Option.Option<unknown>, LinkError>
    })
  })
  // Each member was built from the rpc its own spec key derives, whose schemas are the ones
  // `Client<S>` is derived from; the mapping over keys is run-time (as in `directDispatch`).
  return anyClient as unknown as Client.Client<S>
}
