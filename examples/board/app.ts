// A small task board served to agents: every member kind, a sibling, bespoke tools, an image answer.
import { Clock, Console, Duration, Effect, Schema } from "effect"
import type { Bundle } from "effect-surface"
import { Client, Expose, Implementation, Resolver, Surface, Tools } from "effect-surface"
import type { McpFace, McpScopes } from "effect-surface/mcp"
import { encodePng } from "./png.ts"
import { promptsOver } from "./prompts.ts"
import * as BoardState from "./state.ts"

// A refusal the procedure declares: its message is the sentence the model reads, its fields (and
// tag) the structured detail a caller reads.
export class TaskNotFound extends Schema.TaggedError<TaskNotFound>()("TaskNotFound", { id: Schema.String }) {
  override get message(): string {
    return `there is no task ${this.id} on the board`
  }
}
export class AlreadyDone extends Schema.TaggedError<AlreadyDone>()("AlreadyDone", { id: Schema.String }) {
  override get message(): string {
    return `task ${this.id} is already done`
  }
}

export const Task = BoardState.Task

/** The board: what an agent may read and do. */
export const Board = Surface.make({
  cells: { focus: Surface.cell(Schema.String, "nothing yet") },
  collections: { tasks: Surface.collection(Schema.String, Task) },
  streams: { activity: Surface.stream(Schema.String) },
  events: { completed: Surface.event(Schema.Struct({ id: Schema.String })) },
  procedures: {
    tasks: {
      add: {
        input: Schema.Struct({ title: Schema.String.annotate({ description: "What needs doing" }) }),
        output: Schema.Struct({ id: Schema.String }),
        // It only adds: hosts are told it overwrites and removes nothing (destructiveHint: false).
        additive: true,
        title: "Add a task",
        description: "Add a task to the board and return its id."
      },
      complete: {
        input: Schema.String.annotate({ description: "The task's id" }),
        output: Task,
        error: Schema.Union([TaskNotFound, AlreadyDone]),
        description: "Mark a task done."
      },
      open: { output: Schema.Array(Schema.String), mutates: false, description: "The ids of the tasks not done yet." }
    },
    board: {
      // Saying the same focus twice changes nothing more (idempotentHint: true).
      focus: { input: Schema.String, idempotent: true, description: "Say what the board is focused on." },
      clear: { description: "Remove every task. Not exposed to agents." }
    }
  }
})

/** A sibling surface: a stopwatch the board carries beside it. */
export const Stopwatch = Surface.make({
  cells: { laps: Surface.cell(Schema.Int, 0) },
  procedures: { watch: { lap: { output: Schema.Int, description: "Record a lap and return the count." } } }
})

// Behind a resource server (AUTH_ISSUER), a token with `board:read` sees the reads and lists, and
// `board:write` also the procedures that change the board; served without one, every caller sees all.
// A host that renders MCP Apps shows each of the board's procedures as a form (`views: true`), its
// tasks, focus and activity live beside it; any other host sees the tools as they are.
const read = { scope: "board:read" } as const
const write = { scope: "board:write" } as const

export const boardExpose = Expose.make(Board, {
  cells: { focus: read },
  collections: { tasks: read },
  streams: { activity: read },
  events: { completed: read },
  procedures: { "tasks.add": write, "tasks.complete": write, "tasks.open": read, "board.focus": write },
  views: true
})

export const stopwatchExpose = Expose.make(Stopwatch, { cells: { laps: read }, procedures: { "watch.lap": write } })

/** The scopes of the tools and prompts the expose map does not name. */
export const boardScopes: McpScopes.Options = {
  tools: { board_progress: "board:read", tasks_require: "board:read", stopwatch_wait: "board:read" },
  prompts: Object.fromEntries(["plan_next", "review_task"].map((name) => [name, "board:read"]))
}

/** The board over its state (in memory unless given one in Redis). */
export const makeBoardWith = (state: BoardState.BoardState) =>
  Implementation.make(Board, {
    cells: { focus: state.focus },
    collections: { tasks: state.tasks },
    streams: { activity: state.activity.frames },
    events: { completed: state.completed },
    procedures: {
      tasks: {
        add: ({ title }) =>
          Effect.gen(function*() {
            const id = `t${yield* state.nextId}`
            const createdAt = new Date(yield* Clock.currentTimeMillis)
            yield* state.setTask(id, { title, done: false, createdAt })
            yield* state.record(`added ${id}: ${title}`)
            yield* Effect.logInfo(`added task ${id}`)
            return { id }
          }),
        complete: (id) =>
          Effect.gen(function*() {
            const task = yield* state.getTask(id)
            if (task._tag === "None") return yield* new TaskNotFound({ id })
            if (task.value.done) return yield* new AlreadyDone({ id })
            const done = { ...task.value, done: true }
            yield* state.setTask(id, done)
            yield* state.record(`completed ${id}`)
            yield* state.complete(id)
            return done
          }),
        open: () =>
          Effect.map(state.tasks.snapshot, (all) => [...all].filter(([, task]) => !task.done).map(([id]) => id))
      },
      board: {
        focus: (text) => Console.log(`focus: ${text}`).pipe(Effect.andThen(state.setFocus(text))),
        clear: () => state.clearTasks
      }
    }
  })

export const makeBoard = Effect.map(BoardState.memory, makeBoardWith)

export const makeStopwatchWith = (state: BoardState.BoardState) =>
  Implementation.make(Stopwatch, { cells: { laps: state.laps }, procedures: { watch: { lap: () => state.lap } } })

export const makeStopwatch = Effect.map(BoardState.memory, makeStopwatchWith)

/** Draw the board's progress as a PNG bar: green for done, grey for open. */
const progressPng = (done: number, total: number) => {
  const width = 200
  const height = 20
  const filled = total === 0 ? 0 : Math.round((done / total) * width)
  return encodePng(width, height, (x) => x < filled ? [46, 160, 67] : [208, 215, 222])
}

/** The bundle's clients, typed by its surfaces: each bespoke tool gets the client of its own surface. */
export type BoardClients = Bundle.Typed<typeof Board, { readonly stopwatch: typeof Stopwatch }>

/** The bundle's clients over a state, as the MCP face dials them; `clients` erased, `typed` as the tools see them. */
export const clientsOver = (state: BoardState.BoardState) => {
  const board = Client.directDispatch(makeBoardWith(state))
  const stopwatch = Client.directDispatch(makeStopwatchWith(state))
  const typed: BoardClients = { core: board, clients: { stopwatch } }
  return {
    board,
    stopwatch,
    typed,
    clients: { core: Client.erase(board), clients: { stopwatch: Client.erase(stopwatch) } }
  }
}

/** The bundle's clients over a board in memory. */
export const makeClients = Effect.map(BoardState.memory, clientsOver)

/** Hand-authored tools at the bundle root, handed every client of the bundle. */
export const rootTools = {
  board_progress: Tools.make({
    description: "A picture of the board's progress: a bar, green for done, grey for open.",
    title: "Board progress",
    mutates: false,
    handler: (_: void, clients: BoardClients) =>
      Effect.map(clients.core.collections.tasks.read, (tasks) => ({
        done: [...tasks.values()].filter((task) => task.done).length,
        total: tasks.size
      })),
    render: ({ done, total }) =>
      Tools.okImage({ data: progressPng(done, total).toString("base64"), mimeType: "image/png" }, {
        done,
        total,
        width: 200,
        height: 20
      })
  }),
  tasks_require: Tools.make({
    description: "Fail with a structured refusal unless the given task is done.",
    input: Schema.Struct({ id: Schema.String }),
    mutates: false,
    handler: ({ id }, clients: BoardClients) =>
      Effect.flatMap(clients.core.collections.tasks.get(id), (task) =>
        task._tag === "Some" && task.value.done
          ? Effect.succeed(`${id} is done`)
          : Effect.fail(
            new Tools.ToolFailure({ message: `${id} is not done yet`, detail: { id, found: task._tag === "Some" } })
          ))
  })
}

/** A sibling's bespoke tool, handed the sibling's own client: a long wait an agent can cancel. */
export const stopwatchTools = {
  wait: Tools.make({
    description: "Wait the given number of seconds, then answer the lap count. Cancellable.",
    input: Schema.Struct({ seconds: Schema.Finite }),
    mutates: false,
    handler: ({ seconds }, stopwatch: Client.Client<typeof Stopwatch>) =>
      Effect.sleep(Duration.seconds(seconds)).pipe(
        Effect.andThen(stopwatch.cells.laps.read),
        Effect.map((laps) => `waited ${seconds}s at lap ${laps}`)
      )
  })
}

/** The stopwatch sibling, its tools typed by its own surface. */
export const stopwatchSibling = Resolver.sibling({ surface: Stopwatch, expose: stopwatchExpose, tools: stopwatchTools })

/** Everything `McpServer` needs to serve the example over a state. */
export const serverOptionsOver = (state: BoardState.BoardState): McpFace.Options<never, never, BoardClients> =>
  optionsFor(clientsOver(state).typed)

/** Everything `McpServer` needs to serve the example, its board in memory. */
export const serverOptions = Effect.map(makeClients, ({ typed }) => optionsFor(typed))

const optionsFor = (typed: BoardClients): McpFace.Options<never, never, BoardClients> => ({
  core: { surface: Board, expose: boardExpose },
  surfaces: { stopwatch: stopwatchSibling },
  tools: rootTools,
  client: Effect.succeed(typed),
  prompts: promptsOver(typed),
  scopes: boardScopes,
  serverInfo: { name: "board", version: "0.1.0", title: "Task board" },
  instructions:
    "A task board. Tasks are resources under surface://collections/tasks; add and complete them with the tasks_* tools."
})
