/**
 * Every way the engine refuses a request, as tagged values a face maps to its protocol in one place.
 *
 * A call or a read can be refused before anything is dispatched (the name is unknown, or retired by a
 * roster move), or fail on the way (the item is not there, the source did not answer). The engine
 * says which as a tagged error with the sentence a caller can act on as its `message`; a face turns
 * each tag into its own protocol's answer (MCP: a JSON-RPC error code) without reading the text.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Tombstones from "./Tombstones.ts"

/**
 * No tool of that name is served, and none was retired under it.
 *
 * @example
 * ```ts
 * import { EngineError } from "effect-surface"
 * new EngineError.UnknownTool({ name: "tasks_fly" }).message // 'unknown tool "tasks_fly"'
 * ```
 *
 * @since 0.1.0
 */
export class UnknownTool extends Schema.TaggedError<UnknownTool>()("UnknownTool", { name: Schema.String }) {
  override get message(): string {
    return `unknown tool "${this.name}"`
  }
}

/**
 * The name or URI was served once and a roster move retired it: `tombstone` says when and why.
 *
 * @example
 * ```ts
 * import { EngineError, Tombstones } from "effect-surface"
 * const tombstone = new Tombstones.Tombstone({ kind: "tool", name: "t_run", sibling: "t", reason: "SiblingLeft", retiredAt: 1 })
 * new EngineError.Retired({ tombstone }).message // 'tool "t_run" is no longer served: sibling "t" left the roster; ...'
 * ```
 *
 * @since 0.1.0
 */
export class Retired extends Schema.TaggedError<Retired>()("Retired", { tombstone: Tombstones.Tombstone }) {
  override get message(): string {
    return this.tombstone.message
  }
}

/**
 * Nothing serves that URI, and nothing retired under it.
 *
 * @example
 * ```ts
 * import { EngineError } from "effect-surface"
 * new EngineError.UnknownResource({ uri: "surface://cells/nope" }).message // "unknown resource surface://cells/nope"
 * ```
 *
 * @since 0.1.0
 */
export class UnknownResource extends Schema.TaggedError<UnknownResource>()("UnknownResource", { uri: Schema.String }) {
  override get message(): string {
    return `unknown resource ${this.uri}`
  }
}

/**
 * An item address whose id is not a key of its collection, or whose collection has no such item:
 * the request was understood and names nothing.
 *
 * @example
 * ```ts
 * import { EngineError } from "effect-surface"
 * new EngineError.NoSuchItem({ uri: "surface://collections/tasks/t9", reason: 'collection tasks has no item "t9"' })
 * ```
 *
 * @since 0.1.0
 */
export class NoSuchItem
  extends Schema.TaggedError<NoSuchItem>()("NoSuchItem", { uri: Schema.String, reason: Schema.String })
{
  override get message(): string {
    return `resource ${this.uri} ${this.reason}`
  }
}

/**
 * The resource is served but its answer could not be had: the source did not answer in time, its
 * link failed, or its value did not match its declared schema.
 *
 * @example
 * ```ts
 * import { EngineError } from "effect-surface"
 * new EngineError.Unreadable({ uri: "surface://cells/focus", reason: "no answer within 10s" }).message
 * // "resource surface://cells/focus could not be read: no answer within 10s"
 * ```
 *
 * @since 0.1.0
 */
export class Unreadable
  extends Schema.TaggedError<Unreadable>()("Unreadable", { uri: Schema.String, reason: Schema.String })
{
  override get message(): string {
    return `resource ${this.uri} could not be read: ${this.reason}`
  }
}

/**
 * Why a URI names nothing to read or follow.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { EngineError } from "effect-surface"
 *
 * declare const found: Effect.Effect<string, EngineError.Unresolved>
 * const why = found.pipe(Effect.catchTags({ UnknownResource: (e) => Effect.succeed(e.message), Retired: (e) => Effect.succeed(e.message) }))
 * ```
 *
 * @since 0.1.0
 */
export type Unresolved = UnknownResource | Retired

/**
 * Every way a read fails.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { EngineError } from "effect-surface"
 *
 * declare const read: Effect.Effect<string, EngineError.ReadError>
 * const orNull = read.pipe(Effect.catchTag("Unreadable", () => Effect.succeed("null")))
 * ```
 *
 * @since 0.1.0
 */
export type ReadError = Unresolved | NoSuchItem | Unreadable

/**
 * Every error the engine raises.
 *
 * @example
 * ```ts
 * import type { EngineError } from "effect-surface"
 * const tagOf = (e: EngineError.EngineError): string => e._tag
 * ```
 *
 * @since 0.1.0
 */
export type EngineError = UnknownTool | ReadError
