import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Layer } from "effect"
import { Client, Engine } from "effect-surface"
import { McpConsole, McpHttp, McpServer } from "effect-surface/mcp"
import { counter, Counter, expose } from "../quickstart.ts"

const core = Engine.layerBundle({
  core: { surface: Counter, expose },
  client: Effect.map(
    counter,
    (implemented) => ({ core: Client.erase(Client.directDispatch(implemented)), clients: {} })
  )
})

// The endpoint as over plain HTTP, with the operator's console beside it at /console: every call
// shown live, and an agent's counter_add waiting there (at most a minute) for a person's decision.
const server = McpHttp.layerServer({ port: Number(process.env["PORT"] ?? 0) }).pipe(
  Layer.provide(McpServer.layer({ serverInfo: { name: "counter", version: "1.0.0" } })),
  Layer.provide(core),
  Layer.provide(McpConsole.layer({ hold: ["counter_add"], approvalTimeout: "1 minute" }))
)

// It says where it listens and where its console is, and serves until it is stopped.
export const main = Layer.launch(server)

if (import.meta.main) NodeRuntime.runMain(main)
