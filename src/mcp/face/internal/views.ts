// The views of a roster as app resources: one fixed `ui://` resource per tool that shows a view,
// kept beside the app's own resources so a view is listed, read, scoped and followed by the same
// path as any other resource. Rebuilt when the roster or the app's table moves.
import * as Effect from "effect/Effect"
import * as Semaphore from "effect/Semaphore"
import * as SubscriptionRef from "effect/SubscriptionRef"
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

/** The app's table with the views of `resolved` beside it (an app resource at the same URI wins). */
export const withViews = (
  table: AppResources.Table,
  resolved: Bundle.Resolved,
  options: Views.Options | undefined
): AppResources.Table => {
  if (options === undefined) return table
  const views = Object.fromEntries(Views.linkedOf(resolved, options).map((linked) => [linked.uri, resourceOf(linked)]))
  return { ...table, resources: { ...views, ...table.resources } }
}

/**
 * The compiled app resources, views included, and how to replace the app's own table: the views
 * follow the roster for the scope's life. Each rebuild reads the latest table and roster under one
 * permit, so the last one written reflects both.
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
    let current = table
    // The resolution the views were last built from: the roster's changes start with the current
    // one, which must not be announced as a move of the resource list.
    let builtFrom = yield* roster.current
    const apps = yield* SubscriptionRef.make(yield* AppResources.compile(withViews(table, builtFrom, options)))
    const permit = yield* Semaphore.make(1)
    // The table is read under the permit: a roster move never writes back a table already replaced.
    const rebuild = (given?: AppResources.Table) =>
      permit.withPermits(1)(Effect.gen(function*() {
        const next = given ?? current
        const resolved = yield* roster.current
        if (given === undefined && resolved === builtFrom) return
        const compiled = yield* AppResources.compile(withViews(next, resolved, options))
        current = next
        builtFrom = resolved
        yield* SubscriptionRef.set(apps, compiled)
      }))
    if (options !== undefined) {
      yield* roster.changes.pipe(
        Stream.runForEach(() => Effect.ignore(rebuild())),
        Effect.forkScoped
      )
    }
    return { apps, setTable: rebuild }
  })
