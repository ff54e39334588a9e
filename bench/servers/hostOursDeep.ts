// Ours as an app that imports `effect`'s modules by path (`effect/Schema`, not the barrel) writes a
// stdio server. The package imports them so too, so the start loads the modules the server reaches
// rather than all of the barrel's. Otherwise the same server as hostOurs.ts.
import { runMain } from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { serveStdio } from "effect-surface/mcp/stdio"
import { serveAdd } from "./addOurs.ts"

serveAdd(runMain, serveStdio, { Effect, Schema })
