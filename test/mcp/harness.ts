// Connects the official SDK Client to a served face over an in-memory transport pair.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import {
  type CallToolResult,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Effect, Queue } from "effect"
import type { Scope } from "effect"
import type * as Bundle from "../../src/core/Bundle.ts"
import * as Face from "../../src/mcp/face/Face.ts"
import * as SessionOpen from "../../src/mcp/v2025/internal/sessionOpen.ts"
import type * as Session from "../../src/mcp/v2025/Session.ts"

export interface Connected {
  readonly face: Face.Face
  readonly session: SessionOpen.Opened
  readonly client: Client
  /** Every notification the client received, by kind, in order. */
  readonly updated: Queue.Queue<string>
  readonly listChanged: Queue.Queue<"tools" | "resources">
}

/** Connect one more SDK client to an existing face. */
export const connectTo = (
  face: Face.Face,
  options?: Session.ConnectOptions
): Effect.Effect<Connected, never, Scope.Scope> =>
  Effect.gen(function*() {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    const session = yield* SessionOpen.connect(face, serverSide, options)
    const client = new Client({ name: "test-host", version: "1.0.0" }, { capabilities: {} })
    const updated = yield* Queue.unbounded<string>()
    const listChanged = yield* Queue.unbounded<"tools" | "resources">()
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      Queue.offerUnsafe(updated, n.params.uri)
    })
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      Queue.offerUnsafe(listChanged, "tools")
    })
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      Queue.offerUnsafe(listChanged, "resources")
    })
    yield* Effect.acquireRelease(
      Effect.promise(() => client.connect(clientSide)),
      () => Effect.promise(() => client.close())
    )
    return { face, session, client, updated, listChanged }
  })

/** Build a face from options and connect an SDK client to it. */
export const connect = <E, R, C extends Bundle.Clients>(options: Face.Options<E, R, C>) =>
  Effect.flatMap(Face.make(options), connectTo)

/** Call a tool through the SDK client. */
export const call = (c: Connected, name: string, args: Record<string, unknown> = {}) =>
  // The SDK's return type also admits a pre-2025 `toolResult` shape this server never sends.
  Effect.promise(() => c.client.callTool({ name, arguments: args }) as Promise<CallToolResult>)

/** The first text block of a tool result. */
export const textOf = (result: { readonly content?: unknown }): string => {
  const content = Array.isArray(result.content) ? result.content : []
  const first: unknown = content[0]
  return typeof first === "object" && first !== null && "text" in first && typeof first.text === "string" ? first.text
    : ""
}
