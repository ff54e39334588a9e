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
import type { Cell, Collection, Event, KeyShape, Procedure, Procedures, Shape, Stream } from "./internal/kinds.ts"

// One member, kind by kind, with the constructor that declares it, is `internal/kinds.ts`; this
// module composes members into a whole surface.
export type { Cell, Collection, Event, KeyShape, Log, Procedure, Procedures, Shape, Stream } from "./internal/kinds.ts"

/**
 * Declare a member: a cell with its initial value, a collection by its key and item schemas, a stream
 * (a log read backlog first) or an event (a pulse with no snapshot) of entries of one schema.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Surface } from "effect-surface"
 *
 * const count = Surface.cell(Schema.Int, 0)
 * const users = Surface.collection(Schema.String, Schema.Struct({ name: Schema.String }))
 * const log = Surface.stream(Schema.String)
 * const saved = Surface.event(Schema.Struct({ id: Schema.String }))
 * ```
 *
 * @since 0.1.0
 */
export { cell, collection, event, stream } from "./internal/kinds.ts"

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
