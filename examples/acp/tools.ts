// The session's tools: what `tools` lists and `call` calls. A client toolset over the MCP servers the
// editor sent in `session/new`, built once per session and shared by its turns. Every call asks the
// person first: the policy says *ask*, and the toolset puts that to the editor's permission prompt on
// the calling turn, so a no, a dismissed prompt or a doubtful answer sends nothing to the server.
import { AcpToolset } from "effect-surface/acp"
import { McpPolicy } from "effect-surface/client"

export const options: AcpToolset.Options = {
  policy: { decide: () => McpPolicy.ask },
  // An editor waits for session/new: a server that does not come up in time is left out, and said so.
  connectTimeoutMs: 15_000
}

/** The session's toolset, as the `McpToolset` service of its turns. */
export const layer = AcpToolset.layer(options)
