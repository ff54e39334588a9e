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
import { Effect, Option, Stream } from "effect"
import { LinkError } from "../core/LinkError.ts"
import type * as Client from "./Client.ts"
import type * as Surface from "./Surface.ts"
import { firstOf, mapMembers } from "./internal/members.ts"

type Group<K extends string, T> = keyof T extends never ? { readonly [P in K]?: T } : { readonly [P in K]: T }

/**
 * How each member of a projected spec is derived: cells, collections and streams as snapshot-first
 * streams, events as pulse streams, procedures (if the projection keeps any) as calls.
 *
 * @since 0.1.0
 */
export type Derivation<S extends Surface.Spec> =
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
  & Group<"procedures", Client.Client<S>["procedures"]>

/**
 * Build the client of a projected surface.
 *
 * @example
 * ```ts
 * import { Schema, Stream } from "effect"
 * import { Project, Surface } from "effect-surface"
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
export const make = <S extends Surface.Spec>(spec: S, derivation: Derivation<S>): Client.Client<S> => {
  const derived: {
    readonly cells?: { readonly [key: string]: Stream.Stream<unknown, LinkError> }
    readonly collections?: { readonly [key: string]: Stream.Stream<ReadonlyMap<unknown, unknown>, LinkError> }
    readonly streams?: { readonly [key: string]: Stream.Stream<ReadonlyArray<unknown>, LinkError> }
    readonly events?: { readonly [key: string]: Stream.Stream<unknown, LinkError> }
    readonly procedures?: Client.AnyClient["procedures"]
  } = derivation
  const client: Client.AnyClient = {
    spec,
    cells: mapMembers(derived.cells, spec.cells, (changes, key) => ({ read: firstOf(changes, `cell ${key}`), subscribe: changes })),
    collections: mapMembers(derived.collections, spec.collections, (changes, key) => ({
      read: firstOf(changes, `collection ${key}`),
      subscribe: changes,
      get: (item: unknown) => Effect.map(firstOf(changes, `collection ${key}`), (items) => Option.fromUndefinedOr(items.get(item)))
    })),
    streams: mapMembers(derived.streams, spec.streams, (frames, key) => ({ read: firstOf(frames, `stream ${key}`), subscribe: frames })),
    events: mapMembers(derived.events, spec.events, (pulses, key) => ({ subscribe: pulses, next: firstOf(pulses, `event ${key}`) })),
    procedures: mapMembers(derived.procedures, spec.procedures, (verbs) => verbs)
  }
  // Each member was derived under the key of `S` it is read back by; see `Client.directDispatch`.
  return client as unknown as Client.Client<S>
}
