import { Effect } from "effect"
import { mcpTools, McpToolset } from "effect-surface/client"

declare const askThePerson: (message: string, schema: object) => Promise<Record<string, string> | undefined>

// A server's form, its model request and its roots reach these handlers, in 2025 and 2026 alike.
export const program = Effect.scoped(Effect.gen(function*() {
  const toolset = yield* McpToolset.make([{
    name: "docs",
    type: "streamable-http",
    url: "https://mcp.example.com/mcp"
  }], {
    allowedHosts: ["mcp.example.com"],
    // Missing fields take the form's defaults; left out, no elicitation is advertised and a form is declined.
    elicit: (form) =>
      Effect.promise(() => askThePerson(form.message, form.requestedSchema)).pipe(
        Effect.map((content) =>
          content === undefined ? { action: "decline" as const } : { action: "accept" as const, content }
        )
      ),
    sample: async ({ params }) => ({
      role: "assistant",
      model: "local",
      content: { type: "text", text: `summary of ${JSON.stringify(params["messages"])}` }
    }),
    roots: [{ uri: "file:///srv/project", name: "project" }]
  })
  return yield* toolset.call("docs__publish", { page: "retries" }) // may ask, answered above, then answers
}))

// The same handlers outside Effect: each may answer a value, a Promise or an Effect.
export const withPromises = () =>
  mcpTools([{ name: "docs", type: "streamable-http", url: "https://mcp.example.com/mcp" }], {
    allowedHosts: ["mcp.example.com"],
    elicit: async (form) => ({
      action: "accept",
      content: (await askThePerson(form.message, form.requestedSchema)) ?? {}
    })
  })
