// The board's prompts: two message templates a person picks in the host, filled from the board as
// it is now. Plain values (the MCP face reads them; typed by `McpPrompts`, nothing loaded), so the
// board's command line, which shares the options, loads no MCP module for them.
import { Effect, Option, Schema } from "effect"
import type { McpPrompts } from "effect-surface/mcp"
import type { BoardClients } from "./app.ts"

const user = (text: string): McpPrompts.Message => ({ role: "user", content: { type: "text", text } })

/** The prompts over the board's clients: `review_task` (its id completed from the board) and `plan_next`. */
export const promptsOver = (typed: BoardClients): McpPrompts.Table => {
  const tasks = typed.core.collections.tasks
  const reviewTask: McpPrompts.Prompt<Schema.Struct<{ readonly id: typeof Schema.String }>> = {
    title: "Review a task",
    description: "Ask for a review of one task of the board: is it clear when it is done, and what comes next?",
    arguments: Schema.Struct({ id: Schema.String.annotate({ description: "The task's id, e.g. t1" }) }),
    complete: {
      id: (typed) => Effect.map(tasks.read, (all) => [...all.keys()].filter((id) => id.startsWith(typed)))
    },
    handler: ({ id }) =>
      Effect.flatMap(tasks.get(id), (found) =>
        Option.match(found, {
          onNone: () => Effect.fail(new Error(`there is no task ${id} on the board`)),
          onSome: (task) =>
            Effect.succeed([
              user(
                `Review task ${id} of the board, "${task.title}" (${task.done ? "done" : "open"}, added ` +
                  `${task.createdAt.toISOString()}). Is it clear when it counts as done? Suggest the next step.`
              )
            ])
        }))
  }
  const planNext: McpPrompts.Prompt<undefined> = {
    title: "Plan what's next",
    description: "Ask which open task of the board to do next, given what the board is focused on.",
    handler: () =>
      Effect.gen(function*() {
        const focus = yield* typed.core.cells.focus.read
        const open = [...(yield* tasks.read)].filter(([, task]) => !task.done)
        const listed = open.length === 0 ? "There are no open tasks." :
          `The open tasks are: ${open.map(([id, task]) => `${id} "${task.title}"`).join(", ")}.`
        return [user(`The board is focused on: ${focus}. ${listed} Which should be done next, and why?`)]
      })
  }
  return { review_task: reviewTask, plan_next: planNext }
}
