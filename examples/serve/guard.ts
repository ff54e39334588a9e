import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Guard, GuardServe } from "effect-surface/guard"

// The guard from Effect code: its upstream connected, grants applied and audit opened by one layer
// (`Guard.layerFile`), served over this process's stdio by the MCP face until the host disconnects.
// Composed like any layer, the same guard over HTTP is GuardServe.layerHttp({ port: 3000 }).pipe(Layer.provide(guard)).
const guard = Guard.layerFile(process.argv[2] ?? "guard.json")

NodeRuntime.runMain(GuardServe.serveStdio(guard))
