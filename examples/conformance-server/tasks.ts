// The conformance suite's task tools (the `io.modelcontextprotocol/tasks` extension's scenarios):
// a call that never becomes a task, one that may, and some that must — failing as a tool, failing
// as a protocol, asking once begun, asking twice at once, and asking before they begin.
import { Ask, Caller, Tools } from "effect-surface"
import { Effect, Schema } from "effect"

const say = (text: string) => Tools.content([Tools.text(text)])

const accepted = <A>(answer: { readonly _tag: string; readonly content?: A }) =>
  answer._tag === "Accept" ? answer.content : undefined

export const taskTools = {
  greet: Tools.make({
    description: "Greets by name, at once: never a task.",
    input: Schema.Struct({ name: Schema.String }),
    mutates: false,
    handler: ({ name }) => Effect.succeed(`Hello, ${name}!`),
    render: say
  }),
  slow_compute: Tools.make({
    description: "Computes for the seconds asked: a task for a client that follows tasks, if it takes a while.",
    input: Schema.Struct({ seconds: Schema.optionalKey(Schema.Int), label: Schema.optionalKey(Schema.String) }),
    mutates: false,
    task: "optional",
    handler: ({ label = "unnamed", seconds = 3 }) =>
      Effect.as(
        Effect.sleep(`${Math.max(0, seconds)} seconds`),
        `Computation "${label}" completed after ${seconds} seconds. Result: 42.`
      ),
    render: say
  }),
  failing_job: Tools.make({
    description: "Runs only as a task, and fails as a tool after a second.",
    mutates: false,
    task: "required",
    handler: () => Effect.andThen(Effect.sleep("1 second"), Effect.fail(new Error("simulated failure: job crashed")))
  }),
  protocol_error_job: Tools.make({
    description: "Runs only as a task, and needs the client's roots, which a client may not offer: then it fails.",
    mutates: false,
    task: "required",
    handler: () =>
      Effect.andThen(Effect.sleep("500 millis"), Effect.map(Ask.roots(), (roots) => `${roots.length} root(s)`)),
    render: say
  }),
  confirm_delete: Tools.make({
    description: "Runs only as a task, and asks before it deletes the file.",
    input: Schema.Struct({ filename: Schema.optionalKey(Schema.String) }),
    mutates: true,
    task: "required",
    handler: ({ filename = "file.txt" }) =>
      Caller.beginTask.pipe(
        Effect.andThen(
          Ask.elicit(`Delete '${filename}'?`, Schema.Struct({ confirm: Schema.Boolean }), { key: "confirm" })
        ),
        Effect.map((answer) => accepted(answer)?.confirm === true ? `deleted '${filename}'` : `kept '${filename}'`)
      ),
    render: say
  }),
  multi_input: Tools.make({
    description: "Runs only as a task, and asks two questions at once.",
    mutates: false,
    task: "required",
    handler: () =>
      Caller.beginTask.pipe(
        Effect.andThen(Effect.all([
          Ask.elicit("What is your name?", Schema.Struct({ name: Schema.String }), { key: "name" }),
          Ask.elicit("Confirm?", Schema.Struct({ confirm: Schema.Boolean }), { key: "confirm" })
        ], { concurrency: 2 })),
        Effect.map(([name, confirm]) =>
          `name="${accepted(name)?.name ?? ""}" confirmed=${accepted(confirm)?.confirm === true}`
        )
      ),
    render: say
  }),
  test_tool_with_task: Tools.make({
    description: "Asks the user's name on the request, then carries on as a task.",
    mutates: false,
    task: "required",
    handler: () =>
      Ask.elicit("What is your name?", Schema.Struct({ name: Schema.String }), { key: "user_name" }).pipe(
        Effect.tap(() => Caller.beginTask),
        Effect.tap(() => Effect.sleep("50 millis")),
        Effect.map((answer) => `Hello, ${accepted(answer)?.name ?? "stranger"}! (computed in task)`)
      ),
    render: say
  })
}
