/**
 * What the console shows of a face: its lists as an agent is shown them, and the cells' values.
 *
 * The roster view is rebuilt from the face's own list answers (the same JSON a `tools/list` returns)
 * each time the roster, the prompts or the app's resources move, so the page can never show a list an
 * agent would not be given. Beside them: the names retired, and the declared members the expose map
 * keeps from agents. Each exposed cell is followed (one watch per URI, through the face) so its value
 * on the page is the current one.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FiberMap from "effect/FiberMap"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import type * as Bundle from "../../../core/Bundle.ts"
import type * as Identity from "../../../core/Identity.ts"
import type * as Json from "../../../core/Json.ts"
import type * as Face from "../../face/Face.ts"
import type * as State from "./state.ts"

const groups = ["cells", "collections", "streams", "events"] as const

/** The declared members of one surface its expose map does not let through, named as the page shows them. */
export const hiddenOf = (member: Bundle.Member, key: string | undefined): ReadonlyArray<string> => {
  const prefix = key === undefined ? "" : `${key}/`
  const expose = member.expose
  const hidden: Array<string> = []
  for (const group of groups) {
    for (const name of Object.keys(member.surface[group])) {
      const entry = expose[group]?.[name]
      if (entry === undefined || entry === false) hidden.push(`${prefix}${group}.${name}`)
    }
  }
  for (const [ns, verbs] of Object.entries(member.surface.procedures)) {
    for (const verb of Object.keys(verbs)) {
      const entry = expose.procedures?.[`${ns}.${verb}`]
      if (entry === undefined || entry === false) hidden.push(`${prefix}procedures.${ns}.${verb}`)
    }
  }
  return hidden
}

const hiddenInBundle = (bundle: Bundle.Bundle): ReadonlyArray<string> => [
  ...(bundle.core === undefined ? [] : hiddenOf(bundle.core, undefined)),
  ...Object.entries(bundle.surfaces ?? {}).flatMap(([key, sibling]) => hiddenOf(sibling, key))
]

/** The roster as the page shows it, read through the face's own list answers. */
export const view = (face: Face.Face): Effect.Effect<State.RosterView> =>
  Effect.gen(function*() {
    const snapshot = yield* face.roster.snapshot
    const { resources, templates, prompts } = yield* Effect.all({
      resources: face.listResources,
      templates: face.listResourceTemplates,
      prompts: face.listPrompts
    })
    const toolScopes: Record<string, string> = {}
    for (const tool of snapshot.resolved.advertisedTools) {
      const name = tool["name"]
      const need = typeof name === "string" ? yield* face.needs("tools/call", { name }) : undefined
      if (need !== undefined && typeof name === "string") toolScopes[name] = need.scope
    }
    return {
      generation: snapshot.generation,
      toolScopes,
      tools: snapshot.resolved.advertisedTools,
      resources,
      templates,
      prompts,
      tombstones: Array.from(snapshot.tombstones.values(), (t) => ({
        name: t.name,
        reason: `${t.kind} retired from ${t.sibling === "" ? "the core" : t.sibling}: ${t.reason}`
      })),
      hidden: hiddenInBundle(snapshot.resolved.bundle)
    }
  })

const cellPrefix = "surface://cells/"

const textOf = (contents: ReadonlyArray<{ readonly text?: string }>) => contents.map((c) => c.text ?? "").join("")

// Follow one cell: its value now, and again at each change, until the fiber is interrupted.
const followCell = (face: Face.Face, state: State.State, uri: string) => {
  const read = face.readResource(uri).pipe(
    Effect.flatMap((contents) => state.apply({ _tag: "cell", uri, text: textOf(contents as never) })),
    Effect.ignore
  )
  return Effect.ignore(face.watch(uri, read, read))
}

const named = (items: ReadonlyArray<Json.JsonObject>, key: string) =>
  items.flatMap((item) => typeof item[key] === "string" ? [item[key]] : [])

/** What each scope set seen calling is listed, through the face's own narrowing. */
export const views = (
  face: Face.Face,
  seen: ReadonlyMap<string, Identity.Principal>
): Effect.Effect<ReadonlyArray<State.ScopeView>> =>
  Effect.forEach(
    [...seen].sort(([a], [b]) => a.localeCompare(b)),
    ([scopes, principal]) =>
      Effect.map(face.view(principal), (view): State.ScopeView => ({
        scopes,
        tools: named(view.tools, "name"),
        resources: named(view.resources, "uri"),
        templates: named(view.templates, "uriTemplate"),
        prompts: named(view.prompts, "name")
      }))
  )

/** Keep the roster view, the scope sets' views and the cells' values current until the scope closes. */
export const follow = (
  face: Face.Face,
  state: State.State,
  cells: FiberMap.FiberMap<string>,
  seen: Ref.Ref<ReadonlyMap<string, Identity.Principal>>
) => {
  const moved = Stream.mergeAll([
    Stream.map(face.roster.changes, () => undefined),
    Stream.map(face.prompts.changes, () => undefined),
    Stream.map(face.appResources.changes, () => undefined)
  ], { concurrency: "unbounded" })
  return Stream.runForEach(moved, () =>
    Effect.gen(function*() {
      const roster = yield* view(face)
      yield* state.apply({ _tag: "roster", roster })
      yield* state.apply({ _tag: "views", views: yield* views(face, yield* Ref.get(seen)) })
      const served = named(roster.resources, "uri").filter((uri) => uri.startsWith(cellPrefix))
      // A cell no longer served leaves the page (its follow has ended with it).
      yield* state.apply({ _tag: "cellsServed", uris: served })
      for (const uri of served) yield* FiberMap.run(cells, uri, followCell(face, state, uri), { onlyIfMissing: true })
    }))
}
