// The conformance suite's client, built only from the public `effect-surface/client` API: the suite
// starts it once per scenario with the scenario's server URL as its last argument and the scenario's
// name in MCP_CONFORMANCE_SCENARIO (data it needs in MCP_CONFORMANCE_CONTEXT). It does what an agent's
// toolset does with a server: connect (in the revision the run asks for, or the newest the server
// speaks), list the tools and call each, list and read the resources, list and get the prompts,
// answering every question the server asks — a form with its defaults. An `auth/*` scenario is
// handed to `./auth.ts` (`run(scenario, serverUrl)`), the sign-in runner.
import { Effect } from "effect"
import { McpToolset } from "effect-surface/client"
import type { McpConfig } from "effect-surface/client"

interface Context {
  readonly toolCalls?: ReadonlyArray<{ readonly name: string; readonly arguments: Record<string, unknown> }>
}

const scenario = process.env["MCP_CONFORMANCE_SCENARIO"] ?? ""
const serverUrl = process.argv.at(-1) ?? ""
const context = JSON.parse(process.env["MCP_CONFORMANCE_CONTEXT"] ?? "{}") as Context
const requested = process.env["MCP_CONFORMANCE_PROTOCOL_VERSION"]
const protocol: McpConfig.Protocol = requested === "2025-11-25" || requested === "2026-07-28" ? requested : "auto"

type Schema = { readonly type?: unknown; readonly properties?: Record<string, Schema>; readonly required?: unknown }

// A plausible value for each required argument a schema names, when the scenario gives none.
const sampleOf = (schema: Schema): unknown => {
  switch (schema.type) {
    case "string":
      return "test"
    case "number":
    case "integer":
      return 1
    case "boolean":
      return true
    case "array":
      return []
    default: {
      const required = Array.isArray(schema.required) ? (schema.required as Array<string>) : []
      return Object.fromEntries(required.map((key) => [key, sampleOf(schema.properties?.[key] ?? {})]))
    }
  }
}

// The arguments the scenario asks for, exactly as given (a `null` included: the toolset reads one
// under an optional property as left out, as a model in a strict mode means it), else plausible ones.
const argumentsFor = (
  name: string,
  inputSchema: Schema,
  tools: ReadonlyMap<string, { readonly tool: string; readonly inputSchema: unknown }>
): Record<string, unknown> => {
  // The preservation scenario's echo tool is handed another tool's schema, as the toolset holds it.
  if (name === "json_schema_echo") {
    const focal = [...tools.values()].find((tool) => tool.tool === "json_schema_2020_12_tool")
    return { schema: focal?.inputSchema ?? {} }
  }
  const given = context.toolCalls?.find((call) => call.name === name)?.arguments
  return given ?? sampleOf(inputSchema) as Record<string, unknown>
}

const say = (line: string) => Effect.sync(() => process.stderr.write(`${line}\n`))

const exercise = Effect.gen(function*() {
  const toolset = yield* McpToolset.make([{ name: "server", type: "streamable-http", url: serverUrl, protocol }], {
    allowedHosts: [new URL(serverUrl).host],
    clientInfo: { name: "effect-surface-conformance", version: "0.1.0" },
    // The suite starts all its clients at once and gives each 300 s: wait about as long as it does.
    connectTimeoutMs: 240_000,
    timeoutMs: 240_000,
    elicit: () => ({ action: "accept", content: {} }),
    sample: () => ({ role: "assistant", model: "conformance", content: { type: "text", text: "ok" } }),
    roots: []
  })
  const tools = yield* toolset.tools
  for (const [name, tool] of tools) {
    const outcome = yield* Effect.result(toolset.call(name, argumentsFor(tool.tool, tool.inputSchema as Schema, tools)))
    yield* say(`${name}: ${outcome._tag === "Success" ? "answered" : outcome.failure.message}`)
  }
  for (const resource of yield* toolset.resources) {
    const read = yield* Effect.result(toolset.readResource(resource.server, resource.uri))
    yield* say(`${resource.uri}: ${read._tag === "Success" ? `${read.success.length} part(s)` : read.failure.message}`)
  }
  for (const prompt of yield* toolset.prompts) {
    const required = (prompt.arguments ?? []).filter((argument) => argument.required === true)
    const args = Object.fromEntries(required.map((argument) => [argument.name, "test"]))
    const got = yield* Effect.result(toolset.getPrompt(prompt.name, args))
    yield* say(
      `${prompt.name}: ${got._tag === "Success" ? `${got.success.messages.length} message(s)` : got.failure.message}`
    )
  }
})

const main = async () => {
  if (scenario.startsWith("auth/")) {
    // The sign-in runner lives beside this one; a specifier in a variable keeps it out of the typecheck.
    const module = "./auth.ts"
    const { run } = (await import(module)) as { run: (scenario: string, serverUrl: string) => Promise<void> }
    await run(scenario, serverUrl)
    return
  }
  await Effect.runPromise(Effect.scoped(exercise))
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`conformance client: ${String(error)}\n`)
    process.exit(1)
  }
)
