// A small surface with every member kind, shared by the surface tests.
import { Deferred, Effect, PubSub, Ref, Schema, Stream } from "effect"
import * as Implementation from "../../src/surface/Implementation.ts"
import * as Log from "../../src/surface/Log.ts"
import * as Store from "../../src/surface/Store.ts"
import * as Surface from "../../src/surface/Surface.ts"

export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { id: Schema.String }) {}
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", { id: Schema.String }) {}

export const Todo = Schema.Struct({ title: Schema.String, done: Schema.Boolean })

export const Todos = Surface.make({
  cells: { filter: Surface.cell(Schema.Literals(["all", "open", "done"]), "all") },
  collections: { todos: Surface.collection(Schema.String, Todo) },
  streams: { log: Surface.stream(Schema.String) },
  events: { saved: Surface.event(Schema.Struct({ id: Schema.String })) },
  procedures: {
    todo: {
      add: {
        input: Schema.Struct({ id: Schema.String, title: Schema.String }),
        error: Conflict,
        description: "Add a todo"
      },
      complete: { input: Schema.String, output: Todo, error: Schema.Union([NotFound, Conflict]) },
      count: { output: Schema.Int, mutates: false },
      wait: { output: Schema.String }
    }
  }
})

/** Builds the implementation, recording what reaches it so tests can observe interruption. */
export const makeTodos = Effect.gen(function*() {
  const cells = yield* Implementation.cells(Todos)
  const todos = yield* Store.make<string, typeof Todo.Type>()
  const log = yield* Log.make<string>({ capacity: 3 })
  const saved = yield* PubSub.unbounded<{ readonly id: string }>()
  const waitStarted = yield* Deferred.make<void>()
  const waitInterrupted = yield* Ref.make(false)
  const implemented = Implementation.make(Todos, {
    cells,
    collections: { todos },
    streams: { log: log.frames },
    events: { saved: Stream.fromPubSub(saved) },
    procedures: {
      todo: {
        add: ({ id, title }) =>
          Effect.gen(function*() {
            if ((yield* todos.get(id))._tag === "Some") return yield* new Conflict({ id })
            yield* todos.set(id, { title, done: false })
            yield* log.append(`added ${id}`)
            yield* PubSub.publish(saved, { id })
          }),
        complete: (id) =>
          Effect.gen(function*() {
            const current = yield* todos.get(id)
            if (current._tag === "None") return yield* new NotFound({ id })
            if (current.value.done) return yield* new Conflict({ id })
            const next = { ...current.value, done: true }
            yield* todos.set(id, next)
            return next
          }),
        count: () => Effect.map(todos.snapshot, (items) => items.size),
        wait: () =>
          Deferred.succeed(waitStarted, undefined).pipe(
            Effect.andThen(Effect.never),
            Effect.onInterrupt(() => Ref.set(waitInterrupted, true))
          )
      }
    }
  })
  return { implemented, cells, todos, log, saved, waitStarted, waitInterrupted }
})
