// Running Effect pieces of the bench from plain async code: a scope held open until closed, with
// logs quietened (warnings and worse, on stderr) so stdout carries only the figures.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { Effect, Exit, Logger, References, Scope } from "effect"
import { McpSession2025 } from "effect-surface/mcp"
import type { McpFace } from "effect-surface/mcp"

export const quiet = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  effect.pipe(
    Effect.provideService(References.MinimumLogLevel, "Warn"),
    Effect.provideService(Logger.LogToStderr, true)
  )

/** A scope held open by plain code: run scoped effects in it, close it when done. */
export interface Held {
  readonly run: <A, E>(effect: Effect.Effect<A, E, Scope.Scope>) => Promise<A>
  readonly close: () => Promise<void>
}

export const hold = async (): Promise<Held> => {
  const scope = await Effect.runPromise(Scope.make())
  return {
    run: (effect) => Effect.runPromise(quiet(Scope.provide(scope)(effect))),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

export const newClient = (name = "bench"): Client => new Client({ name, version: "0.0.0" }, { capabilities: {} })

/** An SDK client connected to one more session of our face, over an in-memory pair. */
export const connectOurs = async (held: Held, face: McpFace.Face): Promise<Client> => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await held.run(McpSession2025.connect(face, serverSide))
  const client = newClient()
  await client.connect(clientSide)
  return client
}

/** An SDK client connected to a raw SDK server over an in-memory pair. */
export const connectRaw = async (server: Server): Promise<Client> => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = newClient()
  await client.connect(clientSide)
  return client
}

export const connectTransport = async (transport: Transport): Promise<Client> => {
  const client = newClient()
  await client.connect(transport)
  return client
}
