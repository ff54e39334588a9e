// `npm run conformance`: serve the everything server on a free port and run the official MCP
// conformance suite against it. Exits with the suite's status, so CI fails on any failure that
// `examples/conformance-server/expected-failures.yaml` does not list (each with its reason).
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Effect, Stream } from "effect"
import { ChildProcess } from "effect/process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { serve } from "../examples/conformance-server/main.ts"

const root = fileURLToPath(new URL("..", import.meta.url))
const expected = fileURLToPath(new URL("../examples/conformance-server/expected-failures.yaml", import.meta.url))
const suite = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/conformance/dist/index.js", import.meta.url))

const main = Effect.gen(function*() {
  const served = yield* serve(0)
  yield* Console.log(`conformance: everything server at ${served.url}`)
  const args = [suite, "server", "--url", served.url, "--suite", "all", ...(existsSync(expected) ? ["--expected-failures", expected] : [])]
  const run = yield* ChildProcess.make(process.execPath, args, { cwd: root, stdout: "pipe", stderr: "inherit", extendEnv: true })
  yield* run.stdout.pipe(Stream.decodeText, Stream.runForEach((text) => Effect.sync(() => process.stdout.write(text))))
  const code = yield* run.exitCode
  return Number(code)
}).pipe(Effect.scoped, Effect.provide(NodeServices.layer))

NodeRuntime.runMain(Effect.flatMap(main, (code) => Effect.sync(() => process.exit(code))))
