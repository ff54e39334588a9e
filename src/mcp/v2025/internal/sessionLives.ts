/**
 * The lives of a session table's sessions, with no fiber each: a session's life is a scope of its
 * own, which the session is connected in and which whatever ends the session closes — the table
 * ending it, its transport closing, the table itself closing — running what the session owned and,
 * last, what the table asked to run when it goes. An idle session is then a scope with its
 * finalizers, not a fiber parked on its end holding the frames of everything around that wait.
 *
 * The table's scope closing ends every life still here side by side, as ending every session at
 * once does (`endAll`), so shutting down many sessions takes no longer than the slowest one; a life
 * is a scope of its own, not one forked from another, so it holds no finalizer in a parent.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"

/** One table's session lives, by session id. */
export interface Lives {
  /**
   * A new life for session `id`, whose last finalizer is `last` (built when the life ends: an idle
   * session holds no Effect of it); a life of the same id still here is ended first. `undefined` once
   * the table has closed: a session begun then never connects.
   */
  readonly begin: (id: string, last: () => Effect.Effect<void>) => Effect.Effect<Scope.Closeable | undefined>
  /**
   * End session `id`'s life now, its finalizers run before this completes; given `life`, only that
   * one (a newer life of the same session stays).
   */
  readonly end: (id: string, life?: Scope.Closeable) => Effect.Effect<void>
  /** Whether `life` is still session `id`'s, not ended. */
  readonly live: (id: string, life: Scope.Closeable) => boolean
  /** End every life, side by side. */
  readonly endAll: Effect.Effect<void>
}

/** The lives of a table made in the current scope; closing it ends every life. */
export const make: Effect.Effect<Lives, never, Scope.Scope> = Effect.gen(function*() {
  const lives = new Map<string, Scope.Closeable>()
  let closed = false
  const close = (id: string, life: Scope.Closeable): Effect.Effect<void> =>
    Effect.suspend(() => {
      if (lives.get(id) === life) lives.delete(id)
      return Scope.close(life, Exit.void)
    })
  const end = (id: string, life?: Scope.Closeable): Effect.Effect<void> =>
    Effect.suspend(() => {
      const current = lives.get(id)
      return current === undefined || (life !== undefined && life !== current) ? Effect.void : close(id, current)
    })
  const endAll = Effect.suspend(() =>
    Effect.forEach(Array.from(lives), ([id, life]) => close(id, life), { concurrency: "unbounded", discard: true })
  )
  yield* Effect.addFinalizer(() =>
    Effect.suspend(() => {
      closed = true
      return endAll
    })
  )
  return {
    begin: (id, last) =>
      Effect.suspend(() => {
        if (closed) return Effect.succeed(undefined)
        const previous = lives.get(id)
        const life = Scope.makeUnsafe("sequential")
        lives.set(id, life)
        // The first finalizer runs last: after everything the session owned has ended.
        return Scope.addFinalizerExit(life, last).pipe(
          Effect.andThen(previous === undefined ? Effect.void : Scope.close(previous, Exit.void)),
          Effect.as(life)
        )
      }),
    end,
    live: (id, life) => lives.get(id) === life && life.state._tag !== "Closed",
    endAll
  }
})
