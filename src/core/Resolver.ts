/**
 * The one place an expose map becomes `surface://` URIs and MCP tool names.
 *
 * A bundle is composed by prefix, never by merge: the sibling key is a segment of every URI and
 * every tool name a sibling mints, and the core is the only surface without one, so two siblings
 * exposing the same member key are disjoint by construction. The same pure composition runs at boot
 * and at every roster move, so a roster the boot would refuse is refused by a move too, and the
 * result — flat tables, their indices and the three list answers — is built once per generation and
 * replaced whole, so no request ever reads a half-composed roster.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Bundle from "./Bundle.ts"
import type * as Caller from "./Caller.ts"
import { ID } from "./ItemUri.ts"
import * as ResolveError from "./ResolveError.ts"
import { bespokeTool, compileInput, described } from "./internal/bespoke.ts"
import { collectionKey, indexTables } from "./internal/bundleIndex.ts"
import { advertiseResource, advertiseTemplate, advertiseTool, surfaceName } from "./internal/lists.ts"
import * as Client from "../surface/Client.ts"
import * as Expose from "../surface/Expose.ts"
import type * as Surface from "../surface/Surface.ts"

/**
 * What one surface contributes to a bundle: its exposed resources, item templates and generated tools.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Expose, Surface } from "effect-surface"
 * import { Resolver } from "effect-surface"
 *
 * declare const Todos: Surface.Spec
 * declare const expose: Expose.AnyExposeMap
 * const program = Effect.gen(function*() {
 *   const { resources, templates, tools }: Resolver.Tables = yield* Resolver.resolveExpose(Todos, expose, undefined)
 *   return tools.map((tool) => tool.name)
 * })
 * ```
 *
 * @since 0.1.0
 */
export interface Tables {
  readonly resources: ReadonlyArray<Bundle.Resource>
  readonly templates: ReadonlyArray<Bundle.Template>
  readonly tools: ReadonlyArray<Bundle.Tool>
}

const kindGroups = [["cell", "cells"], ["collection", "collections"], ["stream", "streams"], [
  "event",
  "events"
]] as const

/**
 * The prefix rule for tool names: a sibling's names (generated or bespoke) take its key and `_` in
 * front; the core's and the bundle root's stay bare.
 *
 * @example
 * ```ts
 * import { Resolver } from "effect-surface"
 * Resolver.scopedToolName("t", "read") // "t_read"
 * Resolver.scopedToolName(undefined, "ops_run") // "ops_run"
 * ```
 *
 * @since 0.1.0
 */
export const scopedToolName = (sibling: string | undefined, name: string): string =>
  sibling === undefined ? name : `${sibling}_${name}`

/**
 * The label a refusal uses for the expose map of the core or of one sibling, in the words the map
 * was written in: where it sits in the options (`core.expose`, `surfaces.t.expose`).
 *
 * @example
 * ```ts
 * import { Resolver } from "effect-surface"
 * Resolver.faceLabel(undefined) // "your surface (core.expose)"
 * Resolver.faceLabel("t") // 'sibling "t" (surfaces.t.expose)'
 * ```
 *
 * @since 0.1.0
 */
export const faceLabel = (sibling: string | undefined): string =>
  sibling === undefined
    ? "your surface (core.expose)"
    : `sibling "${sibling}" (surfaces${
      /^[A-Za-z_$][\w$]*$/.test(sibling) ? `.${sibling}` : `[${JSON.stringify(sibling)}]`
    }.expose)`

/**
 * The index key of a collection's item template: `"<sibling>/<key>"`, or `"<key>"` on the core.
 *
 * @example
 * ```ts
 * import { Resolver } from "effect-surface"
 * Resolver.collectionKey("t", "todos") // "t/todos"
 * ```
 *
 * @since 0.1.0
 */
export { collectionKey }

const uriOf = (group: string, sibling: string | undefined, key: string): string =>
  `surface://${group}/${collectionKey(sibling, key)}`

// Each member's JSON codecs are compiled here, once per resolution, and carried on the tables: a
// read or a subscription frame never rebuilds one.
const encoderOf = (schema: Surface.Shape): Bundle.Codec => Schema.encodeUnknownEffect(Schema.toCodecJson(schema))
const decoderOf = (schema: Surface.Shape): Bundle.Codec => Schema.decodeUnknownEffect(Schema.toCodecJson(schema))
const identity: Bundle.Codec = Effect.succeed

const procedureTool = (sibling: string | undefined, exposed: Expose.ExposedProcedure): Bundle.Tool => {
  const { mutates, ns, procedure, verb } = exposed
  return {
    // Only the separator becomes `_`: a dotted namespace keeps its dots, so the name maps back to one (ns, verb).
    name: scopedToolName(sibling, `${ns}_${verb}`),
    origin: { _tag: "Procedure", sibling, ns, verb },
    sibling,
    title: procedure.title,
    description: described(procedure.description, () => `Calls ${ns}.${verb} on ${surfaceName(sibling)}.`),
    mutates,
    scope: exposed.scope,
    view: exposed.view,
    meta: undefined,
    annotations: undefined,
    input: compileInput(procedure.input),
    target: {
      _tag: "Procedure",
      ns,
      verb,
      procedure,
      encode: procedure.output === undefined ? identity : encoderOf(procedure.output)
    }
  }
}

/**
 * Resolve ONE surface's expose map (default-deny, checked against its own spec) into the resources,
 * item templates and tools it contributes. `sibling` is the address, not an omitted argument:
 * `undefined` is the bare core, a key `t` is folded into every name minted (`surface://cells/t/k`,
 * `t_ns_verb`). Members are listed in spec order.
 *
 * @example
 * ```ts
 * import { Context, Effect, Layer, Schema } from "effect"
 * import { Resolver, Surface } from "effect-surface"
 *
 * const Todos = Surface.make({
 *   cells: { filter: Surface.cell(Schema.String, "all") },
 *   procedures: { todo: { add: { input: Schema.String, output: Schema.String, mutates: true } } }
 * })
 * const tables = Resolver.resolveExpose(Todos, { cells: { filter: true }, procedures: { "todo.add": true } }, "t")
 * // resources: surface://cells/t/filter; tools: t_todo_add
 * ```
 *
 * @since 0.1.0
 */
export const resolveExpose = (
  spec: Surface.Spec,
  expose: Expose.AnyExposeMap,
  sibling: string | undefined
): Effect.Effect<Tables, Expose.CheckError> =>
  Effect.map(Expose.check(spec, expose, faceLabel(sibling)), (checked) => {
    const resources: Array<Bundle.Resource> = []
    const templates: Array<Bundle.Template> = []
    for (const [kind, group] of kindGroups) {
      for (const key of checked[group]) {
        const name = collectionKey(sibling, key)
        if (kind === "collection") {
          const collection = spec.collections[key]
          if (collection === undefined) continue // checked above: the key is declared
          const encode = encoderOf(collection.value)
          const encodeKey = encoderOf(collection.key)
          resources.push({
            uri: uriOf(group, sibling, key),
            name,
            kind,
            sibling,
            key,
            schema: collection.value,
            collection,
            encode,
            encodeKey,
            scope: checked.scopes.get(`${group}/${key}`)
          })
          templates.push({
            uriTemplate: `${uriOf(group, sibling, key)}/${ID}`,
            name: `${name} item`,
            sibling,
            key,
            collection,
            encode,
            encodeKey,
            decodeKey: decoderOf(collection.key),
            scope: checked.scopes.get(`${group}/${key}`)
          })
        } else {
          const member = spec[group][key]
          if (member === undefined) continue // checked above: the key is declared
          resources.push({
            uri: uriOf(group, sibling, key),
            name,
            kind,
            sibling,
            key,
            schema: member.schema,
            encode: encoderOf(member.schema),
            scope: checked.scopes.get(`${group}/${key}`)
          })
        }
      }
    }
    const tools = checked.procedures.map((exposed) => procedureTool(sibling, exposed))
    return { resources, templates, tools }
  })

const siblingKeyRefusal = (sibling: string): ResolveError.InvalidSiblingKey | undefined =>
  sibling === ""
    ? new ResolveError.InvalidSiblingKey({ sibling, reason: "empty" })
    : sibling.includes("/")
    ? new ResolveError.InvalidSiblingKey({ sibling, reason: "slash" })
    : ResolveError.SIBLING_KEY.test(sibling)
    ? undefined
    : new ResolveError.InvalidSiblingKey({ sibling, reason: "character" })

/**
 * Compose a whole bundle: the core's tables, then each sibling's in key order, with every refusal
 * the composition owes (see `ResolveError`), the indices, and the three list answers built once.
 * Tools are listed core procedures first, then the root tools, then each sibling's procedures and
 * its own tools; every name across all of them is checked in one pass.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Expose, Surface } from "effect-surface"
 * import { Resolver } from "effect-surface"
 *
 * declare const Todos: Surface.Spec
 * declare const Jobs: Surface.Spec
 * declare const expose: Expose.AnyExposeMap
 * declare const jobs: Expose.AnyExposeMap
 * const program = Effect.gen(function*() {
 *   const resolved = yield* Resolver.resolveBundle({ core: { surface: Todos, expose }, surfaces: { t: { surface: Jobs, expose: jobs } } })
 *   return resolved.toolByName.get("t_job_run")
 * })
 * ```
 *
 * @since 0.1.0
 */
export const resolveBundle = (bundle: Bundle.Bundle): Effect.Effect<Bundle.Resolved, ResolveError.ResolveError> =>
  Effect.gen(function*() {
    const surfaces = bundle.surfaces ?? {}
    const siblings = Object.keys(surfaces)
    if (bundle.core === undefined && siblings.length === 0) return yield* new ResolveError.EmptyBundle()
    const badKey = siblings.map(siblingKeyRefusal).find((refusal) => refusal !== undefined)
    if (badKey !== undefined) return yield* badKey
    const core = bundle.core === undefined
      ? { resources: [], templates: [], tools: [] }
      : yield* resolveExpose(bundle.core.surface, bundle.core.expose, undefined)
    // Only an exposed collection owns the item addresses a sibling of its key would also claim.
    const shadowed = siblings.find((sibling) => core.templates.some((t) => t.key === sibling))
    if (shadowed !== undefined) return yield* new ResolveError.SiblingShadowsCollection({ sibling: shadowed })

    const resources: Array<Bundle.Resource> = [...core.resources]
    const templates: Array<Bundle.Template> = [...core.templates]
    const tools: Array<Bundle.Tool> = [...core.tools]
    for (const [name, tool] of Object.entries(bundle.tools ?? {})) {
      tools.push(yield* bespokeTool(name, { _tag: "RootTool", name }, undefined, tool, { _tag: "RootTool", tool }))
    }
    for (const [sibling, member] of Object.entries(surfaces)) {
      const own = yield* resolveExpose(member.surface, member.expose, sibling)
      resources.push(...own.resources)
      templates.push(...own.templates)
      tools.push(...own.tools)
      for (const [name, tool] of Object.entries(member.tools ?? {})) {
        const origin: Bundle.Origin = { _tag: "SiblingTool", sibling, name }
        tools.push(
          yield* bespokeTool(scopedToolName(sibling, name), origin, sibling, tool, { _tag: "SiblingTool", tool })
        )
      }
    }

    const { byUri, templateByCollection, toolByName } = yield* indexTables(tools, resources, templates)
    return {
      bundle,
      siblings,
      resources,
      templates,
      tools,
      byUri,
      templateByCollection,
      toolByName,
      advertisedTools: tools.map(advertiseTool),
      advertisedResources: resources.map(advertiseResource),
      advertisedResourceTemplates: templates.map(advertiseTemplate)
    }
  })

/**
 * The resolver as a service: the composition a roster runs at boot and at every move, behind a key
 * so a test (or a face with rules of its own) can swap it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Bundle } from "effect-surface"
 * import { Resolver } from "effect-surface"
 *
 * declare const bundle: Bundle.Bundle
 * const program = Effect.gen(function*() {
 *   const resolver = yield* Resolver.Resolver
 *   return yield* resolver.resolveBundle(bundle)
 * }).pipe(Effect.provide(Resolver.layer))
 * ```
 *
 * @since 0.1.0
 */
export class Resolver extends Context.Service<Resolver, {
  readonly resolveBundle: (bundle: Bundle.Bundle) => Effect.Effect<Bundle.Resolved, ResolveError.ResolveError>
  readonly resolveExpose: typeof resolveExpose
}>()("effect-surface/Resolver") {}

/**
 * The resolver this module implements.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Resolver } from "effect-surface"
 * declare const program: Effect.Effect<void, never, Resolver.Resolver>
 * program.pipe(Effect.provide(Resolver.layer))
 * ```
 *
 * @since 0.1.0
 */
export const layer: Layer.Layer<Resolver> = Layer.succeed(Resolver, Resolver.of({ resolveBundle, resolveExpose }))

/**
 * A sibling whose bespoke tools are typed by its own surface: each receives the sibling's
 * `Client.Client<S, R>` (`R`: what its procedures need of the caller), with no narrowing at run
 * time. Sound because a sibling's tool is only ever handed the client dialled under its key, and
 * that client is refused (`NotServed`) unless it was built for this very surface.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { type Client, Resolver, Surface } from "effect-surface"
 * import * as Tools from "effect-surface/tools"
 *
 * const Stopwatch = Surface.make({ cells: { laps: Surface.cell(Schema.Int, 0) } })
 * const peek = Tools.make({
 *   description: "The laps so far",
 *   mutates: false,
 *   handler: (_: void, stopwatch: Client.Client<typeof Stopwatch>) => stopwatch.cells.laps.read
 * })
 * const sibling = Resolver.sibling({ surface: Stopwatch, expose: { cells: { laps: true } }, tools: { peek } })
 * ```
 *
 * @since 0.1.0
 */
export const sibling = <S extends Surface.Spec, R extends Caller.Services = never>(member: {
  readonly surface: S
  readonly expose: Expose.ExposeMap<S>
  readonly tools?: { readonly [name: string]: Bundle.BespokeTool<Client.Client<S, R>> }
}): Bundle.Sibling => {
  const tools = member.tools
  if (tools === undefined) return { surface: member.surface, expose: member.expose }
  const checked = Object.fromEntries(
    Object.entries(tools).map(([name, tool]): [string, Bundle.BespokeTool<Bundle.Served>] => [
      name,
      {
        ...tool,
        // The client dialled for this key needs at most the caller's services, and every tool call
        // runs with all of them: whatever `R` the tool's client type names is provided.
        handler: (input: unknown, client: Bundle.Served) =>
          Effect.flatMap(Client.narrow(member.surface, client), (typed) => tool.handler(input, typed as never))
      }
    ])
  )
  return { surface: member.surface, expose: member.expose, tools: checked }
}
