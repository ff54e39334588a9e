/**
 * A bundle as a command line: the verb table an MCP host sees, as argv, through the same engine.
 *
 * Every tool of a bundle is a verb whose words are where it came from — a core procedure
 * `tasks.add` is `tasks add`, a sibling's procedure `<sibling> <ns> <verb>`, a sibling's own tool
 * `<sibling> <tool>`, a root tool its own word — kebab-cased for a shell. A call runs through
 * `Engine.call`, the path an MCP `tools/call` takes, so the decoding, the refusal and its wording
 * are the ones an agent gets. Nothing here loads the MCP SDK: `--help` costs the table, not a
 * server.
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import type * as Scope from "effect/Scope"
import { CliError, CliOutput, Command } from "effect/cli"
import type * as Bundle from "../core/Bundle.ts"
import * as Caller from "../core/Caller.ts"
import * as Engine from "../core/Engine.ts"
import * as Fields from "../core/Fields.ts"
import * as Progress from "../core/Progress.ts"
import type * as ResolveError from "../core/ResolveError.ts"
import * as Roster from "../core/Roster.ts"
import { messageOf } from "../core/ToolFailure.ts"
import * as ToolResult from "../core/ToolResult.ts"
import * as CliCommands from "./Commands.ts"
import { kebab } from "./Flags.ts"

/**
 * A bundle served as a command line: the bundle and its client factory (as for any face), the
 * program's name and version.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Bundle, Surface } from "effect-surface"
 * import type { Cli } from "effect-surface/cli"
 *
 * declare const Board: Surface.Spec
 * declare const clients: Bundle.Clients
 * const options: Cli.Options = { name: "board", version: "1.0.0", core: { surface: Board, expose: {} }, client: Effect.succeed(clients) }
 * ```
 *
 * @since 0.1.0
 */
export interface Options<E = never, R = never, C extends Bundle.Clients = Bundle.Clients>
  extends Engine.BundleOptions<E, R, C>
{
  readonly name: string
  readonly version?: string | undefined
}

/**
 * The words a tool is reached by on a command line, read off where it came from, kebab-cased.
 *
 * @example
 * ```ts
 * import { Cli } from "effect-surface/cli"
 * Cli.wordsOf({ _tag: "Procedure", sibling: undefined, ns: "tasks", verb: "add" }) // ["tasks", "add"]
 * Cli.wordsOf({ _tag: "RootTool", name: "board_progress" }) // ["board-progress"]
 * ```
 *
 * @since 0.1.0
 */
export const wordsOf = (origin: Bundle.Origin): ReadonlyArray<string> => {
  switch (origin._tag) {
    case "Procedure":
      return [...(origin.sibling === undefined ? [] : [origin.sibling]), origin.ns, origin.verb].map(kebab)
    case "SiblingTool":
      return [origin.sibling, origin.name].map(kebab)
    case "RootTool":
      return [kebab(origin.name)]
  }
}

// What a handler may ask of a shell: no questions; its progress is the command's (on stderr).
const atTheShell = Context.omit(Progress.Progress)(Caller.none)

// A name the roster no longer serves is answered as a refusal, like any other.
const callThrough = (engine: Engine.Engine["Service"], name: string) => (args: unknown) =>
  engine.call(name, args).pipe(
    Effect.catch((refused) => Effect.succeed(ToolResult.failure(refused))),
    Effect.provideContext(atTheShell)
  )

/**
 * The verbs of the bundle the engine serves now, each calling through `Engine.call`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Cli } from "effect-surface/cli"
 * const words = Effect.map(Cli.verbs, (verbs) => verbs.map((verb) => verb.words.join(" "))) // ["tasks add", …]
 * ```
 *
 * @since 0.1.0
 */
export const verbs: Effect.Effect<
  ReadonlyArray<CliCommands.Verb<never, Progress.Progress>>,
  never,
  Engine.Engine | Roster.Roster
> = Effect.gen(
  function*() {
    const engine = yield* Engine.Engine
    const resolved = yield* (yield* Roster.Roster).current
    return resolved.tools.map((tool): CliCommands.Verb<never, Progress.Progress> => ({
      words: wordsOf(tool.origin),
      description: tool.description,
      input: Fields.fromJsonSchema(tool.input.jsonSchema),
      run: callThrough(engine, tool.name)
    }))
  }
)

/**
 * The bundle's command tree, named `name`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Cli } from "effect-surface/cli"
 * const command = Cli.command("board") // Effect<Command, VerbClash, Engine | Roster>
 * ```
 *
 * @since 0.1.0
 */
export const command = (name: string) =>
  Effect.flatMap(verbs, (table) => Effect.fromResult(CliCommands.tree(name, table)))

/**
 * Run the bundle's command line on `args` (the process's own, from `Stdio`, when omitted): parse,
 * call through the engine, print. Effect logs go to stderr, so stdout carries only answers and
 * help. Fails with `CallFailed` after printing a refused call's sentence, or with the parser's
 * `CliError` after printing it as one sentence on stderr.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as NodeServices from "@effect/platform-node/NodeServices"
 * import { Cli } from "effect-surface/cli"
 *
 * declare const options: Cli.Options
 * const program = Cli.run(options, ["tasks", "add", "--title", "write docs"]).pipe(Effect.provide(NodeServices.layer))
 * ```
 *
 * @since 0.1.0
 */
export const run = <E, R, C extends Bundle.Clients>(options: Options<E, R, C>, args?: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const tree = yield* command(options.name)
    const config = { version: options.version ?? "0.0.0" }
    return yield* args === undefined ? Command.run(tree, config) : Command.runWith(tree, config)(args)
  }).pipe(
    Effect.provide(Engine.layerBundle(options)),
    Effect.provideService(Logger.LogToStderr, true),
    Effect.provideService(CliOutput.Presenter, CliCommands.presenter)
  )

/**
 * Whether a failure was already told to the person at the terminal: a call's refusal, or the
 * parser's error (effect/cli prints it).
 *
 * @example
 * ```ts
 * import { Cli, CliCommands } from "effect-surface/cli"
 * Cli.alreadyTold(new CliCommands.CallFailed({ message: "no" })) // true
 * ```
 *
 * @since 0.1.0
 */
export const alreadyTold = (error: unknown): boolean =>
  CliError.isCliError(error) ||
  (typeof error === "object" && error !== null && "_tag" in error && error._tag === "CallFailed")

/**
 * Run a command-line program as this process's `main`: on Node's services, its failures told once
 * on stderr (a refusal or a parse error already was; anything else is worded by `messageOf`), and
 * the exit status non-zero on any failure.
 *
 * @example
 * ```ts
 * import { Cli } from "effect-surface/cli"
 * declare const options: Cli.Options
 * Cli.main(Cli.run(options))
 * ```
 *
 * @since 0.1.0
 */
export const main = <E>(program: Effect.Effect<void, E, NodeServices.NodeServices | Scope.Scope>): void =>
  NodeRuntime.runMain(
    program.pipe(
      Effect.tapCause((cause) => {
        const failure = Cause.findErrorOption(cause)
        if (failure._tag === "Some")
          return alreadyTold(failure.value) ? Effect.void : Console.error(messageOf(failure.value))
        return Cause.hasInterruptsOnly(cause) ? Effect.void : Console.error(Cause.pretty(cause))
      }),
      Effect.scoped,
      Effect.provide(NodeServices.layer)
    ),
    { disableErrorReporting: true }
  )

/**
 * What `run` can fail with.
 *
 * @example
 * ```ts
 * import type { Cli } from "effect-surface/cli"
 * const exitCode = (error: Cli.RunError) => error._tag === "CallFailed" ? 1 : 2
 * ```
 *
 * @since 0.1.0
 */
export type RunError = CliCommands.CallFailed | CliCommands.VerbClash | CliError.CliError | ResolveError.ResolveError
