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
import { Effect, Schema } from "effect"
import * as Surface from "./Surface.ts"

/**
 * How one procedure is exposed: `true`, or an entry that overrides what the spec says it does.
 * `mutates` defaults to the procedure's own declaration, and that to `true`.
 *
 * @since 0.1.0
 */
export type ProcedureEntry = true | { readonly mutates?: boolean }

/**
 * The expose map of a surface: each group names the members that cross, by their spec key;
 * procedures by their `"ns.verb"` address.
 *
 * @since 0.1.0
 */
export interface ExposeMap<S extends Surface.Spec> {
  readonly cells?: { readonly [K in keyof S["cells"]]?: true }
  readonly collections?: { readonly [K in keyof S["collections"]]?: true }
  readonly streams?: { readonly [K in keyof S["streams"]]?: true }
  readonly events?: { readonly [K in keyof S["events"]]?: true }
  readonly procedures?: { readonly [K in Surface.ProcedureName<S>]?: ProcedureEntry }
}

/**
 * An expose map whose surface is known only at run time.
 *
 * @since 0.1.0
 */
export interface AnyExposeMap {
  readonly cells?: { readonly [key: string]: true | undefined }
  readonly collections?: { readonly [key: string]: true | undefined }
  readonly streams?: { readonly [key: string]: true | undefined }
  readonly events?: { readonly [key: string]: true | undefined }
  readonly procedures?: { readonly [name: string]: ProcedureEntry | undefined }
}

/**
 * Write an expose map against its surface. Excess keys are compile errors.
 *
 * @example
 * ```ts
 * import { Expose } from "effect-surface"
 * const expose = Expose.make(Todos, { cells: { filter: true }, procedures: { "todo.add": { mutates: true } } })
 * ```
 *
 * @since 0.1.0
 */
export const make = <S extends Surface.Spec>(_spec: S, expose: ExposeMap<S>): ExposeMap<S> => expose

/**
 * An exposed procedure, resolved against its spec.
 *
 * @since 0.1.0
 */
export interface ExposedProcedure {
  readonly ns: string
  readonly verb: string
  readonly procedure: Surface.Procedure
  readonly mutates: boolean
}

/**
 * An expose map checked against a spec: every name in it exists, in spec order.
 *
 * @since 0.1.0
 */
export interface Checked {
  readonly cells: ReadonlyArray<string>
  readonly collections: ReadonlyArray<string>
  readonly streams: ReadonlyArray<string>
  readonly events: ReadonlyArray<string>
  readonly procedures: ReadonlyArray<ExposedProcedure>
}

/**
 * An expose key that names nothing on its surface.
 *
 * @since 0.1.0
 */
export class UnknownExposeKey extends Schema.TaggedError<UnknownExposeKey>()("UnknownExposeKey", {
  face: Schema.String,
  group: Schema.Literals(["cells", "collections", "streams", "events", "procedures"]),
  key: Schema.String
}) {
  override get message(): string {
    const member = this.group === "procedures" ? "procedure" : this.group.slice(0, -1)
    return `the expose map for ${this.face} names ${member} "${this.key}", which its surface does not declare`
  }
}

const memberGroups = ["cells", "collections", "streams", "events"] as const

/**
 * Check an expose map against a spec at run time. `face` says whose map it is ("mcp", "mcp
 * sibling tasks", …) so the refusal names where to fix it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Expose } from "effect-surface"
 * const checked = Expose.check(Todos, { cells: { filtr: true } }, "mcp")
 * // fails: the expose map for mcp names cell "filtr", which its surface does not declare
 * ```
 *
 * @since 0.1.0
 */
export const check = (
  spec: Surface.Spec,
  expose: AnyExposeMap,
  face: string
): Effect.Effect<Checked, UnknownExposeKey> =>
  Effect.gen(function*() {
    const named = (group: typeof memberGroups[number]): Effect.Effect<ReadonlyArray<string>, UnknownExposeKey> => {
      const entries = expose[group] ?? {}
      for (const key of Object.keys(entries)) {
        if (!Object.hasOwn(spec[group], key)) return Effect.fail(new UnknownExposeKey({ face, group, key }))
      }
      // Spec order, so every face lists members the same way whatever order the map was written in.
      return Effect.succeed(Object.keys(spec[group]).filter((key) => entries[key] === true))
    }
    const cells = yield* named("cells")
    const collections = yield* named("collections")
    const streams = yield* named("streams")
    const events = yield* named("events")
    const procedureEntries = expose.procedures ?? {}
    const procedures: Array<ExposedProcedure> = []
    for (const [name, entry] of Object.entries(procedureEntries)) {
      if (entry === undefined) continue
      const address = Surface.splitProcedureName(name)
      const procedure = address && Surface.procedureAt(spec, address.ns, address.verb)
      if (address === undefined || procedure === undefined) {
        return yield* new UnknownExposeKey({ face, group: "procedures", key: name })
      }
      const mutates = (entry === true ? undefined : entry.mutates) ?? procedure.mutates ?? true
      procedures.push({ ns: address.ns, verb: address.verb, procedure, mutates })
    }
    return { cells, collections, streams, events, procedures }
  })

/**
 * Expose everything a spec declares — for trusted, local use and tests; faces still default-deny.
 *
 * @since 0.1.0
 */
export const all = <S extends Surface.Spec>(spec: S): ExposeMap<S> => {
  const every = (group: object) => Object.fromEntries(Object.keys(group).map((key) => [key, true as const]))
  const procedures = Object.fromEntries(
    Object.entries(spec.procedures).flatMap(([ns, verbs]) => Object.keys(verbs).map((verb) => [`${ns}.${verb}`, true as const]))
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
