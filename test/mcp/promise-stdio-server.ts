// The Promise API served over this process's stdio, as a host would start it: a tool that prints
// with `console.log`, and a client connection that (like a socket to a daemon) keeps the process
// alive until it is disposed. Started by `StdioDoors.test.ts`.
import { Effect } from "effect"
import { Tools } from "effect-surface"
import { serveSurfaceAsMcp } from "effect-surface/mcp"
import { Board, boardExpose, makeClients } from "../../examples/board/app.ts"

const { clients } = await Effect.runPromise(makeClients)
const connection = setInterval(() => {}, 60_000)

const served = await serveSurfaceAsMcp({
  core: { surface: Board, expose: boardExpose },
  tools: {
    shout: Tools.make({
      description: "Print a line with console.log.",
      mutates: false,
      handler: () => Effect.sync(() => console.log("shouted from a handler"))
    })
  },
  client: () => ({
    client: clients,
    dispose: () => {
      clearInterval(connection)
      process.stderr.write("connection disposed\n")
    }
  })
})
await served.closed
process.stderr.write("served closed\n")
