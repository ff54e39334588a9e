// `npm run example:toolset`: the client toolset over the three reference MCP servers (installed as
// dev dependencies, so a fresh clone has them): it connects them over stdio, prints every projected
// name, calls one tool of each server, shows a refusal, and closes every connection.
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect } from "effect"
import { McpCallResult, McpPolicy, McpToolset } from "effect-surface/client"
import type { McpConfig } from "effect-surface/client"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"

const require = createRequire(import.meta.url)
const entry = (name: string) => require.resolve(`@modelcontextprotocol/${name}/dist/index.js`)

const workDir = Effect.acquireRelease(
  Effect.sync(() => Fs.realpathSync(Fs.mkdtempSync(Path.join(Os.tmpdir(), "toolset-example-")))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

const servers = (dir: string): ReadonlyArray<McpConfig.Server> => [
  { name: "everything", type: "stdio", command: process.execPath, args: [entry("server-everything"), "stdio"] },
  {
    name: "memory",
    type: "stdio",
    command: process.execPath,
    args: [entry("server-memory")],
    env: { MEMORY_FILE_PATH: Path.join(dir, "memory.jsonl") }
  },
  { name: "files", type: "stdio", command: process.execPath, args: [entry("server-filesystem"), dir] }
]

const main = Effect.gen(function*() {
  const dir = yield* workDir
  Fs.writeFileSync(Path.join(dir, "hello.txt"), "hello from the toolset example\n")
  const toolset = yield* McpToolset.make(servers(dir), {
    // Everything may run except deleting; a real agent would ask its person (McpPolicy.ask).
    policy: {
      decide: (r) => r.tool.startsWith("delete") ? McpPolicy.deny("this example never deletes") : McpPolicy.allow
    }
  })
  const tools = yield* toolset.tools
  yield* Console.log(`${tools.size} tools from 3 servers:`)
  for (const tool of tools.values()) yield* Console.log(`  ${tool.name}`)

  const echo = yield* toolset.call("everything__echo", { message: "hello, toolset" })
  yield* Console.log(`\neverything__echo → ${McpCallResult.textOf(echo)}`)
  yield* toolset.call("memory__create_entities", {
    entities: [{ name: "toolset", entityType: "example", observations: ["ran once"] }]
  })
  const graph = yield* toolset.call("memory__read_graph", {})
  yield* Console.log(`memory__read_graph → ${McpCallResult.textOf(graph).replace(/\s+/g, " ").slice(0, 120)}`)
  const file = yield* toolset.call("files__read_text_file", { path: Path.join(dir, "hello.txt") })
  yield* Console.log(`files__read_text_file → ${McpCallResult.textOf(file).trim()}`)

  const refused = yield* Effect.flip(toolset.call("memory__delete_entities", { entityNames: ["toolset"] }))
  yield* Console.log(`memory__delete_entities → ${refused._tag}: ${refused.message}`)
  const outside = yield* Effect.flip(toolset.call("files__read_text_file", { path: "/etc/hostname" }))
  yield* Console.log(`files__read_text_file outside its root → ${outside._tag}: ${outside.message}`)
}).pipe(Effect.scoped)

NodeRuntime.runMain(main)
