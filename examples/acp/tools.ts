// The session's tools: what `tools` lists and `call` calls. Built at `session/new` from the MCP
// servers the editor sent, once per session, and shared by its turns.
//
// The seam the client toolset plugs into: `McpToolset.make(servers, options)` yields a toolset with
// `tools` and `call(name, args)`, and its "ask" policy reaches the person through the turn's
// `Approval` (the editor's permission prompt). Until that toolset is in this package, a session
// lists the servers it was given and explains that it cannot connect them yet.
import type { McpServer } from "@agentclientprotocol/sdk"
import { Context, Data, Effect, Layer } from "effect"
import { AcpSession } from "effect-surface/acp"

export interface Tool {
  readonly name: string
  readonly description?: string | undefined
}

export class ToolUnavailable extends Data.TaggedError("ToolUnavailable")<{ readonly message: string }> {}

export class SessionTools extends Context.Service<SessionTools, {
  /** The servers the editor asked for, by name. */
  readonly servers: ReadonlyArray<string>
  readonly tools: ReadonlyArray<Tool>
  /** Why there are no tools, when there are none to offer. */
  readonly unavailable: string | undefined
  readonly call: (name: string, args: unknown) => Effect.Effect<unknown, ToolUnavailable>
}>()("examples/acp/SessionTools") {}

const nameOf = (server: McpServer): string => server.name

/** The session's tools, from the `mcpServers` of its `session/new`. */
export const layer: Layer.Layer<SessionTools, never, AcpSession.AcpSession> = Layer.effect(
  SessionTools,
  Effect.gen(function*() {
    const session = yield* AcpSession.AcpSession
    const servers = session.mcpServers.map(nameOf)
    const unavailable = servers.length === 0
      ? "this session has no MCP servers (the editor sent none in session/new)"
      : `this agent cannot connect MCP servers yet (${
        servers.join(", ")
      }): the client toolset is not part of this build`
    return SessionTools.of({
      servers,
      tools: [],
      unavailable,
      call: (name) => Effect.fail(new ToolUnavailable({ message: `there is no tool ${name}: ${unavailable}` }))
    })
  })
)
