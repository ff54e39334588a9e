// The `auth/*` scenarios of the official MCP client conformance suite, played by the client toolset
// through its public API only: one server entry with `oauth`, and an `authorize` that does what a
// person's browser would — it follows the authorization server's redirect and answers the URL it
// was sent back to. The suite's scenarios then check what the toolset did: discovery, PKCE,
// `resource`, registration, `iss`, scopes, step-up, and the sign-ins it must refuse.
//
// `run(scenario, serverUrl)` is what the client conformance runner calls for a scenario whose name
// starts with `auth/`. Run on its own, this file is a conformance `--command`: the suite appends the
// server's URL and names the scenario (`MCP_CONFORMANCE_SCENARIO`) and its context
// (`MCP_CONFORMANCE_CONTEXT`, the pre-registered client's credentials) in the environment:
//
//   npx conformance client --scenario auth/metadata-default \
//     --command "node --conditions=effect-surface-source examples/conformance-client/auth.ts"
import { mcpTools } from "effect-surface/client"
import type { McpOAuth } from "effect-surface/client"
import { fileURLToPath } from "node:url"

// The client's metadata document (SEP-991): the suite accepts this URL as a client ID without
// fetching it.
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
const REDIRECT_URL = "http://localhost:3000/callback"

// The credentials the suite hands a scenario whose client is registered beforehand.
const preRegistered = (): Pick<McpOAuth.ServerOptions, "clientId" | "clientSecret"> => {
  const raw = process.env["MCP_CONFORMANCE_CONTEXT"]
  if (raw === undefined) return {}
  const context = JSON.parse(raw) as { readonly client_id?: unknown; readonly client_secret?: unknown }
  return typeof context.client_id === "string"
    ? {
      clientId: context.client_id,
      ...(typeof context.client_secret === "string" ? { clientSecret: context.client_secret } : {})
    }
    : {}
}

// The person's browser: the suite's authorization endpoint answers at once with a redirect to the
// redirect URL, carrying the code.
const authorize = async (authorizationUrl: URL): Promise<URL> => {
  const response = await fetch(authorizationUrl, { redirect: "manual" })
  const location = response.headers.get("location")
  if (location === null) throw new Error(`the authorization server did not redirect (${response.status})`)
  return new URL(location, authorizationUrl)
}

/**
 * Play one `auth/*` scenario against the server at `serverUrl`: sign in as the server asks, list its
 * tools and call `test-tool`. Rejects when the toolset refused to sign in (as some scenarios require)
 * or the server could not be used.
 */
export const run = async (scenario: string, serverUrl: string): Promise<void> => {
  const toolset = await mcpTools([{
    name: "server",
    type: "streamable-http",
    url: serverUrl,
    oauth: {
      clientName: `effect-surface conformance (${scenario})`,
      redirectUrl: REDIRECT_URL,
      clientMetadataUrl: CLIENT_METADATA_URL,
      ...preRegistered()
    }
  }], {
    // The suite's servers are on this machine: name its hosts, or the toolset refuses loopback.
    allowedHosts: ["localhost", "127.0.0.1"],
    authorize,
    // The suite starts all its clients at once and gives each 300 s; on a busy machine a sign-in's
    // round trips can pass the 30 s connect deadline, so this client waits about as long as the suite.
    connectTimeoutMs: 240_000,
    timeoutMs: 240_000
  })
  try {
    const tool = toolset.tools["server__test-tool"]
    if (tool === undefined) {
      throw new Error(`the server's tools could not be listed: ${toolset.diagnostics.map((d) => d.message).join("; ")}`)
    }
    await tool.execute({})
  } finally {
    await toolset.close()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const scenario = process.env["MCP_CONFORMANCE_SCENARIO"] ?? ""
  const serverUrl = process.argv.at(-1) ?? ""
  run(scenario, serverUrl).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(`${scenario}: ${error instanceof Error ? error.message : String(error)}`)
      process.exit(1)
    }
  )
}
