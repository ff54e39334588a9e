/**
 * Serving plain tools from outside Effect: `serveTools`, the MCP face's Promise API over the bundle
 * `ServeTools.bundle` builds.
 *
 * Callers of plain tools mostly live outside Effect, so this is the door they use. It is not a
 * second server: the tools are checked by the same `ServeTools.rootTools` the Effect forms use,
 * then served by `serveSurfaceAsMcp`, which runs the MCP face's own layers in a `ManagedRuntime`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { type HttpTransport, serveSurfaceAsMcp, type ServeOptions } from "../mcp/Promise.ts"
import type { Transport } from "../protocol/Transport.ts"
import * as ServeTools from "./ServeTools.ts"

/**
 * How `serveTools` serves: the MCP face's Promise settings (server info, instructions, …), the
 * credential provider for tools that declare `needs`, and the transport — this process's stdio when
 * omitted, an SDK transport, or Streamable HTTP with `{ transport: "http", port, host }`.
 *
 * @example
 * ```ts
 * import type { ServeToolsOptions } from "effect-surface/serve"
 * const options: ServeToolsOptions = {
 *   serverInfo: { name: "support-desk", version: "1.0.0" },
 *   transport: { transport: "http", port: 0, host: "127.0.0.1" }
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface ServeToolsOptions
  extends Omit<ServeOptions, "client" | "core" | "surfaces" | "tools" | "server" | "tombstoneCap">
{
  readonly credentials?: ServeTools.Options["credentials"]
}

/**
 * What `serveTools` answers over stdio (or a given transport): how to stop, and when it has stopped.
 *
 * @example
 * ```ts
 * import type { ServedTools } from "effect-surface/serve"
 * declare const served: ServedTools
 * await served.closed // the host disconnected or closed stdin, and everything was released
 * ```
 *
 * @since 0.1.0
 */
export interface ServedTools {
  /** Stop serving and release everything. */
  readonly close: () => Promise<void>
  /** Settles once serving has ended — the host left, stdin ended, or `close` — and all is released. */
  readonly closed: Promise<void>
}

/**
 * What `serveTools` answers over HTTP, once listening: the bound port (the one the system chose
 * for port 0), the host and the endpoint's URL, beside `close`.
 *
 * @example
 * ```ts
 * import type { HttpServedTools } from "effect-surface/serve"
 * declare const served: HttpServedTools
 * console.log(`claude mcp add --transport http desk ${served.url}`)
 * await served.close() // in-flight calls answer, then the port is released
 * ```
 *
 * @since 0.1.0
 */
export interface HttpServedTools extends ServedTools {
  readonly port: number
  readonly host: string
  readonly url: string
}

/**
 * Serve plain tool objects as an MCP server. Each tool is held by reference — its `execute` is
 * looked up on the object at every call — with its JSON Schema advertised verbatim and checked by
 * the core before `execute` runs, its declarations in `_meta` under `effect-surface/declarations`,
 * and its failures framed as `isError` results. Rejects, with nothing started, with a
 * `ServeToolsError` naming the tool (`NoTools`, `DuplicateTool`, `CheckInUnsupported`,
 * `CredentialsMissing`, `MalformedTool`) or a `ResolveError` (an illegal name, a schema no call
 * could pass). Over HTTP it resolves only once listening.
 *
 * @example
 * ```ts
 * import { serveTools } from "effect-surface/serve"
 *
 * const lookup = {
 *   name: "lookup",
 *   description: "Look an order up by id.",
 *   inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
 *   execute: async (args: { readonly id: string }) => ({ id: args.id, status: "shipped" })
 * }
 * const served = await serveTools([lookup], { transport: { transport: "http", port: 0, host: "127.0.0.1" } })
 * console.log(served.url) // http://127.0.0.1:<port>/mcp
 * await served.close()
 * ```
 *
 * @since 0.1.0
 */
export const serveTools = (async (
  tools: ReadonlyArray<ServeTools.PlainTool>,
  options?: ServeToolsOptions
): Promise<ServedTools | HttpServedTools> => {
  const { credentials, transport, ...settings } = options ?? {}
  const bundle = await Effect.runPromise(ServeTools.bundle(tools, { credentials }))
  const served = { ...settings, ...bundle, client: () => ({ clients: {} }) }
  if (transport !== undefined && isHttp(transport)) {
    const { close, closed, host, port, url } = await serveSurfaceAsMcp({ ...served, transport })
    return { close, closed, host, port, url }
  }
  const { close, closed } = await serveSurfaceAsMcp(transport === undefined ? served : { ...served, transport })
  return { close, closed }
}) as {
  (
    tools: ReadonlyArray<ServeTools.PlainTool>,
    options: ServeToolsOptions & { readonly transport: HttpTransport }
  ): Promise<HttpServedTools>
  (tools: ReadonlyArray<ServeTools.PlainTool>, options?: ServeToolsOptions): Promise<ServedTools>
}

const isHttp = (transport: Transport | HttpTransport): transport is HttpTransport =>
  "transport" in transport && transport.transport === "http"
