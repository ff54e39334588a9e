// One stdio MCP server, run alone as a host runs it: `ours` (a one-procedure surface on the public
// API, `serveStdio` from the stdio entry), `raw` (the SDK's low-level Server) or `effect-ai` (its
// McpServer), each serving `add({ a, b })`. Nothing but protocol on stdout; it exits when stdin
// ends. Each kind imports only what it serves, so its start-up is its own. Two more kinds bound the
// start-up: `effect-floor`, the raw server run under `NodeRuntime.runMain` (what any Effect server on
// the SDK loads: `effect`, `NodeRuntime` from its own subpath, the SDK), and `ours-mcp-barrel`, ours
// importing `serveStdio` from the full `effect-surface/mcp` barrel (HTTP stack and all) instead.
//   node --conditions=effect-surface-source bench/servers/host.ts ours|raw|effect-ai|effect-floor|ours-mcp-barrel
const kind = process.argv[2]

type Ours = {
  readonly runMain: (typeof import("@effect/platform-node/NodeRuntime"))["runMain"]
  readonly surface: Pick<typeof import("effect-surface"), "Client" | "Expose" | "Implementation" | "Surface">
  readonly serveStdio: (typeof import("effect-surface/mcp/stdio"))["serveStdio"]
}

// As the README writes it: NodeRuntime from its own subpath, the package's root and its stdio entry.
const oursByTheBook = async (): Promise<Ours> => ({
  runMain: (await import("@effect/platform-node/NodeRuntime")).runMain,
  surface: await import("effect-surface"),
  serveStdio: (await import("effect-surface/mcp/stdio")).serveStdio
})

// The same program taking `serveStdio` from the full MCP barrel.
const oursFromTheBarrel = async (): Promise<Ours> => ({
  runMain: (await import("@effect/platform-node/NodeRuntime")).runMain,
  surface: await import("effect-surface"),
  serveStdio: (await import("effect-surface/mcp")).serveStdio
})

const ours = async ({ runMain, serveStdio, surface }: Ours) => {
  const { Client, Expose, Implementation, Surface } = surface
  const { Effect, Schema } = await import("effect")
  const { add, ADD_DESCRIPTION } = await import("../lib/adder.ts")
  const AddInput = Schema.Struct({ a: Schema.Finite, b: Schema.Finite })
  const AddOutput = Schema.Struct({ sum: Schema.Finite })
  const MathSurface = Surface.make({
    procedures: { math: { add: { input: AddInput, output: AddOutput, mutates: false, description: ADD_DESCRIPTION } } }
  })
  const expose = Expose.make(MathSurface, { procedures: { "math.add": true } })
  const implemented = Implementation.make(MathSurface, {
    procedures: { math: { add: (input) => Effect.succeed(add(input)) } }
  })
  runMain(serveStdio({
    core: { surface: MathSurface, expose },
    client: Effect.succeed({ core: Client.erase(Client.directDispatch(implemented)), clients: {} }),
    serverInfo: { name: "add-ours", version: "0.0.0" }
  }))
}

const raw = async (underEffect: boolean) => {
  const { Server } = await import("@modelcontextprotocol/sdk/server/index.js")
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js")
  const { CallToolRequestSchema, ListToolsRequestSchema } = await import("@modelcontextprotocol/sdk/types.js")
  const { add, ADD_DESCRIPTION, ADD_TOOL } = await import("../lib/adder.ts")
  const server = new Server({ name: "add-raw", version: "0.0.0" }, { capabilities: { tools: { listChanged: true } } })
  // The same tool as ours advertises, byte for byte.
  const inputSchema = {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"]
  } as const
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{
      name: ADD_TOOL,
      description: ADD_DESCRIPTION,
      inputSchema,
      annotations: { readOnlyHint: true, destructiveHint: false }
    }]
  }))
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    if (request.params.name !== ADD_TOOL) {
      throw Object.assign(new Error(`unknown tool "${request.params.name}"`), { code: -32602 })
    }
    const a: unknown = request.params.arguments?.["a"]
    const b: unknown = request.params.arguments?.["b"]
    if (typeof a !== "number" || !Number.isFinite(a) || typeof b !== "number" || !Number.isFinite(b)) {
      return { isError: true, content: [{ type: "text" as const, text: "a, b: expected numbers" }] }
    }
    const out = add({ a, b })
    return { content: [{ type: "text" as const, text: JSON.stringify(out) }], structuredContent: out }
  })
  if (!underEffect) {
    await server.connect(new StdioServerTransport())
    process.stdin.once("end", () => process.exit(0))
    return
  }
  const { Effect } = await import("effect")
  const { runMain } = await import("@effect/platform-node/NodeRuntime")
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

if (kind === "ours") await ours(await oursByTheBook())
else if (kind === "ours-mcp-barrel") await ours(await oursFromTheBarrel())
else if (kind === "raw") await raw(false)
else if (kind === "effect-floor") await raw(true)
else if (kind === "effect-ai") await effectAi()
else {
  process.stderr.write(`usage: host.ts ours|raw|effect-ai|effect-floor|ours-mcp-barrel (got ${String(kind)})\n`)
  process.exit(2)
}
