/**
 * The MCP SDK's client transports, built from a server entry and nothing else.
 *
 * One of two modules that import the SDK's client side (with `Remote.ts`), so the protocol revision
 * can move without touching the toolset. What it hands out is named by this package's own
 * `McpTransport.Transport`, the shape every SDK transport has, so no public signature names an SDK
 * type and a caller's transport of either SDK major fits. Each transport is built the way the
 * toolset's rules need:
 * a child process with an allowlisted environment and its stderr piped to the log (never to our
 * stdout, which may be somebody's protocol); HTTP and SSE with the guarded `fetch` doing every
 * request and redirect, so no request leaves without its host checked.
 *
 * @since 0.1.0
 */
import {
  DEFAULT_INHERITED_ENV_VARS,
  getDefaultEnvironment,
  StdioClientTransport
} from "@modelcontextprotocol/sdk/client/stdio.js"
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import type { Stream } from "node:stream"
import type { Transport } from "../protocol/Transport.ts"
import type * as Diagnostic from "./Diagnostic.ts"
import * as Hosts from "./Hosts.ts"
import * as Child from "./internal/child.ts"
import * as Redact from "./internal/redact.ts"

/**
 * Opens a transport for a caller-supplied server (`type: "transport"`), once per connect: any MCP
 * SDK's client transport (1.x or v2) as it is, or one's own of the same shape (`McpTransport.Transport`).
 *
 * @example
 * ```ts
 * import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
 * import type { McpTransports } from "effect-surface/client"
 * const open: McpTransports.OpenTransport = () => InMemoryTransport.createLinkedPair()[0]
 * ```
 *
 * @since 0.1.0
 */
export type OpenTransport = () => Transport

/**
 * A stdio child's transport: the message channel, and the child's piped stderr (`null` before it
 * starts). The SDK's `StdioClientTransport` is one.
 *
 * @example
 * ```ts
 * import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
 * import type { McpTransports } from "effect-surface/client"
 * const child: McpTransports.StdioTransport = new StdioClientTransport({ command: "mcp-server-memory", stderr: "pipe" })
 * ```
 *
 * @since 0.1.0
 */
export interface StdioTransport extends Transport {
  readonly stderr: Stream | null
}

/**
 * What a stdio transport reads of its entry (a `McpConfig.Stdio` is one); declared here so the
 * config's types can name this module's and not the other way round.
 *
 * @example
 * ```ts
 * import type { McpTransports } from "effect-surface/client"
 * const entry: McpTransports.StdioEntry = { name: "memory", args: ["--quiet"], env: { MEMORY_FILE_PATH: "/tmp/memory.jsonl" } }
 * ```
 *
 * @since 0.1.0
 */
export interface StdioEntry {
  readonly name: string
  readonly args?: ReadonlyArray<string> | undefined
  readonly env?: Readonly<Record<string, string>> | undefined
}

/**
 * What an HTTP transport reads of its entry (a `McpConfig.StreamableHttp` or `McpConfig.Sse` is one).
 *
 * @example
 * ```ts
 * import type { McpTransports } from "effect-surface/client"
 * const entry: McpTransports.HttpEntry = { name: "docs", type: "streamable-http", url: "https://mcp.example.com/mcp" }
 * ```
 *
 * @since 0.1.0
 */
export interface HttpEntry {
  readonly name: string
  readonly type: "streamable-http" | "sse"
  readonly url: string
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/**
 * The variables a stdio child inherits from this process without being named: what a process
 * needs to start (on POSIX `HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`; the Windows
 * equivalents there). Everything else reaches the child only through the entry's `env`.
 *
 * @example
 * ```ts
 * import { McpTransports } from "effect-surface/client"
 * McpTransports.INHERITED_ENV.includes("PATH") // true
 * ```
 *
 * @since 0.1.0
 */
export const INHERITED_ENV: ReadonlyArray<string> = DEFAULT_INHERITED_ENV_VARS

/**
 * A stdio child as the toolset starts it: the command and working directory after containment.
 *
 * @example
 * ```ts
 * import { McpTransports, type McpConfig } from "effect-surface/client"
 * const entry: McpConfig.Stdio = { name: "memory", type: "stdio", command: "mcp-server-memory" }
 * const transport = McpTransports.stdio(entry, { command: entry.command, cwd: entry.cwd })
 * ```
 *
 * @since 0.1.0
 */
export const stdio = (
  config: StdioEntry,
  confined: { readonly command: string; readonly cwd: string | undefined }
): StdioTransport =>
  new StdioClientTransport({
    command: confined.command,
    args: [...(config.args ?? [])],
    // The SDK adds INHERITED_ENV beneath these; nothing else of this process's environment passes.
    env: { ...config.env },
    stderr: "pipe",
    ...(confined.cwd === undefined ? {} : { cwd: confined.cwd })
  })

// A line of a child's stderr past this is cut: a child must not grow our memory without bound.
const MAX_LINE = 8192

/**
 * Sends a child's stderr to the log, a line at a time at Debug level, annotated with the server's
 * name, for as long as the scope lasts, each URL in it without user info or query. Nothing of it
 * reaches stdout.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpTransports } from "effect-surface/client"
 * declare const transport: ReturnType<typeof McpTransports.stdio>
 * const program = Effect.scoped(McpTransports.logStderr(transport, "memory"))
 * ```
 *
 * @since 0.1.0
 */
export const logStderr = (transport: StdioTransport, server: string): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    const stream = transport.stderr
    if (stream === null) return
    const lines = yield* Effect.acquireRelease(Queue.sliding<string>(1024), Queue.shutdown)
    let pending = ""
    const onData = (chunk: Buffer | string) => {
      const parts = (pending + chunk.toString()).split("\n")
      pending = (parts.pop() ?? "").slice(0, MAX_LINE)
      for (const line of parts) if (line !== "") Queue.offerUnsafe(lines, line.slice(0, MAX_LINE))
    }
    stream.on("data", onData)
    yield* Effect.addFinalizer(() => Effect.sync(() => stream.off("data", onData)))
    yield* Queue.take(lines).pipe(
      Effect.flatMap((line) => Effect.logDebug(Redact.text(line))),
      Effect.forever,
      Effect.annotateLogs({ "mcp.server": server, "mcp.stream": "stderr" }),
      Effect.forkScoped
    )
  })

/**
 * A transport as a connect receives it.
 *
 * @example
 * ```ts
 * import type { McpTransports } from "effect-surface/client"
 * declare const opened: McpTransports.Opened
 * opened.transport.close()
 * ```
 *
 * @since 0.1.0
 */
export interface Opened {
  readonly transport: Transport
  /** An SSE transport speaks only 2025-11-25; the others may be asked for 2026-07-28 first. */
  readonly kind?: "sse" | undefined
  /** For Streamable HTTP, where a 2026-07-28 request is posted: the URL, the guarded fetch, the entry's headers. */
  readonly http?: {
    readonly url: URL
    readonly fetch: typeof globalThis.fetch
    readonly headers: Readonly<Record<string, string>>
  } | undefined
  /** For a child process: once it has ended, how (its exit code) and its last stderr lines. */
  readonly ended?: (() => Diagnostic.Exited | undefined) | undefined
}

// The SDK's newline-delimited JSON-RPC, for the child processes the toolset starts itself.
const framing: Child.Framing = { reader: () => new ReadBuffer(), write: serializeMessage }

/**
 * Start a stdio entry's process for a connection: its stderr sent to the log, a line at a time at
 * Debug level, and its last lines kept to say why it ended (`Opened.ended`). Closing the scope
 * closes the channel and ends the process — stdin closed, then `SIGTERM`, then `SIGKILL`, two seconds
 * apart — in the background of `reaper`'s scope when one is given (a toolset's server's: a hung
 * child never holds up the toolset), otherwise before the scope's close completes.
 *
 * @example
 * ```ts
 * import { McpTransports, type McpConfig } from "effect-surface/client"
 * const entry: McpConfig.Stdio = { name: "memory", type: "stdio", command: "mcp-server-memory" }
 * const opened = McpTransports.openStdio(entry, { command: entry.command, cwd: entry.cwd })
 * ```
 *
 * @since 0.1.0
 */
export const openStdio = (
  config: StdioEntry,
  confined: { readonly command: string; readonly cwd: string | undefined },
  reaper?: Child.Reaper
): Effect.Effect<Opened, never, Scope.Scope> =>
  Effect.gen(function*() {
    const lines = yield* Effect.acquireRelease(Queue.sliding<string>(1024), Queue.shutdown)
    yield* Queue.take(lines).pipe(
      Effect.flatMap((line) => Effect.logDebug(Redact.text(line))),
      Effect.forever,
      Effect.annotateLogs({ "mcp.server": config.name, "mcp.stream": "stderr" }),
      Effect.forkScoped
    )
    const child = yield* Child.make(
      {
        command: confined.command,
        args: config.args ?? [],
        // The SDK's inherited variables beneath the entry's; nothing else of this process's environment passes.
        env: { ...getDefaultEnvironment(), ...config.env },
        cwd: confined.cwd,
        framing
      },
      reaper ?? (yield* Child.reaper),
      (line) => Queue.offerUnsafe(lines, line)
    )
    return {
      transport: child.transport,
      ended: () => {
        const exited = child.exited()
        return exited === undefined ? undefined : { ...exited, stderr: exited.stderr.map(Redact.text) }
      }
    }
  })

/**
 * What an HTTP transport needs beyond its entry: the hosts it may reach (and whether only at public
 * addresses) and the bearer of the moment.
 *
 * @example
 * ```ts
 * import type { McpTransports } from "effect-surface/client"
 * const guard: McpTransports.HttpGuard = { allowed: ["mcp.example.com"], bearer: () => undefined }
 * ```
 *
 * @since 0.1.0
 */
export interface HttpGuard {
  readonly allowed: ReadonlyArray<string>
  /** The hosts were allowed by default, not named: reach public addresses only (`McpHosts`). */
  readonly publicOnly?: boolean | undefined
  readonly bearer: () => string | undefined
  /** Wraps the guarded `fetch` (an OAuth sign-in answering a 401 there). */
  readonly wrap?: ((fetch: GuardedFetch) => GuardedFetch) | undefined
}

type GuardedFetch = (input: string | URL, init?: RequestInit) => Promise<Response>

const guardFor = (config: HttpEntry, guard: HttpGuard): GuardedFetch => {
  const guarded = Hosts.guardedFetch({
    allowed: guard.allowed,
    publicOnly: guard.publicOnly,
    url: new URL(config.url),
    bearer: guard.bearer,
    secretHeaders: Object.keys(config.headers ?? {})
  })
  return guard.wrap === undefined ? guarded : guard.wrap(guarded)
}

/**
 * A Streamable HTTP transport whose every request goes through the guarded `fetch`.
 *
 * @example
 * ```ts
 * import { McpTransports } from "effect-surface/client"
 * const transport = McpTransports.streamableHttp(
 *   { name: "docs", type: "streamable-http", url: "https://mcp.example.com/mcp" },
 *   { allowed: ["mcp.example.com"], bearer: () => undefined }
 * )
 * ```
 *
 * @since 0.1.0
 */
export const streamableHttp = (config: HttpEntry, guard: HttpGuard): Transport =>
  new StreamableHTTPClientTransport(new URL(config.url), {
    fetch: guardFor(config, guard),
    // The guard follows redirects itself, checking every hop; the SDK must hand them to it.
    redirectPolicy: "follow",
    requestInit: { headers: { ...config.headers } }
  })

/**
 * An HTTP+SSE transport whose event stream and posts both go through the guarded `fetch`.
 *
 * @example
 * ```ts
 * import { McpTransports } from "effect-surface/client"
 * const transport = McpTransports.sse(
 *   { name: "legacy", type: "sse", url: "https://mcp.example.com/sse" },
 *   { allowed: ["mcp.example.com"], bearer: () => undefined }
 * )
 * ```
 *
 * @since 0.1.0
 */
export const sse = (config: HttpEntry, guard: HttpGuard): Transport => {
  const fetch = guardFor(config, guard)
  return new SSEClientTransport(new URL(config.url), {
    fetch,
    eventSourceInit: { fetch },
    redirectPolicy: "follow",
    requestInit: { headers: { ...config.headers } }
  })
}

/**
 * An HTTP entry's transport, Streamable HTTP or SSE by its `type`.
 *
 * @example
 * ```ts
 * import { McpTransports } from "effect-surface/client"
 * const opened = McpTransports.openHttp({ name: "docs", type: "sse", url: "https://mcp.example.com/sse" }, { allowed: ["mcp.example.com"], bearer: () => undefined })
 * ```
 *
 * @since 0.1.0
 */
export const openHttp = (config: HttpEntry, guard: HttpGuard): Opened =>
  config.type === "sse" ? { transport: sse(config, guard), kind: "sse" } : {
    transport: streamableHttp(config, guard),
    http: {
      url: new URL(config.url),
      fetch: guardFor(config, guard) as typeof globalThis.fetch,
      headers: { ...config.headers }
    }
  }

/**
 * Ends what a transport holds open on the far side before it is closed: an HTTP session is deleted
 * (`DELETE`, bounded by `within`); anything else has nothing to end.
 *
 * @example
 * ```ts
 * import { McpTransports } from "effect-surface/client"
 * declare const transport: ReturnType<typeof McpTransports.streamableHttp>
 * const bye = McpTransports.endSession(transport, "2 seconds")
 * ```
 *
 * @since 0.1.0
 */
export const endSession = (transport: Transport, within: `${number} seconds`): Effect.Effect<void> =>
  transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined
    ? Effect.tryPromise(() => transport.terminateSession()).pipe(Effect.timeout(within), Effect.ignore)
    : Effect.void
