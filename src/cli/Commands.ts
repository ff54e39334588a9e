/**
 * A verb table as an effect/cli command tree: each verb a leaf command under its words, its flags
 * typed from its input, its answer on stdout and its refusal on stderr.
 *
 * Whatever serves the table — a bundle's engine, a guard in front of an upstream — hands over verbs
 * that already know how to run (`run` is that door's one execute path); this module only turns
 * words into subcommands, flags into arguments, and a result into output and an exit status. A
 * refused or failed call prints its one sentence on stderr and fails with `CallFailed`, which the
 * entry point turns into a non-zero exit; so does a mistake in the arguments (`presenter`).
 *
 * @since 0.1.0
 */
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import { CliOutput, Command } from "effect/cli"
import type * as Fields from "../core/Fields.ts"
import type * as Json from "../core/Json.ts"
import * as Progress from "../core/Progress.ts"
import * as ToolResult from "../core/ToolResult.ts"
import * as CliFlags from "./Flags.ts"

/**
 * One verb of a table: the words that reach it (`["tasks", "add"]`), what `--help` says of it, its
 * input's fields, and how it runs.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Fields } from "effect-surface"
 * import * as Tools from "effect-surface/tools"
 * import type { CliCommands } from "effect-surface/cli"
 *
 * const add: CliCommands.Verb = {
 *   words: ["tasks", "add"],
 *   description: "Add a task.",
 *   input: Fields.fromJsonSchema({ type: "object", properties: { title: { type: "string" } }, required: ["title"] }),
 *   run: (args) => Effect.succeed(Tools.ok(args))
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Verb<E = never, R = never> {
  readonly words: ReadonlyArray<string>
  readonly description: string
  readonly input: Fields.Field
  readonly run: (args: Json.Json) => Effect.Effect<ToolResult.ToolResult, E, R>
}

/**
 * A call that answered with an error: its sentence was printed on stderr, and the process should
 * exit non-zero.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { CliCommands } from "effect-surface/cli"
 * declare const program: Effect.Effect<void, CliCommands.CallFailed>
 * const exitCode = program.pipe(Effect.as(0), Effect.catchTag("CallFailed", () => Effect.succeed(1)))
 * ```
 *
 * @since 0.1.0
 */
export class CallFailed extends Data.TaggedError("CallFailed")<{ readonly message: string }> {}

/**
 * A table whose words do not make a tree: a verb's words are another's group (`tasks` and
 * `tasks add`), two verbs have the same words, or a verb's flags clash.
 *
 * @example
 * ```ts
 * import { CliCommands } from "effect-surface/cli"
 * new CliCommands.VerbClash({ words: "tasks", reason: "it is a verb and a group of verbs" }).message
 * // 'the command "tasks" cannot be built: it is a verb and a group of verbs'
 * ```
 *
 * @since 0.1.0
 */
export class VerbClash extends Data.TaggedError("VerbClash")<{ readonly words: string; readonly reason: string }> {
  override get message(): string {
    return `the command "${this.words}" cannot be built: ${this.reason}`
  }
}

const blockText = (block: ToolResult.ToolContent): string => {
  switch (block.type) {
    case "text":
      return block.text
    case "image":
    case "audio":
      return `(${block.mimeType} ${block.type}, ${block.data.length} base64 characters)`
    case "resource":
      return "text" in block.resource && typeof block.resource.text === "string" ? block.resource.text
        : `(resource ${block.resource.uri})`
  }
}

/**
 * What a result prints, for a person: the answer's value (a string as itself, anything else as its
 * JSON, nothing for `null`), after any blocks beside it — prose as written, a picture or a sound as a
 * line saying what it is — one per line. The structured arm's JSON text, which only repeats the
 * value, is not printed again. A refusal prints its sentence.
 *
 * @example
 * ```ts
 * import { CliCommands } from "effect-surface/cli"
 * CliCommands.render({ content: [{ type: "text", text: '{"id":"t1"}' }], structuredContent: { id: "t1" } }) // '{"id":"t1"}'
 * CliCommands.render({ content: [{ type: "text", text: '{"value":"exported"}' }], structuredContent: { value: "exported" } }) // 'exported'
 * ```
 *
 * @since 0.1.0
 */
export const render = (result: ToolResult.ToolResult): string => {
  if (result.isError === true) return result.content.map(blockText).join("\n")
  const { blocks, value } = ToolResult.readable(result)
  const shown = value === undefined || value === null ? [] : [typeof value === "string" ? value : JSON.stringify(value)]
  return [...blocks.map(blockText), ...shown].join("\n")
}

const write = (sink: ReturnType<Stdio.Stdio["stdout"]>, text: string) =>
  Stream.run(Stream.make(`${text}\n`), sink).pipe(Effect.orDie)

/**
 * Print a result — its answer on stdout, or its refusal's sentence on stderr and fail with
 * `CallFailed`.
 *
 * @example
 * ```ts
 * import { CliCommands } from "effect-surface/cli"
 * const printed = CliCommands.report({ content: [{ type: "text", text: "done" }] }) // Effect<void, CallFailed, Stdio>
 * ```
 *
 * @since 0.1.0
 */
export const report = (result: ToolResult.ToolResult): Effect.Effect<void, CallFailed, Stdio.Stdio> =>
  Effect.flatMap(Effect.service(Stdio.Stdio), (stdio) => {
    const text = render(result)
    if (result.isError === true)
      return Effect.andThen(write(stdio.stderr(), text), Effect.fail(new CallFailed({ message: text })))
    // An answer of nothing prints nothing, not an empty line.
    return text === "" ? Effect.void : write(stdio.stdout(), text)
  })

const oneLine = (text: string): string =>
  text.split("\n").map((line) => line.trim()).filter((line) => line !== "").join(" ")

/**
 * How the parser's own output is told: help (asked for, or shown for a group named without a verb)
 * on stdout, as any answer is; a mistake in the arguments as one sentence on stderr, naming where
 * the usage is rather than printing it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { CliOutput } from "effect/cli"
 * import { CliCommands } from "effect-surface/cli"
 * declare const program: Effect.Effect<void>
 * const told = program.pipe(Effect.provideService(CliOutput.Presenter, CliCommands.presenter))
 * ```
 *
 * @since 0.1.0
 */
export const presenter: CliOutput.Presenter = {
  present: (event) => {
    if (event._tag !== "InvalidInvocation") return CliOutput.defaultPresenter.present(event)
    const what = event.errors.map((error) => oneLine(error.message)).join("; ")
    return Console.error(`${event.commandPath[0] ?? ""}: ${what} (see ${event.commandPath.join(" ")} --help)`)
  }
}

/**
 * Progress as a command line shows it while a call runs: each report a line on `stdio`'s stderr
 * (stdout carries the answer alone), its count and message. Every verb's call has it.
 *
 * @example
 * ```ts
 * import { Effect, Stdio } from "effect"
 * import { Progress } from "effect-surface"
 * import { CliCommands } from "effect-surface/cli"
 *
 * declare const job: Effect.Effect<string, never, Progress.Progress>
 * const shown = Effect.flatMap(Effect.service(Stdio.Stdio), (stdio) =>
 *   job.pipe(Effect.provideService(Progress.Progress, CliCommands.progress(stdio)))) // "… 1/3 fetched" on stderr
 * ```
 *
 * @since 0.1.0
 */
export const progress = (stdio: Stdio.Stdio): Progress.Progress["Service"] => ({
  token: undefined,
  report: (update) => {
    const count = update.total === undefined ? `${update.progress}` : `${update.progress}/${update.total}`
    return write(stdio.stderr(), update.message === undefined ? `… ${count}` : `… ${count} ${update.message}`)
  }
})

// What a handler prints goes to stderr while a call runs: stdout carries the answer alone.
const toStderr: Console.Console = {
  ...globalThis.console,
  log: (...args) => globalThis.console.error(...args),
  info: (...args) => globalThis.console.error(...args),
  debug: (...args) => globalThis.console.error(...args),
  table: (...args) => globalThis.console.error(...args)
}

// `any` input: a command's parsed input is contravariant, and each leaf's differs.
type Built<E, R> = Command.Command<string, any, {}, E | CallFailed, Exclude<R, Progress.Progress> | Stdio.Stdio>

const leafCommand = <E, R>(name: string, verb: Verb<E, R>): Result.Result<Built<E, R>, VerbClash> =>
  Result.match(CliFlags.leaves(verb.input), {
    onFailure: (clash) => Result.fail(new VerbClash({ words: verb.words.join(" "), reason: clash.message })),
    onSuccess: (leaves) =>
      Result.succeed(
        Command.make(name, CliFlags.config(leaves), (parsed) =>
          Effect.flatMap(Effect.service(Stdio.Stdio), (stdio) =>
            verb.run(CliFlags.args(leaves, parsed)).pipe(
              Effect.provideService(Console.Console, toStderr),
              Effect.provideService(Progress.Progress, progress(stdio)),
              Effect.flatMap(report)
            ))).pipe(
            Command.withDescription(verb.description)
          )
      )
  })

interface Node<E, R> {
  verb?: Verb<E, R>
  readonly children: Map<string, Node<E, R>>
}

const insert = <E, R>(root: Node<E, R>, verb: Verb<E, R>): VerbClash | undefined => {
  let node = root
  for (const word of verb.words) {
    const next = node.children.get(word) ?? { children: new Map() }
    node.children.set(word, next)
    node = next
  }
  if (node.verb !== undefined)
    return new VerbClash({ words: verb.words.join(" "), reason: "two verbs have these words" })
  node.verb = verb
  return undefined
}

const build = <E, R>(
  name: string,
  node: Node<E, R>,
  path: ReadonlyArray<string>
): Result.Result<Built<E, R>, VerbClash> => {
  if (node.verb !== undefined) {
    if (node.children.size > 0)
      return Result.fail(new VerbClash({ words: path.join(" "), reason: "it is a verb and a group of verbs" }))
    return leafCommand(name, node.verb)
  }
  const children: Array<Built<E, R>> = []
  for (const [word, child] of node.children) {
    const built = build(word, child, [...path, word])
    if (Result.isFailure(built)) return built
    children.push(built.success)
  }
  // A group says what it holds, so `--help` one level up reads as a table of contents.
  return Result.succeed(
    Command.make(name).pipe(
      Command.withSubcommands(children),
      Command.withDescription([...node.children.keys()].join(", "))
    )
  )
}

/**
 * The command tree of a verb table, named `name` at its root: each verb a leaf under its words,
 * words shared by several verbs a group.
 *
 * @example
 * ```ts
 * import { Effect, Result } from "effect"
 * import { Command } from "effect/cli"
 * import * as NodeServices from "@effect/platform-node/NodeServices"
 * import { CliCommands } from "effect-surface/cli"
 *
 * declare const add: CliCommands.Verb
 * const board = Result.getOrThrow(CliCommands.tree("board", [add]))
 * const program = Command.run(board, { version: "1.0.0" }).pipe(Effect.provide(NodeServices.layer))
 * ```
 *
 * @since 0.1.0
 */
export const tree = <E, R>(name: string, verbs: ReadonlyArray<Verb<E, R>>): Result.Result<Built<E, R>, VerbClash> => {
  const root: Node<E, R> = { children: new Map() }
  for (const verb of verbs) {
    const clash = insert(root, verb)
    if (clash !== undefined) return Result.fail(clash)
  }
  return build(name, root, [])
}
