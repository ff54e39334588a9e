/**
 * A remote call that goes on as a task (the `io.modelcontextprotocol/tasks` extension of
 * 2026-07-28), followed to its result.
 *
 * A server may answer a long call with a task instead of a result. The toolset then does what its
 * caller would otherwise have to: it polls `tasks/get` as often as the server advises (within
 * bounds), answers the task's questions through the toolset's handlers with `tasks/update`, tells
 * each new status message as progress to whoever called (a command line shows it), and hands back
 * the call's result once the task completes — all under the call's own deadline. A call abandoned
 * (its deadline passed, its caller interrupted) cancels the task, so nothing runs on for nobody.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as SchemaIssue from "effect/SchemaIssue"
import * as Progress from "../../../core/Progress.ts"
import * as Wire from "../../../protocol/v2026/Messages.ts"
import type * as Questions from "../questions.ts"
import * as Remote from "../remote.ts"
import type * as Requests from "./requests.ts"

/** The capability a client declares to be answered with tasks. */
export const extension = "io.modelcontextprotocol/tasks"

const Status = Schema.Literals(["working", "input_required", "completed", "failed", "cancelled"])

const Task = Schema.Struct({
  taskId: Schema.String,
  status: Status,
  statusMessage: Schema.optionalKey(Schema.String),
  pollIntervalMs: Schema.optionalKey(Schema.Finite),
  result: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  error: Schema.optionalKey(Schema.Struct({ code: Schema.Finite, message: Schema.String })),
  inputRequests: Schema.optionalKey(
    Schema.Record(
      Schema.String,
      Schema.Struct({ method: Schema.String, params: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)) })
    )
  )
})

type Task = typeof Task.Type

const decodeTask = Schema.decodeUnknownResult(Task)

// However the server advises, polls stay between these: never a busy loop, never a long sleep.
const FLOOR_MS = 50
const CEILING_MS = 5_000

const intervalOf = (task: Task) => Duration.millis(Math.min(CEILING_MS, Math.max(FLOOR_MS, task.pollIntervalMs ?? 500)))

const malformed = (what: string, issue: SchemaIssue.Issue) =>
  new Remote.Rejected({ code: -32603, reason: `the server's ${what} is not a task: ${Wire.sentence(issue, [])}` })

const read = (what: string, result: unknown): Effect.Effect<Task, Remote.Rejected> =>
  Result.match(decodeTask(result), {
    onFailure: (issue) => Effect.fail(malformed(what, issue.issue)),
    onSuccess: Effect.succeed
  })

/**
 * Follow the task a call was answered with to the call's result, through `send` (the connection's
 * sender) and `answer` (the toolset's handlers).
 */
export const follow = (
  send: Requests.Send,
  answer: (question: Questions.Question) => Effect.Effect<Requests.Json, Questions.Unanswered>
) =>
(created: Requests.Json): Effect.Effect<Requests.Json, Remote.Failure | Questions.Unanswered> =>
  Effect.gen(function*() {
    const progress = Option.getOrElse(yield* Effect.serviceOption(Progress.Progress), () => Progress.none)
    let task = yield* read("answer", created)
    const taskId = task.taskId
    let told: string | undefined
    let reports = 0
    let settled = false
    const abandon = send("tasks/cancel", { taskId }).pipe(Effect.timeout("2 seconds"), Effect.ignore)
    return yield* Effect.gen(function*() {
      for (;;) {
        if (task.statusMessage !== undefined && task.statusMessage !== told) {
          told = task.statusMessage
          yield* progress.report({ progress: ++reports, message: told })
        }
        settled = task.status === "completed" || task.status === "failed" || task.status === "cancelled"
        switch (task.status) {
          case "completed":
            return task.result ?? (yield* Effect.fail(
              new Remote.Rejected({ code: -32603, reason: `task ${taskId} completed without a result` })
            ))
          case "failed":
            return yield* Effect.fail(
              new Remote.Rejected({
                code: task.error?.code ?? -32603,
                reason: task.error?.message ?? task.statusMessage ?? `task ${taskId} failed`
              })
            )
          case "cancelled":
            return yield* Effect.fail(
              new Remote.Rejected({ code: -32603, reason: task.statusMessage ?? `task ${taskId} was cancelled` })
            )
          case "input_required": {
            const answers = yield* Effect.forEach(
              Object.entries(task.inputRequests ?? {}),
              ([key, question]) => Effect.map(answer(question), (answered) => [key, answered] as const),
              { concurrency: "unbounded" }
            )
            if (answers.length > 0) {
              yield* send("tasks/update", { taskId, inputResponses: Object.fromEntries(answers) })
              task = yield* read("task", yield* send("tasks/get", { taskId }))
              continue
            }
            break
          }
          case "working":
            break
        }
        yield* Effect.sleep(intervalOf(task))
        task = yield* read("task", yield* send("tasks/get", { taskId }))
      }
    }).pipe(
      // Given up on before it ended (a deadline, an interrupt, a question left unanswered, the server
      // unreachable): the task is cancelled rather than left to run for nobody.
      Effect.onExit((exit) => Exit.isSuccess(exit) || settled ? Effect.void : abandon)
    )
  })
