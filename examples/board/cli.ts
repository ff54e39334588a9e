// `npm -s run board -- tasks add --title "write docs"`: the example board as a command line. Each
// MCP tool is a verb (tasks_add is `tasks add`), called through the same engine an MCP host's
// tools/call reaches; `npm -s run board -- --help` lists them.
import { Effect } from "effect"
import { Cli } from "effect-surface/cli"
import { serverOptions } from "./app.ts"

Cli.main(Effect.flatMap(serverOptions, (options) => Cli.run({ ...options, name: "board", version: "0.1.0" })))
