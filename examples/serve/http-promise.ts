import { Effect } from "effect"
import { Client } from "effect-surface"
import { serveSurfaceAsMcp } from "effect-surface/mcp"
import { counter, Counter, expose } from "../quickstart.ts"

// Outside Effect: the same server over Streamable HTTP, resolved once it is listening.
export const main = async () => {
  const implemented = await Effect.runPromise(counter)
  const served = await serveSurfaceAsMcp({
    core: { surface: Counter, expose },
    client: () => ({ core: Client.erase(Client.directDispatch(implemented)), clients: {} }),
    serverInfo: { name: "counter", version: "1.0.0" },
    transport: { transport: "http", port: Number(process.env["PORT"] ?? 0), host: "127.0.0.1" }
  })
  process.once("SIGTERM", () => void served.close())
  await served.closed // close() stopped it, and everything was disposed
}

if (import.meta.main) await main()
