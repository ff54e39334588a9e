/**
 * The `effect-surface` program: the commands the package's own bin runs.
 *
 * Today that is `guard` (lock, serve, call). The tree is built from the arguments, because
 * `guard call <guard file>` types its subcommands from that file and its lock; everything else is
 * static. Its `--help` loads no MCP SDK.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Stdio from "effect/Stdio"
import { CliOutput, Command } from "effect/cli"
import { createRequire } from "node:module"
import * as CliCommands from "./Commands.ts"
import * as GuardCommands from "./GuardCommands.ts"

const { version } = createRequire(import.meta.url)("../../package.json") as { readonly version: string }

/**
 * The program's command tree for these arguments.
 *
 * @example
 * ```ts
 * import { Bin } from "effect-surface/cli"
 * const tree = Bin.command(["guard", "lock", "guard.json"])
 * ```
 *
 * @since 0.1.0
 */
export const command = (args: ReadonlyArray<string>) =>
  Effect.map(GuardCommands.command(args), (guard) =>
    Command.make("effect-surface").pipe(
      Command.withSubcommands([guard]),
      Command.withDescription(
        "effect-surface: put an application's tools in front of agents, and other people's behind grants"
      )
    ))

/**
 * Run the program on `args` (the process's own, from `Stdio`, when omitted): answers on stdout,
 * and on stderr Effect's logs, a refusal's sentence, or a mistake in the arguments as one sentence.
 * A call to a tool the guard does not serve goes to the guard to be refused, as over MCP.
 *
 * @example
 * ```ts
 * import { Bin, Cli } from "effect-surface/cli"
 * Cli.main(Bin.run())
 * ```
 *
 * @since 0.1.0
 */
export const run = (args?: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const argv = args ?? (yield* Effect.flatMap(Effect.service(Stdio.Stdio), (stdio) => stdio.args))
    const refused = yield* GuardCommands.notServed(argv)
    if (Option.isSome(refused)) return yield* refused.value
    const tree = yield* command(argv)
    return yield* Command.runWith(tree, { version })(argv)
  }).pipe(
    Effect.provideService(Logger.LogToStderr, true),
    Effect.provideService(CliOutput.Presenter, CliCommands.presenter)
  )
