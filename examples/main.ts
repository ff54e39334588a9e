// `npm start`: the example task board as an MCP server.
//   npm -s start -- --stdio   serve it over stdio (nothing but protocol on stdout) for an MCP host
//   npm start                 a short in-process tour: an SDK client lists, calls and reads it
import { NodeRuntime } from "@effect/platform-node"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { Console, Effect } from "effect"
import { McpFace, McpSessions, serveStdio } from "effect-surface/mcp"
import { serverOptions } from "./board/app.ts"

const stdio = Effect.flatMap(serverOptions, serveStdio)

const tour = Effect.gen(function*() {
  const face = yield* McpFace.make(yield* serverOptions)
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  yield* McpSessions.connect(face, serverSide)
  const client = new Client({ name: "tour", version: "0.1.0" })
  yield* Effect.acquireRelease(Effect.promise(() => client.connect(clientSide)), () => Effect.promise(() => client.close()))
  const { tools } = yield* Effect.promise(() => client.listTools())
  yield* Console.log(`tools: ${tools.map((t) => t.name).join(", ")}`)
  const added = yield* Effect.promise(() => client.callTool({ name: "tasks_add", arguments: { title: "try effect-surface" } }))
  yield* Console.log(`tasks_add → ${JSON.stringify(added.structuredContent)}`)
  const read = yield* Effect.promise(() => client.readResource({ uri: "surface://streams/activity" }))
  yield* Console.log(`surface://streams/activity → ${JSON.stringify(read.contents[0])}`)
  yield* Console.log(`\nServe it to an MCP host over stdio with: npm -s start -- --stdio`)
}).pipe(Effect.scoped)

NodeRuntime.runMain(process.argv.includes("--stdio") ? stdio : tour, { disableErrorReporting: false })
