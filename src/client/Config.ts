/**
 * What a toolset is told: the servers to connect and the options around them, and every refusal
 * owed before anything is spawned or dialled.
 *
 * Server lists arrive from files somebody else wrote (an `mcp.json`, a plugin, an editor's session
 * request), so each entry is decoded and a bad one refused naming the entry and the field
 * (`internal/entries.ts`). Every option's shape is checked too, and options that cannot work
 * together are refused (`internal/options.ts`): each would otherwise fail later, for somebody else.
 *
 * @since 0.1.0
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as Caller from "../core/Caller.ts"
import type * as Engine from "../core/Engine.ts"
import type * as Roster from "../core/Roster.ts"
import type { Diagnostic } from "./Diagnostic.ts"
import type * as Disclosure from "./Disclosure.ts"
import type { WiringError } from "./Errors.ts"
import * as Entries from "./internal/entries.ts"
import * as Names from "./Names.ts"
import type * as OAuth from "./OAuth.ts"
import type * as Policy from "./Policy.ts"
import type * as Questions from "./Questions.ts"
import type * as Store from "./Store.ts"
import type * as TokenStore from "./TokenStore.ts"
import type { OpenTransport } from "./Transports.ts"

/**
 * What every server entry may say: its name, and its own deadlines (milliseconds) over the
 * toolset's.
 *
 * @example
 * ```ts
 * import type { McpConfig } from "effect-surface/client"
 * const common: McpConfig.Common = { name: "docs", timeoutMs: 10_000, connectTimeoutMs: 3_000 }
 * ```
 *
 * @since 0.1.0
 */
export interface Common {
  readonly name: string
  /** Deadline of each request to this server (default: the toolset's `timeoutMs`). */
  readonly timeoutMs?: number | undefined
  /** Deadline of one connect — spawn or dial, and the handshake (default: the toolset's). */
  readonly connectTimeoutMs?: number | undefined
  /** The revision to speak to this server in, over the toolset's `protocol` (default `"auto"`). */
  readonly protocol?: Protocol | undefined
}

/**
 * A server run as a child process, spoken to over its stdin and stdout.
 *
 * @example
 * ```ts
 * import type { McpConfig } from "effect-surface/client"
 * const memory: McpConfig.Stdio = { name: "memory", type: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] }
 * ```
 *
 * @since 0.1.0
 */
export interface Stdio extends Common {
  readonly type: "stdio"
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  /** The child's whole environment beyond the few variables a process needs to start. */
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly cwd?: string | undefined
  /** Confine command and cwd to this directory (overrides the toolset's `stdio.root`). */
  readonly root?: string | undefined
}

/**
 * A server over Streamable HTTP.
 *
 * @example
 * ```ts
 * import type { McpConfig } from "effect-surface/client"
 * const docs: McpConfig.StreamableHttp = { name: "docs", type: "streamable-http", url: "https://mcp.example.com/mcp" }
 * ```
 *
 * @since 0.1.0
 */
export interface StreamableHttp extends Common {
  readonly type: "streamable-http"
  readonly url: string
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** Sign in with OAuth when the server asks (`McpOAuth`); the toolset's `authorize` takes the person there. */
  readonly oauth?: OAuth.ServerOptions | undefined
}

/**
 * A server over the older HTTP+SSE transport.
 *
 * @example
 * ```ts
 * import type { McpConfig } from "effect-surface/client"
 * const legacy: McpConfig.Sse = { name: "legacy", type: "sse", url: "https://mcp.example.com/sse" }
 * ```
 *
 * @since 0.1.0
 */
export interface Sse extends Common {
  readonly type: "sse"
  readonly url: string
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** Sign in with OAuth when the server asks (`McpOAuth`). */
  readonly oauth?: OAuth.ServerOptions | undefined
}

/**
 * A server reached over a transport the caller opens (an in-process pair, a socket): `open` runs
 * once per connect. No host check applies; the caller chose the peer.
 *
 * @example
 * ```ts
 * import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
 * import type { McpConfig } from "effect-surface/client"
 * declare const serve: (transport: InMemoryTransport) => void
 * const local: McpConfig.Custom = {
 *   name: "local",
 *   type: "transport",
 *   open: () => {
 *     const [client, server] = InMemoryTransport.createLinkedPair()
 *     serve(server)
 *     return client
 *   }
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Custom extends Common {
  readonly type: "transport"
  readonly open: OpenTransport
}

/**
 * A bundle of this process's own surfaces, beside the remote servers: its exposed procedures and
 * bespoke tools are named `${name}__${tool}` and called through the core's engine, under the same
 * policy, filter and deadlines. `core` is the bundle's engine and roster — already running (the
 * context `Layer.build(Engine.layerBundle(…))` gives, shared with any face serving the same
 * bundle), or a layer the toolset builds in its own scope, within `connectTimeoutMs`. A reroster
 * refreshes the tool map in place.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Engine, type Bundle, type Surface } from "effect-surface"
 * import type { McpConfig } from "effect-surface/client"
 *
 * declare const Notes: Surface.Spec
 * declare const clients: Bundle.Clients
 * const notes: McpConfig.Local = {
 *   name: "notes",
 *   type: "local",
 *   core: Engine.layerBundle({ core: { surface: Notes, expose: {} }, client: Effect.succeed(clients) })
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Local extends Common {
  readonly type: "local"
  readonly core: Context.Context<LocalCore> | Layer.Layer<LocalCore, unknown>
}

/**
 * The core services a local entry is called through.
 *
 * @example
 * ```ts
 * import type { Context } from "effect"
 * import type { McpConfig } from "effect-surface/client"
 * declare const core: Context.Context<McpConfig.LocalCore>
 * ```
 *
 * @since 0.1.0
 */
export type LocalCore = Engine.Engine | Roster.Roster

/**
 * A server reached over MCP: any entry but a local bundle.
 *
 * @example
 * ```ts
 * import type { McpConfig } from "effect-surface/client"
 * const memory: McpConfig.Remote = { name: "memory", type: "stdio", command: "mcp-server-memory" }
 * ```
 *
 * @since 0.1.0
 */
export type Remote = Stdio | StreamableHttp | Sse | Custom

/**
 * Any server entry.
 *
 * @example
 * ```ts
 * import type { McpConfig } from "effect-surface/client"
 * const servers: ReadonlyArray<McpConfig.Server> = [{ name: "memory", type: "stdio", command: "mcp-server-memory" }]
 * ```
 *
 * @since 0.1.0
 */
export type Server = Remote | Local

/**
 * What the toolset's functions learn about the caller: the session the toolset belongs to.
 *
 * @example
 * ```ts
 * import type { McpConfig } from "effect-surface/client"
 * const context: McpConfig.SessionContext<{ readonly user: string }> = { session: { user: "ada" } }
 * ```
 *
 * @since 0.1.0
 */
export interface SessionContext<S> {
  readonly session: S
}

/**
 * How a toolset behaves. Deadlines are milliseconds. `auth` and a function `allowedHosts` need
 * `session`: what they resolve is fixed onto the connection, so such a toolset belongs to one
 * session — build one per session. `allowedHosts` left out allows exactly the hosts the servers'
 * own URLs name, at public addresses only (a redirect elsewhere, or a loopback, private or
 * link-local address, is refused); a host it names may be anywhere.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpPolicy, type McpConfig } from "effect-surface/client"
 *
 * const options: McpConfig.Options<{ readonly user: string }> = {
 *   session: { user: "ada" },
 *   allowedHosts: ["mcp.example.com"],
 *   auth: (_server, { session }) => Effect.succeed({ token: `token-for-${session.user}` }),
 *   tools: { block: ["docs__delete_page"] },
 *   timeoutMs: 30_000,
 *   policy: { decide: (r) => r.tool.startsWith("write") ? McpPolicy.ask : McpPolicy.allow }
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Options<S = unknown> {
  readonly session?: S | undefined
  readonly allowedHosts?:
    | ReadonlyArray<string>
    | ((
      server: string,
      context: SessionContext<S>
    ) => ReadonlyArray<string> | Effect.Effect<ReadonlyArray<string>, unknown>)
    | undefined
  /** A bearer for an HTTP server, resolved before `initialize` and again before every call. */
  readonly auth?:
    | ((server: string, context: SessionContext<S>) => Credential | Effect.Effect<Credential, unknown>)
    | undefined
  readonly tools?: { readonly allow: ReadonlyArray<string> } | { readonly block: ReadonlyArray<string> } | undefined
  /** Deadline of each request (default 60,000). */
  readonly timeoutMs?: number | undefined
  /** Deadline of one connect: spawn or dial, and the handshake (default 30,000). */
  readonly connectTimeoutMs?: number | undefined
  readonly policy?: Policy.Policy | undefined
  readonly onDiagnostic?: ((diagnostic: Diagnostic) => void | Effect.Effect<void>) | undefined
  /** Confine every stdio server's command and cwd to `root` (a server entry may name its own). */
  readonly stdio?: { readonly root?: string | undefined } | undefined
  /** Advertise the `roots` capability and answer `roots/list` with these (or what the function answers). Off by default. */
  readonly roots?: Questions.Handlers["roots"]
  /** Answer a server's form for the person (elicitation); without it none is advertised and a form is declined. */
  readonly elicit?: Questions.Handlers["elicit"]
  /** Answer a server's request for a completion from the client's model (sampling); off without it. */
  readonly sample?: Questions.Handlers["sample"]
  /** Reach a server on 2026-07-28 where it offers it (`"auto"`, the default), or pin one revision. */
  readonly protocol?: Protocol | undefined
  /** How the toolset introduces itself in `initialize`. */
  readonly clientInfo?: { readonly name: string; readonly version: string } | undefined
  /** What a local bundle's handlers may ask of their caller (default `Caller.none`: no progress, no questions). */
  readonly caller?: Context.Context<Caller.Services> | undefined
  /** Where each server's catalogue (for a rebuild) and trusted baseline (for drift quarantine) are kept. */
  readonly storage?: Store.Store | undefined
  /** How much of the tools' schemas a model is shown (default 20,000 tokens per server), and the tool-count cap (128). */
  readonly disclosure?: Disclosure.Options | undefined
  /** Takes the person to an authorization URL and answers where they came back: needed by servers with `oauth`. */
  readonly authorize?: OAuth.Authorize | undefined
  /** Where OAuth sign-ins are kept (default: in memory, for the toolset's life). */
  readonly tokenStore?: TokenStore.TokenStore | undefined
}

/**
 * Which revision of MCP a server is spoken to in: `"auto"` asks it (`server/discover`) and falls
 * back to 2025-11-25 when it does not answer 2026-07-28; a revision pins it.
 *
 * @example
 * ```ts
 * import type { McpConfig } from "effect-surface/client"
 * const pinned: McpConfig.Protocol = "2025-11-25"
 * ```
 *
 * @since 0.1.0
 */
export type Protocol = "auto" | "2026-07-28" | "2025-11-25"

/**
 * A credential `auth` resolves: sent as `Authorization: Bearer <token>`, only to the server's own
 * origin, and never logged or stored.
 *
 * @example
 * ```ts
 * import type { McpConfig } from "effect-surface/client"
 * const credential: McpConfig.Credential = { token: "s3cret" }
 * ```
 *
 * @since 0.1.0
 */
export interface Credential {
  readonly token: string
}

/**
 * The request deadline when none is configured.
 *
 * @example
 * ```ts
 * import { McpConfig } from "effect-surface/client"
 * McpConfig.DEFAULT_TIMEOUT_MS // 60000
 * ```
 *
 * @since 0.1.0
 */
export const DEFAULT_TIMEOUT_MS = 60_000

/**
 * The connect deadline when none is configured.
 *
 * @example
 * ```ts
 * import { McpConfig } from "effect-surface/client"
 * McpConfig.DEFAULT_CONNECT_TIMEOUT_MS // 30000
 * ```
 *
 * @since 0.1.0
 */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000

/**
 * One server entry as wired: the entry, the key its tools are named under, and its deadlines.
 *
 * @example
 * ```ts
 * import type { McpConfig } from "effect-surface/client"
 * declare const wired: McpConfig.Wired
 * wired.key // "memory", or "memory_1a2b3c4d" when two servers share the name
 * ```
 *
 * @since 0.1.0
 */
export interface Wired<C extends Server = Server> {
  readonly config: C
  readonly key: string
  readonly timeoutMs: number
  readonly connectTimeoutMs: number
}

/**
 * Check the servers and options, and name every server's tools: the one place a toolset refuses
 * its configuration, before anything is spawned or dialled.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpConfig } from "effect-surface/client"
 * const wired = McpConfig.wire([{ name: "memory", type: "stdio", command: "mcp-server-memory" }], {})
 * Effect.runSync(wired).servers[0]?.key // "memory"
 * ```
 *
 * @since 0.1.0
 */
export const wire = <S>(
  servers: ReadonlyArray<unknown>,
  options: Options<S>
): Effect.Effect<
  { readonly servers: ReadonlyArray<Wired>; readonly collisions: ReturnType<typeof Names.serverKeys>["collisions"] },
  WiringError
> =>
  Effect.map(Entries.check(servers, options), (identities) => {
    const { collisions, keys } = Names.serverKeys(identities)
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS
    // Each entry is checked: its functions and readonly arrays are kept as given.
    const wired = (servers as ReadonlyArray<Server>).map((config, i): Wired => ({
      config,
      key: keys[i] ?? config.name,
      timeoutMs: config.timeoutMs ?? timeoutMs,
      connectTimeoutMs: config.connectTimeoutMs ?? connectTimeoutMs
    }))
    return { servers: wired, collisions }
  })
