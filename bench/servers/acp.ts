// An ACP agent for the ACP benchmark, run as a child process the way an editor runs one: `ours`
// (AcpAgent.serveStdio) or `raw` (the SDK's agent app), both serving the workload in lib/acp.ts on
// this process's stdio. Exits when stdin ends.
import * as Acp from "@agentclientprotocol/sdk"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Readable, Writable } from "node:stream"
import { Effect, Layer, References } from "effect"
import { AcpAgent } from "effect-surface/acp"
import { oursHandler, rawAgent } from "../lib/acp.ts"

const kind = process.argv[2]

if (kind === "ours") {
  NodeRuntime.runMain(
    AcpAgent.serveStdio(oursHandler).pipe(Effect.provide(Layer.succeed(References.MinimumLogLevel, "Warn")))
  )
} else if (kind === "raw") {
  const connection = rawAgent().connect(Acp.ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>
  ))
  void connection.closed.then(() => process.exit(0))
} else {
  process.stderr.write(`usage: acp.ts ours|raw (got ${String(kind)})\n`)
  process.exit(2)
}
