// One stdio MCP server, run alone as a host runs it: `ours` (a one-procedure surface on the public
// API, `serveStdio` from the stdio entry), `raw` (the SDK's low-level Server) or `effect-ai` (its
// McpServer), each serving `add({ a, b })`. Nothing but protocol on stdout; it exits when stdin
// ends. Each kind imports only what it serves, so its start-up is its own. More kinds bound the
// start-up: `effect-floor`, the raw server run under `NodeRuntime.runMain` (what any Effect server on
// the SDK loads: `effect`, `NodeRuntime` from its own subpath, the SDK), and `ours-mcp-barrel`, ours
// importing `serveStdio` from the full `effect-surface/mcp` barrel (HTTP stack and all) instead; and
// `ours-deep-imports`, ours in an app that imports `effect`'s modules by path.
//   node --conditions=effect-surface-source bench/servers/host.ts ours|raw|effect-ai|effect-floor|ours-mcp-barrel|ours-deep-imports
const kind = process.argv[2]

const oursFromTheBarrel = async () => {
  const { runMain } = await import("@effect/platform-node/NodeRuntime")
  const { serveStdio } = await import("effect-surface/mcp")
  const { Effect, Schema } = await import("effect")
  const { serveAdd } = await import("./addOurs.ts")
  serveAdd(runMain, serveStdio, { Effect, Schema })
}

const effectFloor = async () => {
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js")
  const { rawAddServer } = await import("./hostRaw.ts")
  const { Effect } = await import("effect")
  const { runMain } = await import("@effect/platform-node/NodeRuntime")
  const server = rawAddServer()
  runMain(Effect.gen(function*() {
    yield* Effect.promise(() => server.connect(new StdioServerTransport()))
    yield* Effect.callback<void>((resume) => {
      process.stdin.once("end", () => resume(Effect.void))
    })
  }))
}

const effectAi = async () => {
  const { NodeRuntime, NodeStdio } = await import("@effect/platform-node")
  const { Effect, Layer, Logger, Schema } = await import("effect")
  const { McpProtocol, McpServer, Tool, Toolkit } = await import("effect/ai")
  const { add, ADD_DESCRIPTION, ADD_TOOL } = await import("../lib/adder.ts")
  const AddInput = Schema.Struct({ a: Schema.Finite, b: Schema.Finite })
  const AddOutput = Schema.Struct({ sum: Schema.Finite })
  const AddTool = Tool.make(ADD_TOOL, { description: ADD_DESCRIPTION, parameters: AddInput, success: AddOutput })
  const Kit = Toolkit.make(AddTool)
  const registrations = McpServer.toolkit(Kit).pipe(
    Layer.provide(
      Kit.toLayer({ [ADD_TOOL]: (input: { readonly a: number; readonly b: number }) => Effect.succeed(add(input)) })
    )
  )
  const layer = McpServer.layerStdio({
    name: "add-effect-ai",
    version: "0.0.0",
    protocols: [McpProtocol.v2025_11_25],
    registrations
  }).pipe(Layer.provide(NodeStdio.layer), Layer.provide(Layer.succeed(Logger.LogToStderr, true)))
  NodeRuntime.runMain(Layer.launch(layer))
}

// As the README writes it (bench/servers/hostOurs.ts): NodeRuntime from its own subpath, the
// package's root and its stdio entry.
if (kind === "ours") await import("./hostOurs.ts")
else if (kind === "ours-deep-imports") await import("./hostOursDeep.ts")
else if (kind === "ours-mcp-barrel") await oursFromTheBarrel()
else if (kind === "raw") await (await import("./hostRaw.ts")).serveRaw()
else if (kind === "effect-floor") await effectFloor()
else if (kind === "effect-ai") await effectAi()
else {
  process.stderr.write(
    `usage: host.ts ours|raw|effect-ai|effect-floor|ours-mcp-barrel|ours-deep-imports (got ${String(kind)})\n`
  )
  process.exit(2)
}
