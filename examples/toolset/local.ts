import { Effect } from "effect"
import { Client, Engine } from "effect-surface"
import { McpCallResult, McpPolicy, McpToolset } from "effect-surface/client"
import { counter, Counter, expose } from "../quickstart.ts"

// The app's own counter beside a server it did not write: one map, one policy, one call path.
export const program = Effect.scoped(Effect.gen(function*() {
  const toolset = yield* McpToolset.make([
    {
      name: "app",
      type: "local", // called through the core's Engine; a reroster refreshes the map in place
      core: Engine.layerBundle({
        core: { surface: Counter, expose },
        client: Effect.map(
          counter,
          (implemented) => ({ core: Client.erase(Client.directDispatch(implemented)), clients: {} })
        )
      })
    },
    { name: "memory", type: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] }
  ], {
    policy: {
      decide: (call) => call.tool.startsWith("delete") ? McpPolicy.deny("nothing is deleted here") : McpPolicy.allow
    }
  })
  const added = yield* toolset.call("app__counter_add", { value: 2 }) // beside memory__read_graph, …
  return McpCallResult.textOf(added)
}))
