import { Effect } from "effect"
import { Client } from "effect-surface"
import { serveSurfaceAsMcp } from "effect-surface/mcp/stdio"
import { counter, Counter, expose } from "../quickstart.ts"

// Outside Effect: the same server over this process's stdio, as a Promise.
export const main = async () => {
  const implemented = await Effect.runPromise(counter)
  const served = await serveSurfaceAsMcp({
    core: { surface: Counter, expose },
    client: () => ({ core: Client.erase(Client.directDispatch(implemented)), clients: {} }),
    serverInfo: { name: "counter", version: "1.0.0" }
  })
  await served.closed // the host closed the connection, and everything was disposed
}

if (import.meta.main) await main()
