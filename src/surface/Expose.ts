/**
 * The expose map: which members of a surface cross to a face.
 *
 * Exposure is default-deny — a member reaches an agent only when it is named — and the map is typed
 * against its own surface, so a key that names nothing is a compile error wherever the surface is
 * statically known. Specs can also arrive at run time (a roster move, a config file), so the same map
 * is checked again when a face boots, and a bad key is refused with an error that names the key and
 * the face it was written for. One map shape serves every face, so a key means the same thing to each.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import {
  decodeMap,
  decodeMemberEntry,
  decodeProcedureEntry,
  type Entries,
  type Exposed,
  isEntries,
  shown
} from "./internal/exposeEntries.ts"
import { nearest } from "./internal/nearest.ts"
import * as Surface from "./Surface.ts"

/**
 * How one procedure is exposed: `true`, or an entry that overrides what the spec says it does.
 * `mutates` defaults to the procedure's own declaration, and that to `true`. `view: true` asks a
 * face that renders views (a host showing MCP Apps) to show the procedure's tool as one, and
 * `view: false` leaves it out of the map's `views`.
 *
 * @example
 * ```ts
 * import type { Expose } from "effect-surface"
 * const readOnly: Expose.ProcedureEntry = { mutates: false }
 * const guarded: Expose.ProcedureEntry = { scope: "board:write" } // shown only to tokens granted it
 * const shown: Expose.ProcedureEntry = { view: true } // a form in a host that renders views
 * ```
 *
 * @since 0.1.0
 */
export type ProcedureEntry = true | {
  readonly mutates?: boolean
  readonly scope?: string
  readonly view?: boolean
}

/**
 * How one member is exposed: `true`, or `{ scope }` — shown, over an HTTP face behind a resource
 * server, only to callers whose token holds that scope.
 *
 * @example
 * ```ts
 * import type { Expose } from "effect-surface"
 * const entry: Expose.MemberEntry = { scope: "board:read" }
 * ```
 *
 * @since 0.1.0
 */
export type MemberEntry = true | { readonly scope: string }

/**
 * The expose map of a surface: each group names the members that cross, by their spec key;
 * procedures by their `"ns.verb"` address. `views: true` shows every procedure the map exposes as a
 * view where a face renders views (an entry's `view` says otherwise for its own).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Expose, Surface } from "effect-surface"
 *
 * const Todos = Surface.make({ cells: { filter: Surface.cell(Schema.String, "all") }, procedures: { todo: { add: {} } } })
 * const expose: Expose.ExposeMap<typeof Todos> = { cells: { filter: true }, procedures: { "todo.add": true } }
 * ```
 *
 * @since 0.1.0
 */
export interface ExposeMap<S extends Surface.Spec> {
  readonly cells?: { readonly [K in keyof S["cells"]]?: MemberEntry }
  readonly collections?: { readonly [K in keyof S["collections"]]?: MemberEntry }
  readonly streams?: { readonly [K in keyof S["streams"]]?: MemberEntry }
  readonly events?: { readonly [K in keyof S["events"]]?: MemberEntry }
  readonly procedures?: { readonly [K in Surface.ProcedureName<S>]?: ProcedureEntry }
  readonly views?: boolean
}

/**
 * An expose map whose surface is known only at run time: what `check` accepts once it has decoded
 * its input. `true` (or a procedure entry) exposes; `false` or leaving a key out denies.
 *
 * @example
 * ```ts
 * import type { Expose } from "effect-surface"
 * const expose: Expose.AnyExposeMap = { cells: { filter: true }, procedures: { "todo.add": { mutates: true }, "todo.drop": false } }
 * ```
 *
 * @since 0.1.0
 */
export interface AnyExposeMap {
  readonly cells?: { readonly [key: string]: MemberEntry | false | undefined }
  readonly collections?: { readonly [key: string]: MemberEntry | false | undefined }
  readonly streams?: { readonly [key: string]: MemberEntry | false | undefined }
  readonly events?: { readonly [key: string]: MemberEntry | false | undefined }
  readonly procedures?: { readonly [name: string]: ProcedureEntry | false | undefined }
  readonly views?: boolean
}

/**
 * Write an expose map against its surface. Excess keys are compile errors.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Expose, Surface } from "effect-surface"
 *
 * const Todos = Surface.make({ cells: { filter: Surface.cell(Schema.String, "all") }, procedures: { todo: { add: {} } } })
 * const expose = Expose.make(Todos, { cells: { filter: true }, procedures: { "todo.add": { mutates: true } } })
 * ```
 *
 * @since 0.1.0
 */
export const make = <S extends Surface.Spec>(_spec: S, expose: ExposeMap<S>): ExposeMap<S> => expose

/**
 * An exposed procedure, resolved against its spec.
 *
 * @example
 * ```ts
 * import type { Expose } from "effect-surface"
 * const add: Expose.ExposedProcedure = { ns: "todo", verb: "add", procedure: {}, mutates: true }
 * ```
 *
 * @since 0.1.0
 */
export interface ExposedProcedure {
  readonly ns: string
  readonly verb: string
  readonly procedure: Surface.Procedure
  readonly mutates: boolean
  /** The scope a caller's token must hold to see and call it; none: every caller. */
  readonly scope?: string | undefined
  /** Whether a face that renders views shows it as one: its entry's `view`, else the map's `views`; unsaid: `undefined`. */
  readonly view?: boolean | undefined
}

/**
 * An expose map checked against a spec: every name in it exists, and every group — procedures
 * included — lists its members in spec order, whatever order the map was written in.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Expose } from "effect-surface"
 * declare const checked: Expose.Checked
 * const tools = checked.procedures.map((p) => `${p.ns}.${p.verb}`)
 * ```
 *
 * @since 0.1.0
 */
export interface Checked {
  readonly cells: ReadonlyArray<string>
  readonly collections: ReadonlyArray<string>
  readonly streams: ReadonlyArray<string>
  readonly events: ReadonlyArray<string>
  readonly procedures: ReadonlyArray<ExposedProcedure>
  /** The scope each member needs, keyed `"<group>/<key>"` (procedures: their own entry). */
  readonly scopes: ReadonlyMap<string, string>
}

const groups = ["cells", "collections", "streams", "events", "procedures"] as const
type GroupName = typeof groups[number]

const memberOf = (group: GroupName): string => group === "procedures" ? "procedure" : group.slice(0, -1)

/**
 * An expose key that names nothing on its surface.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Expose, Surface } from "effect-surface"
 *
 * const Todos = Surface.make({ cells: { filter: Surface.cell(Schema.String, "all") } })
 * Expose.check(Todos, { cells: { filtr: true } }, "mcp").pipe(
 *   Effect.catchTag("UnknownExposeKey", (e) => Effect.logError(e.message))
 * )
 * ```
 *
 * @since 0.1.0
 */
export class UnknownExposeKey extends Schema.TaggedError<UnknownExposeKey>()("UnknownExposeKey", {
  face: Schema.String,
  group: Schema.Literals(groups),
  key: Schema.String,
  /** The group that does declare `key`, when it was written under the wrong one. */
  declaredAs: Schema.optionalKey(Schema.Literals(groups)),
  /** The declared name of `group` closest to `key`, when one is close. */
  didYouMean: Schema.optionalKey(Schema.String)
}) {
  override get message(): string {
    const fix = this.declaredAs !== undefined
      ? `; it is a ${memberOf(this.declaredAs)}: name it under ${this.declaredAs}`
      : this.didYouMean === undefined ? "" : `; did you mean "${this.didYouMean}"?`
    return `the expose map for ${this.face} names ${
      memberOf(this.group)
    } "${this.key}", which its surface does not declare${fix}`
  }
}

const declares = (spec: Surface.Spec, group: GroupName, key: string): boolean => {
  if (group !== "procedures") return Object.hasOwn(spec[group], key)
  const address = Surface.splitProcedureName(key)
  return address !== undefined && Surface.procedureAt(spec, address.ns, address.verb) !== undefined
}

const namesIn = (spec: Surface.Spec, group: GroupName): ReadonlyArray<string> =>
  group === "procedures"
    ? Object.entries(spec.procedures).flatMap(([ns, verbs]) => Object.keys(verbs).map((verb) => `${ns}.${verb}`))
    : Object.keys(spec[group])

// The refusal of a key naming nothing, with the fix when there is one: the group that declares it,
// else the closest declared name.
const unknownKey = (spec: Surface.Spec, face: string, group: GroupName, key: string): UnknownExposeKey => {
  const declaredAs = groups.find((other) => other !== group && declares(spec, other, key))
  const didYouMean = declaredAs === undefined ? nearest(key, namesIn(spec, group)) : undefined
  return new UnknownExposeKey({
    face,
    group,
    key,
    ...(declaredAs === undefined ? {} : { declaredAs }),
    ...(didYouMean === undefined ? {} : { didYouMean })
  })
}

/**
 * An expose map, or an entry of it, that is not what an expose map may hold — read from a config
 * file or a roster move, a map is untrusted input. `key` is where the fault is: a member name or
 * procedure address under `group`; without a group, a top-level key of the map (or `""` for the map
 * itself). `reason` says what was wrong and what is allowed.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Expose, Surface } from "effect-surface"
 *
 * const Todos = Surface.make({ procedures: { todo: { add: {} } } })
 * const fromConfig: unknown = JSON.parse(`{"procedures":{"todo.add":{"mutates":"no"}}}`)
 * Expose.check(Todos, fromConfig, "mcp").pipe(
 *   Effect.catchTag("InvalidExposeEntry", (e) => Effect.logError(e.message))
 *   // the expose map for mcp has an invalid entry for procedure "todo.add": "mutates" is "no", …
 * )
 * ```
 *
 * @since 0.1.0
 */
export class InvalidExposeEntry extends Schema.TaggedError<InvalidExposeEntry>()("InvalidExposeEntry", {
  face: Schema.String,
  group: Schema.optionalKey(Schema.Literals(groups)),
  key: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    const where = this.group !== undefined
      ? `has an invalid entry for ${memberOf(this.group)} "${this.key}"`
      : this.key === "" ? "is invalid"
      : this.key === "views" ? `has an invalid "views"`
      : `has an invalid group "${this.key}"`
    return `the expose map for ${this.face} ${where}: ${this.reason}`
  }
}

/**
 * A spec declares a procedure verb containing a dot. Addresses are `"ns.verb"` split at the last
 * dot, so such a procedure could not be named (and `{ a: { "b.c" } }` would collide with
 * `{ "a.b": { c } }`). `Surface.make` refuses it at compile time; this is the run-time refusal, for
 * specs that arrive as values.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Expose, Surface } from "effect-surface"
 *
 * const fromRoster: Surface.Spec = { cells: {}, collections: {}, streams: {}, events: {}, procedures: { a: { "b.c": {} } } }
 * Expose.check(fromRoster, {}, "mcp").pipe(Effect.catchTag("DottedVerb", (e) => Effect.logError(e.message)))
 * ```
 *
 * @since 0.1.0
 */
export class DottedVerb extends Schema.TaggedError<DottedVerb>()("DottedVerb", {
  face: Schema.String,
  ns: Schema.String,
  verb: Schema.String
}) {
  override get message(): string {
    return `the surface for ${this.face} declares procedure verb "${this.verb}" in namespace "${this.ns}": ` +
      `a verb may not contain a dot (a namespace may), because "${this.ns}.${this.verb}" is split at its last dot`
  }
}

/**
 * Every way `check` refuses a map.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Expose, Surface } from "effect-surface"
 *
 * declare const spec: Surface.Spec
 * const checked: Effect.Effect<Expose.Checked, Expose.CheckError> = Expose.check(spec, {}, "mcp")
 * ```
 *
 * @since 0.1.0
 */
export type CheckError = UnknownExposeKey | InvalidExposeEntry | DottedVerb

/**
 * Check an expose map against a spec at run time. `face` says whose map it is ("mcp", "mcp
 * sibling tasks", …) so the refusal names where to fix it.
 *
 * The map is decoded as the untrusted input it is (it may come from a config file): only `true`
 * exposes a member, and only `true` or `{ mutates?, scope?, view? }` a procedure; `false` or a missing
 * key denies; `views`, beside the groups, is `true` or `false`; anything else is an {@link InvalidExposeEntry} naming the key. Only the map's own keys
 * count, never ones inherited through its prototype. A key naming nothing is an
 * {@link UnknownExposeKey}, and a spec with a dotted verb is a {@link DottedVerb}.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Expose, Surface } from "effect-surface"
 *
 * const Todos = Surface.make({ cells: { filter: Surface.cell(Schema.String, "all") } })
 * const checked = Expose.check(Todos, { cells: { filtr: true } }, "mcp")
 * // fails: the expose map for mcp names cell "filtr", which its surface does not declare
 * ```
 *
 * @since 0.1.0
 */
export const check = (
  spec: Surface.Spec,
  expose: AnyExposeMap | unknown,
  face: string
): Effect.Effect<Checked, CheckError> =>
  Effect.gen(function*() {
    for (const [ns, verbs] of Object.entries(spec.procedures)) {
      const verb = Object.keys(verbs).find((verb) => verb.includes("."))
      if (verb !== undefined) return yield* new DottedVerb({ face, ns, verb })
    }
    const decoded = decodeMap(expose, groups)
    if (decoded._tag === "Refused") return yield* new InvalidExposeEntry({ face, ...decoded.refused })
    const { map, views } = decoded
    const entriesOf = (group: GroupName): Effect.Effect<Entries, InvalidExposeEntry> => {
      const entries = Object.hasOwn(map, group) ? map[group] : undefined
      if (entries === undefined) return Effect.succeed({})
      return isEntries(entries)
        ? Effect.succeed(entries)
        : Effect.fail(
          new InvalidExposeEntry({ face, key: group, reason: `it is ${shown(entries)}, not an object of entries` })
        )
    }
    const scopes = new Map<string, string>()
    const named = (group: Exclude<GroupName, "procedures">) =>
      Effect.gen(function*() {
        const entries = yield* entriesOf(group)
        const exposed = new Set<string>()
        for (const key of Object.keys(entries)) {
          if (!Object.hasOwn(spec[group], key)) return yield* unknownKey(spec, face, group, key)
          const decoded = decodeMemberEntry(entries[key])
          if (typeof decoded === "string") return yield* new InvalidExposeEntry({ face, group, key, reason: decoded })
          if (decoded.exposed) {
            exposed.add(key)
            if (decoded.scope !== undefined) scopes.set(`${group}/${key}`, decoded.scope)
          }
        }
        return Object.keys(spec[group]).filter((key) => exposed.has(key))
      })
    const cells = yield* named("cells")
    const collections = yield* named("collections")
    const streams = yield* named("streams")
    const events = yield* named("events")
    const procedureEntries = yield* entriesOf("procedures")
    const overrides = new Map<string, Exposed>()
    for (const name of Object.keys(procedureEntries)) {
      if (!declares(spec, "procedures", name)) return yield* unknownKey(spec, face, "procedures", name)
      const decoded = decodeProcedureEntry(procedureEntries[name])
      if (typeof decoded === "string") {
        return yield* new InvalidExposeEntry({ face, group: "procedures", key: name, reason: decoded })
      }
      if (decoded.exposed) {
        overrides.set(name, decoded)
        if (decoded.scope !== undefined) scopes.set(`procedures/${name}`, decoded.scope)
      }
    }
    // Spec order, so every face lists procedures the same way whatever order the map was written in.
    const procedures = Object.entries(spec.procedures).flatMap(([ns, verbs]) =>
      Object.entries(verbs).flatMap(([verb, procedure]): ReadonlyArray<ExposedProcedure> => {
        const name = `${ns}.${verb}`
        const entry = overrides.get(name)
        if (entry === undefined) return []
        const mutates = entry.mutates ?? procedure.mutates ?? true
        return [{ ns, verb, procedure, mutates, scope: entry.scope, view: entry.view ?? views }]
      })
    )
    return { cells, collections, streams, events, procedures, scopes }
  })

/**
 * Expose everything a spec declares — for trusted, local use and tests; faces still default-deny.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Expose, Surface } from "effect-surface"
 *
 * const Todos = Surface.make({ cells: { filter: Surface.cell(Schema.String, "all") }, procedures: { todo: { add: {} } } })
 * Expose.all(Todos) // { cells: { filter: true }, …, procedures: { "todo.add": true } }
 * ```
 *
 * @since 0.1.0
 */
export const all = <S extends Surface.Spec>(spec: S): ExposeMap<S> => {
  const every = (group: object) => Object.fromEntries(Object.keys(group).map((key) => [key, true as const]))
  const procedures = Object.fromEntries(
    Object.entries(spec.procedures).flatMap(([ns, verbs]) =>
      Object.keys(verbs).map((verb) => [`${ns}.${verb}`, true as const])
    )
  )
  // Built from the spec's own keys, so every key names a member; the mapped key types are run-time.
  return {
    cells: every(spec.cells),
    collections: every(spec.collections),
    streams: every(spec.streams),
    events: every(spec.events),
    procedures
  } as ExposeMap<S>
}
