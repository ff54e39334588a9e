/**
 * The shape an implementation of a surface must have, derived from its declaration.
 *
 * The declaration is the single source of truth: an implementation whose cell holds the wrong type,
 * whose procedure answers the wrong shape or fails with an undeclared error, or which forgets a
 * member, does not compile. Each member kind is implemented by the Effect value that already has its
 * semantics — a `SubscriptionRef` for a cell, a `Store` for a collection, a backlog-first `Stream`
 * of frames for a stream, a `Stream` for an event, a function to an `Effect` for a procedure.
 *
 * @since 0.1.0
 */
import type * as Stream from "effect/Stream"
import * as Effect from "effect/Effect"
import * as SubscriptionRef from "effect/SubscriptionRef"
import type * as Store from "./Store.ts"
import type * as Surface from "./Surface.ts"
import type { Group } from "./internal/members.ts"

/**
 * The implementation of each procedure: `(input) => Effect<output, declared errors, R>`. `R` is what
 * the procedures need of whoever calls them (none by default); a face that runs them provides it per
 * call, and accepts only what it can provide (the core's caller services: who is calling, progress,
 * asking the caller), so a procedure needing anything else is refused where it is served.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Identity, Implementation, Surface } from "effect-surface"
 *
 * const Echo = Surface.make({ procedures: { echo: { say: { input: Schema.String, output: Schema.String } } } })
 * const procedures: Implementation.ProceduresImpl<typeof Echo.procedures> = { echo: { say: (s) => Effect.succeed(s) } }
 * // Procedures that read who is calling.
 * const signed: Implementation.ProceduresImpl<typeof Echo.procedures, Identity.Identity> = {
 *   echo: { say: (s) => Effect.map(Identity.current, (me) => `${me.subject}: ${s}`) }
 * }
 * ```
 *
 * @since 0.1.0
 */
export type ProceduresImpl<P extends Surface.Procedures, R = never> = {
  readonly [N in keyof P]: {
    readonly [V in keyof P[N]]: (
      input: Surface.InputOf<P[N][V]>
    ) => Effect.Effect<Surface.OutputOf<P[N][V]>, Surface.ErrorOf<P[N][V]>, R>
  }
}

/**
 * The implementation a spec demands. Groups the spec leaves empty may be left out; `R` is what its
 * procedures need of their caller.
 *
 * @example
 * ```ts
 * import { Effect, Schema, Stream, SubscriptionRef } from "effect"
 * import { Implementation, Surface } from "effect-surface"
 *
 * const Counter = Surface.make({
 *   cells: { count: Surface.cell(Schema.Int, 0) },
 *   procedures: { counter: { incr: { output: Schema.Int } } }
 * })
 *
 * const impl = Effect.gen(function*() {
 *   const cells = yield* Implementation.cells(Counter)
 *   return Implementation.make(Counter, {
 *     cells,
 *     procedures: { counter: { incr: () => SubscriptionRef.updateAndGet(cells.count, (n) => n + 1) } }
 *   })
 * })
 * ```
 *
 * @since 0.1.0
 */
export type Implementation<S extends Surface.Spec, R = never> =
  & Group<
    "cells",
    { readonly [K in keyof S["cells"]]: SubscriptionRef.SubscriptionRef<Surface.ValueOf<S["cells"][K]>> }
  >
  & Group<
    "collections",
    {
      readonly [K in keyof S["collections"]]: Store.Store<
        Surface.KeyOf<S["collections"][K]>,
        Surface.ItemOf<S["collections"][K]>
      >
    }
  >
  & Group<
    "streams",
    { readonly [K in keyof S["streams"]]: Stream.Stream<ReadonlyArray<Surface.ValueOf<S["streams"][K]>>> }
  >
  & Group<"events", { readonly [K in keyof S["events"]]: Stream.Stream<Surface.ValueOf<S["events"][K]>> }>
  & Group<"procedures", ProceduresImpl<S["procedures"], R>>

/**
 * A spec paired with an implementation checked against it: what `Implementation.make` returns and
 * every face (`Client.directDispatch`, the wire face) takes. `R` is what its procedures need of
 * their caller (`never`: nothing).
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Implementation, Surface } from "effect-surface"
 *
 * const Echo = Surface.make({ procedures: { echo: { say: { input: Schema.String, output: Schema.String } } } })
 * const echo: Implementation.Implemented<typeof Echo> = Implementation.make(Echo, {
 *   procedures: { echo: { say: (s) => Effect.succeed(s) } }
 * })
 * ```
 *
 * @since 0.1.0
 */
export interface Implemented<S extends Surface.Spec, R = never> {
  readonly spec: S
  readonly implementation: Implementation<S, R>
}

/**
 * Pair a spec with its implementation; the type parameter ties the two together. Only what the spec
 * declares is ever served from it: an extra member or verb the implementation carries is unreachable.
 * What the procedures need of their caller is read off them (`Services`) and carried in the type.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Identity, Implementation, Surface } from "effect-surface"
 *
 * const Echo = Surface.make({ procedures: { echo: { say: { input: Schema.String, output: Schema.String } } } })
 * const echo = Implementation.make(Echo, { procedures: { echo: { say: (s) => Effect.succeed(s) } } })
 * // Reads its caller: an `Implemented<typeof Echo, Identity.Identity>`, which every face serves.
 * const signed = Implementation.make(Echo, {
 *   procedures: { echo: { say: (s) => Effect.map(Identity.current, (me) => `${me.subject}: ${s}`) } }
 * })
 * ```
 *
 * @since 0.1.0
 */
export const make = <S extends Surface.Spec, I extends Implementation<S, unknown>>(
  spec: S,
  implementation: I
): Implemented<S, Services<I>> => ({
  spec,
  // `I` was checked against the spec with any services, and `Services<I>` are exactly the ones its
  // procedures ask for; the checker cannot narrow `unknown` back to them through the mapped type.
  implementation: implementation as Implementation<S, Services<I>>
})

/**
 * What an implementation's procedures need of whoever calls them: the union of every procedure's
 * requirements (`never` when none needs anything).
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Identity, Implementation, Surface } from "effect-surface"
 *
 * const Cards = Surface.make({ procedures: { card: { mine: { output: Schema.Boolean } } } })
 * const impl = { procedures: { card: { mine: () => Effect.map(Identity.current, (me) => me.subject === "ada") } } }
 * type Needs = Implementation.Services<typeof impl> // Identity.Identity
 * ```
 *
 * @since 0.1.0
 */
export type Services<I> = I extends { readonly procedures: infer P } ? {
    readonly [N in keyof P]: {
      readonly [V in keyof P[N]]: P[N][V] extends (input: never) => Effect.Effect<infer _A, infer _E, infer R> ? R
        : never
    }[keyof P[N]]
  }[keyof P]
  : never

/**
 * One `SubscriptionRef` per declared cell, holding the cell's declared initial value.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Implementation, Surface } from "effect-surface"
 *
 * const Spec = Surface.make({ cells: { on: Surface.cell(Schema.Boolean, false) } })
 * const refs = Implementation.cells(Spec) // Effect<{ on: SubscriptionRef<boolean> }>
 * ```
 *
 * @since 0.1.0
 */
export const cells = <S extends Surface.Spec>(spec: S): Effect.Effect<
  { readonly [K in keyof S["cells"]]: SubscriptionRef.SubscriptionRef<Surface.ValueOf<S["cells"][K]>> }
> =>
  Effect.map(
    Effect.forEach(Object.entries(spec.cells), ([key, cell]) =>
      Effect.map(SubscriptionRef.make<unknown>(cell.initial), (ref) => [key, ref] as const)),
    // Each ref was made from its own cell's declared initial value; a mapped type over the keys
    // of an `Object.entries` result is beyond what the checker can follow.
    (entries) =>
      Object.fromEntries(entries) as never
  )
