/**
 * `effect-surface guard …`: a guard's three commands — write its lock, serve it, call one of its
 * tools from a shell.
 *
 * `guard call <guard file> <tool> --flag value` types its flags from the lock, through the same
 * `Fields` reading the served schema is rebuilt from, so `--help` tells the restricted enums and
 * bounds; the call itself goes through the guard's `execute` (door `cli`), the path an MCP host's
 * call takes, so both refuse in the same words and leave the same audit row. Reading the file and
 * the lock loads no MCP SDK; connecting the upstream does, and is loaded only when a command runs.
 *
 * @since 0.1.0
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Argument, Command, Flag } from "effect/cli"
import * as ToolResult from "../core/ToolResult.ts"
import * as Grants from "../guard/Grants.ts"
import * as GuardFile from "../guard/GuardFile.ts"
import * as GuardLock from "../guard/GuardLock.ts"
import * as CliCommands from "./Commands.ts"
import { kebab } from "./Flags.ts"

const fileArgument = Argument.String("guard-file").pipe(Argument.withDescription("The guard file (JSON)"))

// The parts that connect the upstream, and so load the MCP SDK: only when a command runs.
const running = Effect.promise(() => Promise.all([import("../guard/Guard.ts"), import("../guard/GuardServe.ts")]))

const lock = Command.make("lock", { file: fileArgument }, ({ file }) =>
  Effect.gen(function*() {
    const [Guard] = yield* running
    const decoded = yield* GuardFile.read(file)
    const written = yield* Guard.lock(decoded)
    yield* Console.log(`locked ${written.tools.length} tools of "${written.upstream}" in ${decoded.lock}`)
  })).pipe(Command.withDescription("Write the upstream's tool definitions to the guard's lock, to review and commit"))

const serve = Command.make("serve", {
  file: fileArgument,
  http: Flag.Int("http").pipe(
    Flag.withDescription("Serve over Streamable HTTP on 127.0.0.1 at this port (0: any free port) instead of stdio"),
    Flag.optional
  )
}, ({ file, http }) =>
  Effect.gen(function*() {
    const [Guard, GuardServe] = yield* running
    const guard = Guard.layerFile(file)
    return Option.isNone(http)
      ? yield* GuardServe.serveStdio(guard)
      : yield* GuardServe.serveHttp(guard, { port: http.value, host: "127.0.0.1" }, (url) =>
        Console.error(`guard serving MCP at ${url}`))
  })).pipe(
    Command.withDescription("Serve exactly the granted tools of the lock, restricted, over stdio (or HTTP with --http)")
  )

// One call through the guard's `execute`, door `cli`: a guard that cannot start answers like any
// refusal, in one sentence with a failing exit.
const callThrough = (file: GuardFile.GuardFile, tool: string, args: unknown) =>
  Effect.gen(function*() {
    const [Guard] = yield* running
    return yield* Effect.flatMap(Guard.Guard, (guard) => guard.execute("cli", tool, args)).pipe(
      Effect.provide(Guard.layer(file)),
      Effect.catch((failed) => Effect.succeed(ToolResult.failure(failed)))
    )
  })

const served = (path: string) =>
  Effect.gen(function*() {
    const file = yield* GuardFile.read(path)
    const lockFile = yield* GuardLock.read(file.lock)
    const { granted } = yield* Effect.fromResult(Grants.project(file, lockFile))
    return { file, lockFile, granted }
  })

/**
 * The verbs of `guard call <file>`: each tool the file grants and the lock holds, kebab-cased, its
 * flags typed from the restricted schema, each call running through the guard's `execute`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { GuardCommands } from "effect-surface/cli"
 * const words = Effect.map(GuardCommands.verbs("guard.json"), (verbs) => verbs.map((verb) => verb.words.join(" "))) // ["get-sum", …]
 * ```
 *
 * @since 0.1.0
 */
export const verbs = Effect.fn("GuardCommands.verbs")(function*(path: string) {
  const { file, granted } = yield* served(path)
  return granted.map((tool): CliCommands.Verb => ({
    words: [kebab(tool.name)],
    description: tool.description,
    input: tool.fields,
    run: (args) => callThrough(file, tool.name, args)
  }))
})

// A served tool named some other way than its verb — its lock name (`export_all`), or its verb in
// another case or spelling that kebab-cases to it — is a slip, not a call: say the verb, as the
// command tree does for a mistyped word, and call nothing.
const misnamed = (path: string, word: string, verb: string) =>
  CliCommands.report(ToolResult.failure(
    new CliCommands.CallFailed({
      message: `no command ${word}; did you mean ${verb}? (see effect-surface guard call ${path} --help)`
    })
  ))

/**
 * A shell's call to a tool the guard does not serve (`guard call <file> get-env …`), answered as
 * the MCP door answers one: by the guard's `execute`, which refuses it in the same sentence and
 * writes the same deny row, under the tool's upstream name when the lock knows it. There is no
 * schema to type its flags by, so its words are not parsed: the row digests them as given. A served
 * tool named by other than its verb (its lock name `export_all` for `export-all`) is told the verb
 * and not called. `None` when the arguments name no tool, a served one, or a guard file that cannot
 * be read (the command tree then says what is wrong).
 *
 * @example
 * ```ts
 * import { Effect, Option } from "effect"
 * import { GuardCommands } from "effect-surface/cli"
 * const refused = Effect.map(GuardCommands.notServed(["guard", "call", "guard.json", "get-env"]), Option.isSome) // true
 * ```
 *
 * @since 0.1.0
 */
export const notServed = Effect.fn("GuardCommands.notServed")(function*(args: ReadonlyArray<string>) {
  const at = args.indexOf("call")
  const [path, word] = at >= 0 ? [args[at + 1], args[at + 2]] : []
  if (path === undefined || word === undefined || path.startsWith("-") || word.startsWith("-")) return Option.none()
  const guard = yield* Effect.option(served(path))
  if (Option.isNone(guard) || guard.value.granted.some((tool) => kebab(tool.name) === word)) return Option.none()
  const { file, granted, lockFile } = guard.value
  const meant = granted.find((tool) => kebab(tool.name) === kebab(word))
  if (meant !== undefined) return Option.some(misnamed(path, word, kebab(meant.name)))
  const tool = lockFile.tools.find((locked) => locked.name === word || kebab(locked.name) === word)?.name ?? word
  return Option.some(Effect.flatMap(callThrough(file, tool, args.slice(at + 3)), CliCommands.report))
})

const usage = "name a guard file and a tool: effect-surface guard call <guard file> <tool> --flag value"

/**
 * `guard`, with `call` built for the guard file `args` names after it (`guard call <file> …`), if any.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { GuardCommands } from "effect-surface/cli"
 * const guard = GuardCommands.command(["guard", "call", "guard.json", "get-sum", "--a", "1"])
 * ```
 *
 * @since 0.1.0
 */
export const command = Effect.fn("GuardCommands.command")(function*(args: ReadonlyArray<string>) {
  const at = args.indexOf("call")
  const path = at >= 0 ? args[at + 1] : undefined
  const call = path === undefined || path.startsWith("-")
    ? Command.make(
      "call",
      {},
      () =>
        Effect.flatMap(
          Effect.succeed(ToolResult.failure(new CliCommands.CallFailed({ message: usage }))),
          CliCommands.report
        )
    )
      .pipe(Command.withDescription(usage))
    : Command.make("call").pipe(
      Command.withSubcommands([yield* Effect.fromResult(CliCommands.tree(path, yield* verbs(path)))]),
      Command.withDescription("Call a granted tool through the guard, as an MCP host would")
    )
  return Command.make("guard").pipe(
    Command.withSubcommands([lock, serve, call]),
    Command.withDescription("An upstream MCP server behind grants: lock, serve, call")
  )
})
