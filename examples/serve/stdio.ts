import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Layer } from "effect"
import { Client, Engine } from "effect-surface"
import { McpServer, McpServedConnection } from "effect-surface/mcp/stdio"
import { counter, Counter, expose } from "../quickstart.ts"

// The core for one bundle: Engine, Roster, ConnectionPool, Resolver and SchemaBridge, each its default.
// Swap any of them (a test pool, a shared Roster) by providing your own layer instead.
const core = Engine.layerBundle({
  core: { surface: Counter, expose },
  client: Effect.map(
    counter,
    (implemented) => ({ core: Client.erase(Client.directDispatch(implemented)), clients: {} })
  )
})

// The MCP face over stdio, standing on that core; it runs until the host closes the connection.
const server = McpServer.layerStdio({ serverInfo: { name: "counter", version: "1.0.0" } }).pipe(Layer.provide(core))

export const main = McpServedConnection.use((connection) => connection.closed).pipe(Effect.provide(server))

if (import.meta.main) NodeRuntime.runMain(main)
