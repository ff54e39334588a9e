// Ours as a V8 startup snapshot's entry (bench/lib/bundle.ts bundles it as CommonJS and builds the
// snapshot with `node --build-snapshot`): every module is loaded and evaluated while the snapshot is
// built, and a start from the snapshot (`node --snapshot-blob …`) only deserializes the heap and
// runs the main function below, which serves as hostOurs.ts does.
import { runMain } from "@effect/platform-node/NodeRuntime"
import { Effect, Schema } from "effect"
import { serveStdio } from "effect-surface/mcp/stdio"
import * as v8 from "node:v8"
import { serveAdd } from "./addOurs.ts"

v8.startupSnapshot.setDeserializeMainFunction(() => serveAdd(runMain, serveStdio, { Effect, Schema }))
