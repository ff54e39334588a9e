// The example board served over HTTP with the operator's console, and the console's printed link
// taken apart: its key (as the page sends it with its stream and each decision) and its plain page.
import { Effect } from "effect"
import { McpConsole, McpHttp } from "effect-surface/mcp"
import { serverOptions } from "../../examples/board/app.ts"

export const serveWithConsole = (options: McpConsole.Options = {}) =>
  Effect.gen(function*() {
    const console = yield* McpConsole.make(options)
    const served = yield* McpHttp.serve({ ...(yield* serverOptions), http: { port: 0 } }).pipe(
      Effect.provideService(McpConsole.Console, console)
    )
    const link = new URL(served.console ?? "")
    const key = new URLSearchParams(link.hash.slice(1)).get("key") ?? link.searchParams.get("key") ?? ""
    return { served, console, link, key, page: new URL(link.pathname, link) }
  })
