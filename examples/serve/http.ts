import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Layer } from "effect"
import { Client, Engine } from "effect-surface"
import { McpHttp, McpServer } from "effect-surface/mcp"
import { counter, Counter, expose } from "../quickstart.ts"

// The same core as over stdio: one bundle, every core service its default.
const core = Engine.layerBundle({
  core: { surface: Counter, expose },
  client: Effect.map(
    counter,
    (implemented) => ({ core: Client.erase(Client.directDispatch(implemented)), clients: {} })
  )
})

// The MCP face, served over Streamable HTTP on 127.0.0.1 (PORT, or one the system picks).
const server = McpHttp.layerServer({ port: Number(process.env["PORT"] ?? 0) }).pipe(
  Layer.provide(McpServer.layer({ serverInfo: { name: "counter", version: "1.0.0" } })),
  Layer.provide(core)
)

// It says where it listens ("MCP over HTTP at …") and serves until it is stopped.
export const main = Layer.launch(server)

if (import.meta.main) NodeRuntime.runMain(main)
