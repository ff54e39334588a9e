/**
 * effect-surface/cli: the same verb tables as argv, on effect/cli.
 *
 * `Cli` runs a bundle as a command line through the core's engine; `CliCommands` turns any verb
 * table into a command tree; `CliFlags` types a tool's flags from its input. None of it loads the
 * MCP SDK.
 *
 * @since 0.1.0
 */
export * as Cli from "./Cli.ts"
export * as CliCommands from "./Commands.ts"
export * as CliFlags from "./Flags.ts"
export * as Bin from "./Bin.ts"
export * as GuardCommands from "./GuardCommands.ts"
