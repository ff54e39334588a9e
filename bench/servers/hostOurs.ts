// Ours as the README writes a stdio server: `effect` from its barrel, NodeRuntime from its own
// subpath, the package's root and its stdio entry, all imported statically; it serves on import. Run
// alone (`node hostOurs.ts`), or as the entry a bundler is given (bench/lib/bundle.ts).
import { runMain } from "@effect/platform-node/NodeRuntime"
import { Effect, Schema } from "effect"
import { serveStdio } from "effect-surface/mcp/stdio"
import { serveAdd } from "./addOurs.ts"

serveAdd(runMain, serveStdio, { Effect, Schema })
