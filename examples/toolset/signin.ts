import { Effect } from "effect"
import { McpCallResult, McpTokenStoreSqlite, McpToolset } from "effect-surface/client"

declare const openInBrowser: (url: URL) => Effect.Effect<void>
declare const nextCallback: Effect.Effect<URL> // the URL your redirect handler receives next

// The server answers 401: the toolset finds its authorization server, uses your client ID (or its
// metadata document, or registers), sends the person there through authorize, and carries the token.
export const program = Effect.scoped(Effect.gen(function*() {
  const tokenStore = yield* McpTokenStoreSqlite.make("tokens.db") // a 0600 file; leave it out for memory
  const toolset = yield* McpToolset.make([{
    name: "docs",
    type: "streamable-http",
    url: "https://mcp.example.com/mcp",
    oauth: { clientName: "My agent", redirectUrl: "http://127.0.0.1:8765/callback" }
  }], {
    tokenStore,
    authorize: (authorizationUrl) => Effect.andThen(openInBrowser(authorizationUrl), nextCallback)
  })
  return McpCallResult.textOf(yield* toolset.call("docs__search", { query: "retries" }))
}))
