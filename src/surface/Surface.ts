/**
 * The surface contract: what an application offers, declared once with Effect Schema.
 *
 * Every face (MCP, client toolset, ACP, CLI) reads the same declaration, so the shapes an agent sees
 * are the shapes the implementation was type-checked against. A surface has five member kinds, each
 * with its own reading semantics: a *cell* holds one current value, a *collection* holds keyed
 * items, a *stream* is a log whose first frame is its backlog, an *event* is a pulse with no
 * snapshot, and a *procedure* is a call with a typed input, output and error union.
 *
 * @since 0.1.0
 */
import type * as Schema from "effect/Schema"

/**
 * A schema a surface can carry across a wire: no services needed to decode or encode it.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import type { Surface } from "effect-surface"
 * const title: Surface.Shape = Schema.String
 * ```
 *
 * @since 0.1.0
 */
export type Shape = Schema.Codec<unknown, unknown, never, never>

/**
 * A key schema: the wire form of a key is a string, because it is a segment of an address.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import type { Surface } from "effect-surface"
 * const id: Surface.KeyShape = Schema.String
 * ```
 *
 * @since 0.1.0
 */
export type KeyShape = Schema.Codec<string | number, string, never, never>

/**
 * A cell: one current value, with the value it holds before anything is written.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Surface } from "effect-surface"
 * const count: Surface.Cell<typeof Schema.Int> = Surface.cell(Schema.Int, 0)
 * ```
 *
 * @since 0.1.0
 */
export interface Cell<S extends Shape = Shape> {
  readonly _tag: "Cell"
  readonly schema: S
  readonly initial: S["Type"]
}

/**
 * A collection: items of one schema, keyed by a key schema.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Surface } from "effect-surface"
 * const users: Surface.Collection = Surface.collection(Schema.String, Schema.Struct({ name: Schema.String }))
 * ```
 *
 * @since 0.1.0
 */
export interface Collection<K extends KeyShape = KeyShape, V extends Shape = Shape> {
  readonly _tag: "Collection"
  readonly key: K
  readonly value: V
}

/**
 * A stream: an append-only log of entries. A reader's first frame is the backlog, later frames are
 * what was appended since. Declared with `Surface.stream`, grouped under `streams`, implemented by
 * the frames of a `Log.Log` (or any backlog-first `Stream` of entry arrays).
 *
 * Named like the other member kinds (`Surface.Cell`, `Surface.Event`) and always written with its
 * namespace, so `Surface.Stream` (a declared member) never reads as effect's `Stream.Stream`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Surface } from "effect-surface"
 * const log: Surface.Stream<typeof Schema.String> = Surface.stream(Schema.String)
 * ```
 *
 * @since 0.1.0
 */
export interface Stream<S extends Shape = Shape> {
  readonly _tag: "Stream"
  readonly schema: S
}

/**
 * The former name of {@link Stream}.
 *
 * @deprecated Use `Surface.Stream`: the member kind is a stream, declared by `Surface.stream`.
 * @example
 * ```ts
 * import type { Surface } from "effect-surface"
 * type Entries = Surface.Stream // not Surface.Log
 * ```
 *
 * @since 0.1.0
 */
export type Log<S extends Shape = Shape> = Stream<S>

/**
 * An event: a pulse. A reader sees only what happens after it starts reading.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Surface } from "effect-surface"
 * const saved: Surface.Event = Surface.event(Schema.Struct({ id: Schema.String }))
 * ```
 *
 * @since 0.1.0
 */
export interface Event<S extends Shape = Shape> {
  readonly _tag: "Event"
  readonly schema: S
}

/**
 * A procedure: a call. A missing `input` means the call takes no input; a missing `output` answers
 * nothing; `error` is a schema for the union of tagged errors the call may fail with. `mutates`
 * defaults to true, so a procedure is treated as dangerous until it says otherwise.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import type { Surface } from "effect-surface"
 *
 * class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { id: Schema.String }) {}
 * const complete: Surface.Procedure = { input: Schema.String, output: Schema.Boolean, error: NotFound, mutates: true }
 * ```
 *
 * @since 0.1.0
 */
export interface Procedure {
  readonly input?: Shape
  readonly output?: Shape
  readonly error?: Shape
  readonly mutates?: boolean
  /**
   * Whether a call may carry on as a task where its caller can follow one: `optional` once it has
   * run a while, `required` always (a caller that cannot is refused). Missing: never a task.
   */
  readonly task?: "optional" | "required"
  readonly title?: string
  readonly description?: string
}

/**
 * Procedures grouped by namespace: `{ ns: { verb: Procedure } }`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import type { Surface } from "effect-surface"
 * const procedures: Surface.Procedures = { todo: { count: { output: Schema.Int, mutates: false } } }
 * ```
 *
 * @since 0.1.0
 */
export type Procedures = { readonly [ns: string]: { readonly [verb: string]: Procedure } }

/**
 * A whole surface declaration. Every group is present (possibly empty) so faces never branch on a
 * missing group.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Surface } from "effect-surface"
 * const spec: Surface.Spec = Surface.make({ cells: { on: Surface.cell(Schema.Boolean, false) } })
 * Object.keys(spec.procedures) // [] — a group left out of the declaration is present and empty
 * ```
 *
 * @since 0.1.0
 */
export interface Spec {
  readonly cells: { readonly [key: string]: Cell }
  readonly collections: { readonly [key: string]: Collection }
  readonly streams: { readonly [key: string]: Stream }
  readonly events: { readonly [key: string]: Event }
  readonly procedures: Procedures
}

/**
 * What `make` accepts: any group may be left out.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import type { Surface } from "effect-surface"
 * const declaration: Surface.Declaration = { procedures: { app: { quit: {} } } }
 * ```
 *
 * @since 0.1.0
 */
export interface Declaration {
  readonly cells?: { readonly [key: string]: Cell }
  readonly collections?: { readonly [key: string]: Collection }
  readonly streams?: { readonly [key: string]: Stream }
  readonly events?: { readonly [key: string]: Event }
  readonly procedures?: Procedures
}

type GroupOf<D, K extends keyof Declaration> = D extends { readonly [P in K]: infer G } ? G : {}

/**
 * The spec a declaration makes, with the missing groups filled in as empty.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Surface } from "effect-surface"
 * const Switch: Surface.Make<{ readonly cells: { readonly on: Surface.Cell<typeof Schema.Boolean> } }> = Surface.make({
 *   cells: { on: Surface.cell(Schema.Boolean, false) }
 * })
 * ```
 *
 * @since 0.1.0
 */
export interface Make<D extends Declaration> extends Spec {
  readonly cells: GroupOf<D, "cells">
  readonly collections: GroupOf<D, "collections">
  readonly streams: GroupOf<D, "streams">
  readonly events: GroupOf<D, "events">
  readonly procedures: GroupOf<D, "procedures">
}

/**
 * What a verb containing a dot is told where it is written: a procedure is addressed `"ns.verb"` and
 * split at the last dot, so a namespace may contain dots and a verb may not (`{ a: { "b.c" } }` and
 * `{ "a.b": { c } }` would both be `"a.b.c"`).
 *
 * @example
 * ```ts
 * import { Surface } from "effect-surface"
 * const ok: Surface.DotlessVerbs<{ readonly "a.b": { readonly c: {} } }> = { "a.b": { c: {} } }
 * ```
 *
 * @since 0.1.0
 */
export type DotlessVerbs<P> = {
  readonly [N in keyof P]: {
    readonly [V in keyof P[N]]: V extends `${string}.${string}`
      ? "a verb may not contain a dot; put it in the namespace"
      : P[N][V]
  }
}

/**
 * Declare a surface. A procedure verb containing a dot does not compile (see {@link DotlessVerbs});
 * a spec built at run time with one is refused by `Expose.check` with `Expose.DottedVerb`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Surface } from "effect-surface"
 *
 * const Todos = Surface.make({
 *   cells: { filter: Surface.cell(Schema.String, "all") },
 *   collections: { todos: Surface.collection(Schema.String, Schema.Struct({ title: Schema.String })) },
 *   procedures: { todo: { add: { input: Schema.Struct({ title: Schema.String }), output: Schema.String } } }
 * })
 * ```
 *
 * @since 0.1.0
 */
export const make = <const D extends Declaration>(
  declaration: D & (D extends { readonly procedures: infer P } ? { readonly procedures: DotlessVerbs<P> } : unknown)
): Make<D> =>
  ({
    cells: declaration.cells ?? {},
    collections: declaration.collections ?? {},
    streams: declaration.streams ?? {},
    events: declaration.events ?? {},
    procedures: declaration.procedures ?? {}
  }) as Make<D> // the `??` arms are exactly the `{}` the conditional type names for a missing group

/**
 * Declare a cell with its initial value.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Surface } from "effect-surface"
 * const count = Surface.cell(Schema.Int, 0)
 * ```
 *
 * @since 0.1.0
 */
export const cell = <S extends Shape>(schema: S, initial: S["Type"]): Cell<S> => ({ _tag: "Cell", schema, initial })

/**
 * Declare a collection by its key and item schemas.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Surface } from "effect-surface"
 * const users = Surface.collection(Schema.String, Schema.Struct({ name: Schema.String }))
 * ```
 *
 * @since 0.1.0
 */
export const collection = <K extends KeyShape, V extends Shape>(key: K, value: V): Collection<K, V> => ({
  _tag: "Collection",
  key,
  value
})

/**
 * Declare a stream (a log read backlog first) of entries of one schema.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Surface } from "effect-surface"
 * const log = Surface.stream(Schema.String)
 * ```
 *
 * @since 0.1.0
 */
export const stream = <S extends Shape>(schema: S): Stream<S> => ({ _tag: "Stream", schema })

/**
 * Declare an event (a pulse with no snapshot) of one schema.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Surface } from "effect-surface"
 * const saved = Surface.event(Schema.Struct({ id: Schema.String }))
 * ```
 *
 * @since 0.1.0
 */
export const event = <S extends Shape>(schema: S): Event<S> => ({ _tag: "Event", schema })

// ---------------------------------------------------------------------------------------------
// Type projections every face shares
// ---------------------------------------------------------------------------------------------

/**
 * The value type of a cell, stream entry or event.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Surface } from "effect-surface"
 * const count = Surface.cell(Schema.Int, 0)
 * const n: Surface.ValueOf<typeof count> = 1
 * ```
 *
 * @since 0.1.0
 */
export type ValueOf<M> = M extends { readonly schema: infer S extends Shape } ? S["Type"] : never

/**
 * The key type of a collection.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Surface } from "effect-surface"
 * const users = Surface.collection(Schema.String, Schema.Struct({ name: Schema.String }))
 * const key: Surface.KeyOf<typeof users> = "u1"
 * ```
 *
 * @since 0.1.0
 */
export type KeyOf<M> = M extends Collection<infer K, Shape> ? K["Type"] : never

/**
 * The item type of a collection.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Surface } from "effect-surface"
 * const users = Surface.collection(Schema.String, Schema.Struct({ name: Schema.String }))
 * const ada: Surface.ItemOf<typeof users> = { name: "Ada" }
 * ```
 *
 * @since 0.1.0
 */
export type ItemOf<M> = M extends Collection<KeyShape, infer V> ? V["Type"] : never

/**
 * The input a procedure takes: `void` when it declares none.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import type { Surface } from "effect-surface"
 * const add = { input: Schema.Int }
 * const by: Surface.InputOf<typeof add> = 2
 * ```
 *
 * @since 0.1.0
 */
export type InputOf<P> = P extends { readonly input: infer S extends Shape } ? S["Type"] : void

/**
 * The value a procedure answers with: `void` when it declares none.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import type { Surface } from "effect-surface"
 * const count = { output: Schema.Int }
 * const answer: Surface.OutputOf<typeof count> = 3
 * ```
 *
 * @since 0.1.0
 */
export type OutputOf<P> = P extends { readonly output: infer S extends Shape } ? S["Type"] : void

/**
 * The union of errors a procedure may fail with: `never` when it declares none.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import type { Surface } from "effect-surface"
 * class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { id: Schema.String }) {}
 * const complete = { input: Schema.String, error: NotFound }
 * const failure: Surface.ErrorOf<typeof complete> = new NotFound({ id: "a" })
 * ```
 *
 * @since 0.1.0
 */
export type ErrorOf<P> = P extends { readonly error: infer S extends Shape } ? S["Type"] : never

/**
 * Every procedure of a spec as its `"ns.verb"` address.
 *
 * @example
 * ```ts
 * import { Surface } from "effect-surface"
 * const Todos = Surface.make({ procedures: { todo: { add: {}, remove: {} } } })
 * const name: Surface.ProcedureName<typeof Todos> = "todo.add" // or "todo.remove"
 * ```
 *
 * @since 0.1.0
 */
export type ProcedureName<S extends Spec> = {
  readonly [N in keyof S["procedures"] & string]: `${N}.${keyof S["procedures"][N] & string}`
}[keyof S["procedures"] & string]

/**
 * The five member kinds, as the groups of a spec name them.
 *
 * @example
 * ```ts
 * import type { Surface } from "effect-surface"
 * const kinds: ReadonlyArray<Surface.MemberKind> = ["cells", "collections", "streams", "events", "procedures"]
 * ```
 *
 * @since 0.1.0
 */
export type MemberKind = "cells" | "collections" | "streams" | "events" | "procedures"

/**
 * Split a `"ns.verb"` address at its last dot: a namespace may contain dots, a verb may not.
 *
 * @example
 * ```ts
 * import { Surface } from "effect-surface"
 * Surface.splitProcedureName("a.b.c") // { ns: "a.b", verb: "c" }
 * ```
 *
 * @since 0.1.0
 */
export const splitProcedureName = (name: string): { readonly ns: string; readonly verb: string } | undefined => {
  const at = name.lastIndexOf(".")
  return at <= 0 || at === name.length - 1 ? undefined : { ns: name.slice(0, at), verb: name.slice(at + 1) }
}

/**
 * Look up a procedure by namespace and verb, without trusting either to exist.
 *
 * @example
 * ```ts
 * import { Surface } from "effect-surface"
 * const Todos = Surface.make({ procedures: { todo: { add: {} } } })
 * Surface.procedureAt(Todos, "todo", "add") // {}
 * Surface.procedureAt(Todos, "todo", "toString") // undefined: only declared verbs count
 * ```
 *
 * @since 0.1.0
 */
export const procedureAt = (spec: Spec, ns: string, verb: string): Procedure | undefined =>
  Object.hasOwn(spec.procedures, ns) && Object.hasOwn(spec.procedures[ns] ?? {}, verb)
    ? spec.procedures[ns]?.[verb]
    : undefined
