// effect/ai's `McpServer` in the same process as the SDK client that drives it.
//
// effect/ai serves over an `RpcServer.Protocol` whose messages pass through an `RpcSerialization`
// (JSON-RPC text frames), so it cannot take the SDK's `InMemoryTransport` (which hands objects
// across). This is the closest equivalent: an SDK client `Transport` that sends each message as one
// JSON frame into the server's protocol, and receives each encoded response frame back — the same
// construction as effect/ai's own `McpTest`, but with the official SDK `Client` on the other end,
// speaking 2025-11-25 (effect/ai 4.1 also implements 2026-07-28, which the SDK 1.x client cannot).
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Layer, Queue } from "effect"
import type { Scope } from "effect"
import { McpProtocol, McpServer } from "effect/ai"
import { RpcSerialization, RpcServer } from "effect/rpc"
import type { RpcMessage } from "effect/rpc"
import { aiRegistrations, aiServerInfo } from "./workload.ts"

/** The client side of the frame link: each message crosses as one JSON text frame. */
class FrameTransport implements Transport {
  onmessage?: ((message: JSONRPCMessage) => void) | undefined
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  private readonly toServer: (frame: string) => void
  constructor(toServer: (frame: string) => void) {
    this.toServer = toServer
  }
  async start(): Promise<void> {}
  async send(message: JSONRPCMessage): Promise<void> {
    this.toServer(JSON.stringify(message))
  }
  async close(): Promise<void> {
    this.onclose?.()
  }
  deliver(frame: string): void {
    this.onmessage?.(JSON.parse(frame) as JSONRPCMessage)
  }
}

/** Build effect/ai's server for the echo workload in the scope; answer the client transport. */
export const serveEffectAiInMemory: Effect.Effect<Transport, unknown, Scope.Scope> = Effect.gen(function*() {
  const toServer = yield* Queue.unbounded<string>()
  const transport = new FrameTransport((frame) => {
    Queue.offerUnsafe(toServer, frame)
  })
  const serialization = RpcSerialization.jsonRpc({ controlMessages: false })
  const protocol = RpcServer.Protocol.make(Effect.fnUntraced(function*(writeRequest) {
    const parser = serialization.makeUnsafe()
    yield* Queue.take(toServer).pipe(
      Effect.flatMap((frame) =>
        Effect.forEach(
          parser.decode(frame) as ReadonlyArray<RpcMessage.FromClientEncoded>,
          (message) => writeRequest(0, message),
          {
            discard: true
          }
        )
      ),
      Effect.forever,
      Effect.forkScoped
    )
    return {
      disconnects: yield* Queue.make<number>(),
      send: (_clientId: number, response: RpcMessage.FromServerEncoded) =>
        Effect.sync(() => {
          const encoded = parser.encode(response)
          if (typeof encoded === "string") transport.deliver(encoded)
        }),
      end: () => Effect.void,
      clientIds: Effect.succeed(new Set([0])),
      initialMessage: Effect.succeedNone,
      supportsAck: false,
      supportsTransferables: false,
      supportsSpanPropagation: false,
      supportsNotifications: true,
      codecFor: serialization.codecFor
    }
  }))
  yield* Layer.build(
    McpServer.layer({ ...aiServerInfo, protocols: [McpProtocol.v2025_11_25], registrations: aiRegistrations }).pipe(
      Layer.provide(Layer.effect(RpcServer.Protocol, protocol))
    )
  )
  return transport
})
