/**
 * Projection: a second, observer-safe surface derived from a live client.
 *
 * The safest way to put an application in front of an agent is often not to expose its surface at
 * all but a narrower one: no dangerous procedures, a log bounded to what matters, a verdict derived
 * from three cells. A projection declares that narrower surface as an ordinary spec and supplies each
 * member as a snapshot-first stream read off the source client. The result is a `Client` like any
 * other, so every face serves it without knowing it was derived.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type { LinkError } from "./LinkError.ts"
import type * as Client from "./Client.ts"
import type * as Implementation from "./Implementation.ts"
import type * as Surface from "./Surface.ts"
import { assemble, firstOf, lookup } from "./internal/members.ts"
import type { Group, Sources } from "./internal/members.ts"

/**
 * How each member of a projected spec is derived: cells, collections and streams as snapshot-first
 * streams, events as pulse streams, procedures (if the projection keeps any) as calls. A derived
 * source that ends before its first value makes reads fail with `Client.NoSnapshot`.
 *
 * @example
 * ```ts
 * import { Schema, Stream } from "effect"
 * import { Project, Surface } from "effect-surface"
 *
 * const Clock = Surface.make({ cells: { tick: Surface.cell(Schema.Int, 0) } })
 * const derivation: Project.Derivation<typeof Clock> = { cells: { tick: Stream.make(1, 2, 3) } }
 * ```
 *
 * @since 0.1.0
 */
export type Derivation<S extends Surface.Spec, R = never> =
  & Group<"cells", { readonly [K in keyof S["cells"]]: Stream.Stream<Surface.ValueOf<S["cells"][K]>, LinkError> }>
  & Group<
    "collections",
    {
      readonly [K in keyof S["collections"]]: Stream.Stream<
        ReadonlyMap<Surface.KeyOf<S["collections"][K]>, Surface.ItemOf<S["collections"][K]>>,
        LinkError
      >
    }
  >
  & Group<
    "streams",
    { readonly [K in keyof S["streams"]]: Stream.Stream<ReadonlyArray<Surface.ValueOf<S["streams"][K]>>, LinkError> }
  >
  & Group<"events", { readonly [K in keyof S["events"]]: Stream.Stream<Surface.ValueOf<S["events"][K]>, LinkError> }>
  & Group<"procedures", Client.Client<S, R>["procedures"]>

/**
 * Build the client of a projected surface. Only what the projected spec declares is served: a
 * procedure kept from the source must be declared under the same namespace and verb, and the
 * projection's procedures need what the kept ones need of their caller.
 *
 * @example
 * ```ts
 * import { Schema, Stream } from "effect"
 * import { Client, Project, Surface } from "effect-surface"
 *
 * const Todo = Schema.Struct({ title: Schema.String, done: Schema.Boolean })
 * const Todos = Surface.make({
 *   collections: { todos: Surface.collection(Schema.String, Todo) },
 *   procedures: { todo: { remove: { input: Schema.String } } }
 * })
 * declare const source: Client.Client<typeof Todos>
 *
 * // Observers see how many todos are open, and the todos themselves, but can change nothing.
 * const Observer = Surface.make({
 *   cells: { open: Surface.cell(Schema.Int, 0) },
 *   collections: { todos: Todos.collections.todos }
 * })
 * const observer = Project.make(Observer, {
 *   cells: { open: source.collections.todos.subscribe.pipe(Stream.map((todos) => todos.size)) },
 *   collections: { todos: source.collections.todos.subscribe }
 * })
 * ```
 *
 * @since 0.1.0
 */
export const make = <S extends Surface.Spec, D extends Derivation<S, unknown>>(
  spec: S,
  derivation: D
): Client.Client<S, Implementation.Services<D>> => {
  type Changes<A> = Stream.Stream<A, LinkError>
  // The run-time view of a derivation; each member is used by `assemble` only under its own key.
  const derived: Sources<Changes<unknown>, Changes<ReadonlyMap<unknown, unknown>>> = derivation
  const client = assemble(spec, derived, {
    cell: (changes, key) => ({ read: firstOf(changes, `cell ${key}`), subscribe: changes }),
    collection: (changes, key) => {
      const read = firstOf(changes, `collection ${key}`)
      return { read, subscribe: changes, get: (item: unknown) => Effect.map(read, (items) => lookup(items, item)) }
    }
  })
  // Each member was derived under the key of `S` it is read back by; see `Client.directDispatch`.
  return client as unknown as Client.Client<S, Implementation.Services<D>>
}
