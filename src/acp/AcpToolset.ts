/**
 * A session's tools: a client toolset over the MCP servers the editor sent in `session/new`.
 *
 * Where the faces meet. The person configures MCP servers in their editor, and the editor hands
 * them to the agent with each new session; the agent connects them as a client toolset, and the
 * toolset's policy *ask* is put to the person in the same editor, through `session/request_permission`
 * on the calling turn (failing closed: no turn, no yes), as is a server's form (`elicitation/create`,
 * declined when there is no turn to ask through). The editor's list is as untrusted as any
 * config file — it goes through the toolset's own checks, under the agent's options (`policy`,
 * `allowedHosts`, `stdio.root`, deadlines); only the list is the editor's. The toolset is loaded
 * when the first session builds one, so an agent that never does pays nothing for the MCP client at
 * start.
 *
 * @since 0.1.0
 */
import type * as Acp from "@agentclientprotocol/sdk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import type * as Config from "../client/Config.ts"
import { WiringError } from "../client/Errors.ts"
import type * as McpToolset from "../client/McpToolset.ts"
import * as AcpApproval from "./AcpApproval.ts"
import * as AcpElicit from "./AcpElicit.ts"
import type { Info } from "./AcpSession.ts"

/**
 * What the toolset may use of MCP, advertised at `initialize` as `agentCapabilities.mcpCapabilities`:
 * servers over Streamable HTTP (ACP's `http`) and over SSE, beside stdio, which every agent takes.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AcpAgent, AcpToolset } from "effect-surface/acp"
 *
 * const agent = AcpAgent.layer(() => Effect.void, {
 *   agentCapabilities: { mcpCapabilities: AcpToolset.mcpCapabilities },
 *   session: AcpToolset.layer()
 * })
 * ```
 *
 * @since 0.1.0
 */
export const mcpCapabilities: Acp.McpCapabilities = { http: true, sse: true }

/**
 * The toolset's options: the same for every session, or made from the session (its `cwd` for
 * `roots`, its id for `session` and `auth`).
 *
 * @example
 * ```ts
 * import { pathToFileURL } from "node:url"
 * import type { AcpToolset } from "effect-surface/acp"
 * import { McpPolicy } from "effect-surface/client"
 *
 * const options: AcpToolset.Options = (session) => ({
 *   policy: { decide: () => McpPolicy.ask },
 *   roots: [{ uri: pathToFileURL(session.cwd).href }]
 * })
 * ```
 *
 * @since 0.1.0
 */
export type Options<S = unknown> = Config.Options<S> | ((session: Info) => Config.Options<S>)

type Named = { readonly name: string; readonly value: string }

// Name-value pairs as a record; a name given twice is refused, not silently overwritten.
// Header names are compared as HTTP compares them, without case.
const recordOf = (
  pairs: ReadonlyArray<Named>,
  what: string,
  label: string,
  caseless: boolean
): Result.Result<Record<string, string>, WiringError> => {
  const record: Record<string, string> = {}
  const seen = new Set<string>()
  for (const { name, value } of pairs) {
    const key = caseless ? name.toLowerCase() : name
    if (seen.has(key))
      return Result.fail(new WiringError({ reason: `${label} cannot be used: it names ${what} ${name} twice` }))
    seen.add(key)
    record[name] = value
  }
  return Result.succeed(record)
}

const serverOf = (server: Acp.McpServer, index: number, cwd: string): Result.Result<Config.Remote, WiringError> => {
  const label = `server "${server.name}" (entry ${index})`
  if ("type" in server && (server.type === "http" || server.type === "sse")) {
    const type = server.type === "http" ? "streamable-http" : "sse"
    return Result.map(
      recordOf(server.headers, "the header", label, true),
      (headers) => ({ name: server.name, type, url: server.url, headers })
    )
  }
  const stdio = server as Acp.McpServerStdio
  return Result.map(recordOf(stdio.env, "the variable", label, false), (env) => ({
    name: stdio.name,
    type: "stdio",
    command: stdio.command,
    args: stdio.args,
    env,
    cwd
  }))
}

/**
 * The editor's `mcpServers` as toolset entries: stdio servers run in the session's folder with the
 * environment given (as a record), `http` is Streamable HTTP and `sse` stays SSE, headers as a
 * record. A name given twice in one server's `env` or `headers` is a `WiringError` naming it; the
 * entries are then checked again, as every toolset's are, when it is made.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AcpToolset } from "effect-surface/acp"
 *
 * const entries = AcpToolset.servers([
 *   { name: "memory", command: "mcp-server-memory", args: [], env: [{ name: "MEMORY_FILE_PATH", value: "/tmp/m.jsonl" }] },
 *   { type: "http", name: "docs", url: "https://mcp.example.com/mcp", headers: [] }
 * ], "/repo")
 * Effect.runSync(entries)[0] // { name: "memory", type: "stdio", …, env: { MEMORY_FILE_PATH: "/tmp/m.jsonl" }, cwd: "/repo" }
 * ```
 *
 * @since 0.1.0
 */
export const servers = (
  mcpServers: ReadonlyArray<Acp.McpServer>,
  cwd: string
): Effect.Effect<ReadonlyArray<Config.Remote>, WiringError> =>
  Effect.suspend(() => Effect.fromResult(Result.all(mcpServers.map((server, index) => serverOf(server, index, cwd)))))

// Loaded on first use: the MCP client costs a stdio agent's start about as much as the rest of it.
const load = Effect.promise(() => import("../client/McpToolset.ts"))

// The agent's options, with a server's forms put to the person in the editor unless the agent
// answers them itself.
const optionsFor = <S>(options: Options<S> | undefined, session: Info): Config.Options<S> => {
  const given = typeof options === "function" ? options(session) : options ?? {}
  return given.elicit === undefined ? { ...given, elicit: AcpElicit.elicit } : given
}

/**
 * The session's toolset, open in the current scope: its servers from `session/new`, its options
 * the agent's, and its policy's asks answered by the calling turn's editor (`AcpApproval`),
 * whatever `Approval` the context holds. Fails only on a configuration the toolset refuses; a
 * server that cannot be reached is a diagnostic and the others load.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AcpSession, AcpToolset } from "effect-surface/acp"
 * import { McpPolicy } from "effect-surface/client"
 *
 * const names = Effect.gen(function*() {
 *   const session = yield* AcpSession.AcpSession
 *   const toolset = yield* AcpToolset.make(session, { policy: { decide: () => McpPolicy.ask } })
 *   return [...(yield* toolset.tools).keys()]
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
export const make: <S = unknown>(
  session: Info,
  options?: Options<S>
) => Effect.Effect<McpToolset.Toolset, WiringError, Scope.Scope> = Effect.fn("AcpToolset.make")(
  function*<S>(session: Info, options?: Options<S>) {
    const entries = yield* servers(session.mcpServers, session.cwd)
    const { make } = yield* load
    return yield* make(entries, optionsFor(options, session)).pipe(Effect.provide(AcpApproval.layer))
  }
)

/**
 * The session's toolset as the `McpToolset` service of its turns: give it to `AcpAgent` as
 * `session`, and every session gets its own, built at `session/new` (which answers once each server
 * has connected or failed, within `connectTimeoutMs`) and closed with the connection. Advertise
 * `mcpCapabilities` beside it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AcpAgent, AcpToolset } from "effect-surface/acp"
 * import { McpPolicy, McpToolset } from "effect-surface/client"
 *
 * const turn = () =>
 *   Effect.gen(function*() {
 *     const toolset = yield* McpToolset.McpToolset
 *     yield* toolset.call("memory__read_graph", {})
 *   }).pipe(Effect.ignore)
 *
 * const serve = AcpAgent.serveStdio(turn, {
 *   agentCapabilities: { mcpCapabilities: AcpToolset.mcpCapabilities },
 *   session: AcpToolset.layer({ policy: { decide: () => McpPolicy.ask }, connectTimeoutMs: 10_000 })
 * })
 * ```
 *
 * @since 0.1.0
 */
export const layer = <S = unknown>(
  options?: Options<S>
): (session: Info) => Layer.Layer<McpToolset.McpToolset, WiringError> =>
(session) => Layer.unwrap(Effect.map(load, (module) => Layer.effect(module.McpToolset, make(session, options))))
