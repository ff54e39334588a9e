/**
 * One member of a surface, kind by kind: the schemas a member carries across a wire, the five member
 * kinds (cell, collection, stream, event, procedure) and the constructor that declares each. Apart
 * from `Surface.ts`, which composes them into a whole surface (its spec, `make`, the type projections
 * and procedure addresses); every name here is exported from `Surface` (`Surface.Cell`,
 * `Surface.cell`, …), which is where a reader meets it.
 *
 * @internal
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
 * A procedure that changes something may say how, and hosts are told (MCP's tool annotations):
 * `additive: true` when it only adds and never overwrites or removes (`destructiveHint: false`),
 * `idempotent: true` when calling it again with the same input changes nothing more
 * (`idempotentHint: true`). Left unsaid, a change may destroy and may repeat. A procedure that only
 * reads (`mutates: false`) has neither to say: MCP gives those hints meaning only for a tool that is
 * not read-only, so declaring them beside `mutates: false` does not compile.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import type { Surface } from "effect-surface"
 *
 * class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { id: Schema.String }) {}
 * const complete: Surface.Procedure = { input: Schema.String, output: Schema.Boolean, error: NotFound, mutates: true }
 * const add: Surface.Procedure = { input: Schema.String, output: Schema.String, additive: true }
 * const rename: Surface.Procedure = { input: Schema.String, idempotent: true }
 * const count: Surface.Procedure = { output: Schema.Int, mutates: false }
 * ```
 *
 * @since 0.1.0
 */
export type Procedure = ProcedureFields & (ChangesSomething | OnlyReads)

/** What every procedure may declare, whatever its effects. */
interface ProcedureFields {
  readonly input?: Shape
  readonly output?: Shape
  readonly error?: Shape
  /**
   * Whether a call may carry on as a task where its caller can follow one: `optional` once it has
   * run a while, `required` always (a caller that cannot is refused). Missing: never a task.
   */
  readonly task?: "optional" | "required"
  readonly title?: string
  readonly description?: string
}

/** A procedure that may change the app's state (the default), and how it changes it. */
interface ChangesSomething {
  readonly mutates?: true
  /** It only adds: nothing already there is overwritten or removed. Missing: it may destroy. */
  readonly additive?: boolean
  /** A second call with the same input changes nothing more. Missing: it may not be. */
  readonly idempotent?: boolean
}

/** A procedure that only reads: what a change would be like is not its to say. */
interface OnlyReads {
  readonly mutates: false
  readonly additive?: never
  readonly idempotent?: never
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
