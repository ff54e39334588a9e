// An SDK client with declared capabilities, connected to a face in memory, recording what it hears
// and which request each server message was related to.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import {
  type JSONRPCMessage,
  type CallToolResult,
  type ClientCapabilities,
  type LoggingMessageNotification,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Effect, Queue } from "effect"
import type { Scope } from "effect"
import type * as Face from "../../src/mcp/face/Face.ts"
import * as Session from "../../src/mcp/v2025/Session.ts"

export interface Host {
  readonly client: Client
  readonly messages: Queue.Queue<LoggingMessageNotification["params"]>
  readonly listChanged: Queue.Queue<"tools" | "resources" | "prompts">
  readonly updated: Queue.Queue<string>
  /** Every message the server sent, with the request id the transport was told it relates to. */
  readonly sent: ReadonlyArray<{ readonly message: JSONRPCMessage; readonly relatedRequestId: unknown }>
}

export const host = (
  face: Face.Face,
  capabilities: ClientCapabilities = {},
  setup?: (client: Client) => void
): Effect.Effect<Host, never, Scope.Scope> =>
  Effect.gen(function*() {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    const sent: Array<{ readonly message: JSONRPCMessage; readonly relatedRequestId: unknown }> = []
    const send = serverSide.send.bind(serverSide)
    serverSide.send = (message, options) => {
      sent.push({ message, relatedRequestId: options?.relatedRequestId })
      return send(message, options)
    }
    yield* Session.connect(face, serverSide)
    const client = new Client({ name: "test-host", version: "1.0.0" }, { capabilities })
    setup?.(client)
    const messages = yield* Queue.unbounded<LoggingMessageNotification["params"]>()
    const listChanged = yield* Queue.unbounded<"tools" | "resources" | "prompts">()
    const updated = yield* Queue.unbounded<string>()
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      Queue.offerUnsafe(messages, n.params)
    })
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      Queue.offerUnsafe(listChanged, "tools")
    })
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      Queue.offerUnsafe(listChanged, "resources")
    })
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => {
      Queue.offerUnsafe(listChanged, "prompts")
    })
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      Queue.offerUnsafe(updated, n.params.uri)
    })
    yield* Effect.acquireRelease(
      Effect.promise(() => client.connect(clientSide)),
      () => Effect.promise(() => client.close())
    )
    return { client, messages, listChanged, updated, sent }
  })

/** Everything a queue holds now, without waiting. */
export const drain = <A>(queue: Queue.Queue<A>): Effect.Effect<ReadonlyArray<A>> =>
  Effect.map(Queue.clear(queue), (items) => [...items])

/** Call a tool through a host's SDK client. */
export const call = (h: { readonly client: Client }, name: string, args: Record<string, unknown> = {}) =>
  // The SDK's return type also admits a pre-2025 `toolResult` shape this server never sends.
  Effect.promise(() => h.client.callTool({ name, arguments: args }) as Promise<CallToolResult>)
