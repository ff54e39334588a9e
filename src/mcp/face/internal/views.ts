// The views of a roster as app resources: one fixed `ui://` resource per tool that shows a view,
// kept beside the app's own resources so a view is listed, read, scoped and followed by the same
// path as any other resource. Rebuilt when the app's table moves, or a roster move changes the views.
import * as Effect from "effect/Effect"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as SynchronizedRef from "effect/SynchronizedRef"
import * as Stream from "effect/Stream"
import type * as Scope from "effect/Scope"
import type * as Bundle from "../../../core/Bundle.ts"
import type * as ResolveError from "../../../core/ResolveError.ts"
import type * as Roster from "../../../core/Roster.ts"
import * as Page from "../../views/Page.ts"
import * as Views from "../../views/Views.ts"
import * as AppResources from "../AppResources.ts"

const resourceOf = (linked: Views.Linked): AppResources.Resource => {
  const html = linked.authored?.html
  return {
    name: `${linked.tool} view`,
    title: linked.authored?.title ?? `${String(linked.advertised["title"] ?? linked.tool)} view`,
    mimeType: Views.MIME,
    meta: linked.meta,
    read: Effect.map(
      html === undefined ? Effect.sync(() => Page.toolView(linked.advertised))
        : Effect.isEffect(html) ? html : Effect.succeed(html),
      (text) => ({ text })
    )
  }
}

/** The app's table with these views beside it (an app resource at the same URI wins). */
export const withViews = (table: AppResources.Table, linked: ReadonlyArray<Views.Linked>): AppResources.Table => {
  if (linked.length === 0) return table
  const views = Object.fromEntries(linked.map((view) => [view.uri, resourceOf(view)]))
  return { ...table, resources: { ...views, ...table.resources } }
}

// What a host could tell apart between two sets of views: their URIs, what each page is made from,
// how each is served. A roster move that leaves it as it was is no move of the resource list.
const signatureOf = (linked: ReadonlyArray<Views.Linked>): string =>
  JSON.stringify(linked.map((view) => [view.uri, view.advertised, view.meta, view.authored?.title]))

/**
 * The compiled app resources, views included, and how to replace the app's own table: the views
 * follow the roster for the scope's life (an expose map may ask for one whatever the options say).
 * Each rebuild reads the latest table and roster under one lock, so the last one written
 * reflects both.
 */
export const follow = (
  table: AppResources.Table,
  roster: Roster.Roster,
  options: Views.Options | undefined
): Effect.Effect<
  {
    readonly apps: SubscriptionRef.SubscriptionRef<AppResources.Compiled>
    readonly setTable: (table: AppResources.Table) => Effect.Effect<void, ResolveError.ResolveError>
  },
  ResolveError.ResolveError,
  Scope.Scope
> =>
  Effect.gen(function*() {
    const linkedOf = (resolved: Bundle.Resolved) => Views.linkedOf(resolved, options ?? {})
    // The app's table and what the views were last built as: the roster's changes start with the
    // current resolution, and most moves (a root tool replaced, a surface with no view) leave the
    // views as they were; neither is announced as a move of the resource list.
    const first = linkedOf(yield* roster.current)
    const apps = yield* SubscriptionRef.make(yield* AppResources.compile(withViews(table, first)))
    const built = yield* SynchronizedRef.make({ table, signature: signatureOf(first) })
    // Each rebuild reads the table under the ref's lock: a roster move never writes back a table
    // already replaced.
    const rebuild = (given?: AppResources.Table) =>
      SynchronizedRef.updateEffect(built, (last) =>
        Effect.gen(function*() {
          const next = given ?? last.table
          const linked = linkedOf(yield* roster.current)
          const signature = signatureOf(linked)
          if (given === undefined && signature === last.signature) return last
          yield* SubscriptionRef.set(apps, yield* AppResources.compile(withViews(next, linked)))
          return { table: next, signature }
        }))
    yield* roster.changes.pipe(
      Stream.runForEach(() => Effect.ignore(rebuild())),
      Effect.forkScoped
    )
    return { apps, setTable: rebuild }
  })
