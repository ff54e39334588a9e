/**
 * Every refusal a bundle's composition owes, as values.
 *
 * The same composition runs at boot and at every roster move, and a move that would be refused
 * must leave the endpoint as it was while telling the caller exactly what to fix. So each refusal is
 * a tagged error carrying the facts, and its message names both claimants wherever there are two —
 * a report that names one side sends the reader hunting for the other. Kept apart from the Resolver
 * so a face can match on these without loading the composition code.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type * as Bundle from "./Bundle.ts"
import type { CheckError } from "../surface/Expose.ts"

/**
 * The schema of `Bundle.Origin`, so refusals that carry origins stay schema-backed errors.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ResolveError } from "effect-surface"
 * Schema.is(ResolveError.OriginSchema)({ _tag: "RootTool", name: "ping" }) // true
 * ```
 *
 * @since 0.1.0
 */
export const OriginSchema = Schema.Union([
  Schema.TaggedStruct("Procedure", {
    sibling: Schema.UndefinedOr(Schema.String),
    ns: Schema.String,
    verb: Schema.String
  }),
  Schema.TaggedStruct("SiblingTool", { sibling: Schema.String, name: Schema.String }),
  Schema.TaggedStruct("RootTool", { name: Schema.String })
])

/**
 * Who minted a tool name, in words: `the core's procedure "ops.run"`, `sibling "a"'s tool "read"`,
 * `the root tool "a_ops_run"`.
 *
 * @example
 * ```ts
 * import { ResolveError } from "effect-surface"
 * ResolveError.describeOrigin({ _tag: "Procedure", sibling: "a", ns: "ops", verb: "run" })
 * // 'sibling "a"\'s procedure "ops.run"'
 * ```
 *
 * @since 0.1.0
 */
export const describeOrigin = (origin: Bundle.Origin): string => {
  switch (origin._tag) {
    case "Procedure":
      return `${ownerOf(origin.sibling)} procedure "${origin.ns}.${origin.verb}"`
    case "SiblingTool":
      return `${ownerOf(origin.sibling)} tool "${origin.name}"`
    case "RootTool":
      return `the root tool "${origin.name}"`
  }
}

const ownerOf = (sibling: string | undefined): string => sibling === undefined ? "the core's" : `sibling "${sibling}"'s`

/**
 * A bundle with neither a core nor a sibling: there is nothing to serve, so it is not a bundle.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Resolver } from "effect-surface"
 * Resolver.resolveBundle({}) // fails with EmptyBundle
 * ```
 *
 * @since 0.1.0
 */
export class EmptyBundle extends Schema.TaggedError<EmptyBundle>()("EmptyBundle", {}) {
  override get message(): string {
    return "the bundle has neither a core nor a sibling: give it a core surface, at least one sibling, or both"
  }
}

/**
 * The pattern a sibling key must match: letters, digits, `_` and `-`. A sibling key is a segment of
 * every URI (`surface://cells/<sibling>/…`) and a prefix of every tool name (`<sibling>_…`) it mints,
 * so a character a host would percent-encode, read as a query or fragment (`?`, `#`), or take for a
 * template variable (`{`, `}`) would mint addresses that do not survive the trip.
 *
 * @example
 * ```ts
 * import { ResolveError } from "effect-surface"
 * ResolveError.SIBLING_KEY.test("jobs-2") // true
 * ResolveError.SIBLING_KEY.test("my jobs") // false
 * ```
 *
 * @since 0.1.0
 */
export const SIBLING_KEY = /^[A-Za-z0-9_-]+$/

/**
 * A sibling key that cannot be one segment of an address: empty, containing `/`, or containing any
 * other character outside `SIBLING_KEY` (a space, `?`, `#`, `%`, `{`, `.`, …).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Resolver } from "effect-surface"
 * import type { Bundle } from "effect-surface"
 *
 * declare const sibling: Bundle.Sibling
 * const refused = Resolver.resolveBundle({ surfaces: { "a/b": sibling } }).pipe(
 *   Effect.catchTag("InvalidSiblingKey", (e) => Effect.succeed(e.reason)) // "slash"
 * )
 * ```
 *
 * @since 0.1.0
 */
export class InvalidSiblingKey extends Schema.TaggedError<InvalidSiblingKey>()("InvalidSiblingKey", {
  sibling: Schema.String,
  reason: Schema.Literals(["empty", "slash", "character"])
}) {
  override get message(): string {
    const what = this.reason === "empty"
      ? "is empty"
      : this.reason === "slash"
      ? `"${this.sibling}" contains "/"`
      : `"${this.sibling}" contains ${outside(this.sibling)}, outside A-Z, a-z, 0-9, _ and -`
    return `the sibling key ${what}: a sibling key is a single segment of every URI and tool name it mints`
  }
}

// The characters of a key that SIBLING_KEY refuses, each quoted once, in order.
const outside = (key: string): string =>
  [...new Set(Array.from(key).filter((c) => !SIBLING_KEY.test(c)))].map((c) => JSON.stringify(c)).join(", ")

/**
 * A sibling keyed like a collection the core exposes: `surface://collections/<k>/{id}` would name
 * that collection's items and the sibling's collections at once, and no lookup order resolves that
 * honestly.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import type { Bundle } from "effect-surface"
 * import { Resolver, Surface } from "effect-surface"
 *
 * const Todos = Surface.make({ collections: { todos: Surface.collection(Schema.String, Schema.String) } })
 * declare const other: Bundle.Sibling
 * Resolver.resolveBundle({ core: { surface: Todos, expose: { collections: { todos: true } } }, surfaces: { todos: other } })
 * // fails with SiblingShadowsCollection
 * ```
 *
 * @since 0.1.0
 */
export class SiblingShadowsCollection
  extends Schema.TaggedError<SiblingShadowsCollection>()("SiblingShadowsCollection", {
    sibling: Schema.String
  })
{
  override get message(): string {
    const k = this.sibling
    return `sibling "${k}" has the same key as the core's collection "${k}": surface://collections/${k}/{id} would ` +
      `address both that collection's items and sibling "${k}"'s collections; rename the sibling or stop exposing the collection`
  }
}

/**
 * Two claimants minted the same tool name. Found in one pass over every generated and bespoke name.
 *
 * @example
 * ```ts
 * import { Resolver } from "effect-surface"
 * // a root tool "a_ops_run" beside sibling "a" exposing "ops.run"
 * // fails: tool name "a_ops_run" is claimed twice: by the root tool "a_ops_run" and by sibling "a"'s procedure "ops.run"
 * ```
 *
 * @since 0.1.0
 */
export class DuplicateToolName extends Schema.TaggedError<DuplicateToolName>()("DuplicateToolName", {
  name: Schema.String,
  first: OriginSchema,
  second: OriginSchema
}) {
  override get message(): string {
    return `tool name "${this.name}" is claimed twice: by ${describeOrigin(this.first)} and by ${
      describeOrigin(this.second)
    }; ` +
      `rename one of them`
  }
}

/**
 * The pattern MCP requires of a tool name.
 *
 * @example
 * ```ts
 * import { ResolveError } from "effect-surface"
 * ResolveError.TOOL_NAME.test("a.b_c") // true
 * ```
 *
 * @since 0.1.0
 */
export const TOOL_NAME = /^[A-Za-z0-9_./-]{1,64}$/

/**
 * A minted tool name MCP would not accept (`^[A-Za-z0-9_./-]{1,64}$`), naming where it came from.
 *
 * @example
 * ```ts
 * import { Resolver } from "effect-surface"
 * // a root tool named "say hi"
 * // fails: tool name "say hi" (from the root tool "say hi") is not a valid MCP tool name: ...
 * ```
 *
 * @since 0.1.0
 */
export class InvalidToolName extends Schema.TaggedError<InvalidToolName>()("InvalidToolName", {
  name: Schema.String,
  origin: OriginSchema
}) {
  override get message(): string {
    const why = this.name.length > 64
      ? `it is ${this.name.length} characters long, over the limit of 64`
      : this.name.length === 0
      ? "it is empty"
      : "it contains a character outside A-Z, a-z, 0-9, _, ., / and -"
    return `tool name "${this.name}" (from ${describeOrigin(this.origin)}) is not a valid MCP tool name: ${why}`
  }
}

/**
 * A bespoke tool whose raw JSON Schema input cannot be checked against: refused at boot, so a
 * host is never advertised a tool that no call could pass.
 *
 * @example
 * ```ts
 * import { ResolveError } from "effect-surface"
 * new ResolveError.InvalidToolSchema({ name: "lookup", origin: { _tag: "RootTool", name: "lookup" }, reason: "#/type: unknown type \"strng\"" })
 * ```
 *
 * @since 0.1.0
 */
export class InvalidToolSchema extends Schema.TaggedError<InvalidToolSchema>()("InvalidToolSchema", {
  name: Schema.String,
  origin: OriginSchema,
  reason: Schema.String
}) {
  override get message(): string {
    return `tool "${this.name}" (from ${
      describeOrigin(this.origin)
    }) has an input schema no call could be checked against: ${this.reason}`
  }
}

const ResourceClaim = Schema.Struct({
  sibling: Schema.UndefinedOr(Schema.String),
  kind: Schema.Literals(["cell", "collection", "stream", "event"]),
  key: Schema.String
})

/**
 * Two members minted the same resource URI or item template — possible only when a member key
 * itself contains `/` (core cell `"t/k"` beside sibling `"t"`'s cell `"k"`).
 *
 * @example
 * ```ts
 * import { Resolver } from "effect-surface"
 * // fails: resource "surface://cells/t/k" is claimed twice: by the core's cell "t/k" and by sibling "t"'s cell "k"
 * ```
 *
 * @since 0.1.0
 */
export class DuplicateResourceUri extends Schema.TaggedError<DuplicateResourceUri>()("DuplicateResourceUri", {
  uri: Schema.String,
  first: ResourceClaim,
  second: ResourceClaim
}) {
  override get message(): string {
    const claim = (c: typeof ResourceClaim.Type) => `${ownerOf(c.sibling)} ${c.kind} "${c.key}"`
    return `resource "${this.uri}" is claimed twice: by ${claim(this.first)} and by ${
      claim(this.second)
    }; rename one of them`
  }
}

/**
 * A resource the app serves by handler, at an address under `surface://`: that scheme is the
 * bundle's surfaces' own, so the handler would shadow a member or be shadowed by one.
 *
 * @example
 * ```ts
 * import { McpFace } from "effect-surface/mcp"
 * // resources: { "surface://cells/notes": notes }
 * // fails: resource "surface://cells/notes" is served by a handler under surface://, which only the bundle's surfaces may mint; ...
 * ```
 *
 * @since 0.1.0
 */
export class ReservedResourceUri extends Schema.TaggedError<ReservedResourceUri>()("ReservedResourceUri", {
  uri: Schema.String
}) {
  override get message(): string {
    return `resource "${this.uri}" is served by a handler under surface://, which only the bundle's surfaces may mint; ` +
      `serve it under another scheme`
  }
}

/**
 * Every way composing a bundle can be refused.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Bundle } from "effect-surface"
 * import { Resolver } from "effect-surface"
 *
 * declare const bundle: Bundle.Bundle
 * Resolver.resolveBundle(bundle).pipe(Effect.catchTag("DuplicateToolName", (e) => Effect.logError(e.message)))
 * ```
 *
 * @since 0.1.0
 */
export type ResolveError =
  | EmptyBundle
  | InvalidSiblingKey
  | SiblingShadowsCollection
  | DuplicateToolName
  | InvalidToolName
  | InvalidToolSchema
  | DuplicateResourceUri
  | ReservedResourceUri
  | CheckError
