/**
 * What the Streamable HTTP face refuses before any session sees a request.
 *
 * A local MCP server is reachable from every web page the user opens: DNS rebinding points a
 * foreign name at 127.0.0.1, and the browser then sends that name as `Host` and its page as
 * `Origin`. So a request naming anything but the server's own loopback names is refused before it
 * can reach a session. A body is read under a byte bound and stops being read the moment it passes
 * it, text that is not JSON is a JSON-RPC parse error, and a body nested deeper than `maxDepth` is
 * refused before anything reads it, never a crash. Each refusal is a
 * JSON-RPC error body with the HTTP status the transport specification names. Kept apart from the
 * session table so the rules can be read, and tested, as one list.
 *
 * @since 0.1.0
 */
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"

/**
 * A refused request: the HTTP status and the JSON-RPC error it answers with, and for a refusal
 * that passes (a server at capacity) how many seconds to wait before retrying.
 *
 * @example
 * ```ts
 * import { McpHttpChecks } from "effect-surface/mcp"
 *
 * const refusal = new McpHttpChecks.Refusal({ status: 404, code: -32001, message: "Session not found" })
 * const response = McpHttpChecks.respond(refusal)
 * ```
 *
 * @since 0.1.0
 */
export class Refusal extends Data.TaggedError("Refusal")<{
  readonly status: number
  readonly code: number
  readonly message: string
  readonly retryAfter?: number
  /** A `WWW-Authenticate` challenge, for a request refused by the resource server (401, 403). */
  readonly challenge?: string
}> {}

/**
 * The HTTP answer to a refusal: a JSON-RPC error with no request id, as the transport answers
 * anything it could not attribute to a request.
 *
 * @example
 * ```ts
 * import { McpHttpChecks } from "effect-surface/mcp"
 *
 * const response = McpHttpChecks.respond(new McpHttpChecks.Refusal({ status: 400, code: -32700, message: "Parse error" }))
 * ```
 *
 * @since 0.1.0
 */
export const respond = (refusal: Refusal): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.jsonUnsafe(
    { jsonrpc: "2.0", error: { code: refusal.code, message: refusal.message }, id: null },
    // A body refused for its size was not read to its end, so the connection cannot carry another
    // request: say so, rather than promise keep-alive and then close it under a pooling client.
    refusal.status === 413
      ? { status: refusal.status, headers: { connection: "close" } }
      : refusal.retryAfter !== undefined
      ? { status: refusal.status, headers: { "retry-after": String(refusal.retryAfter) } }
      : refusal.challenge !== undefined
      ? { status: refusal.status, headers: { "www-authenticate": refusal.challenge } }
      : { status: refusal.status }
  )

/** The loopback names a local browser or host uses to reach this machine. */
const loopbackNames = ["localhost", "127.0.0.1", "[::1]"]

/**
 * Whether an address to bind is a loopback one, the case where rebinding protection is on by default.
 *
 * @example
 * ```ts
 * import { McpHttpChecks } from "effect-surface/mcp"
 *
 * McpHttpChecks.isLoopback("127.0.0.1") // true
 * McpHttpChecks.isLoopback("0.0.0.0") // false
 * ```
 *
 * @since 0.1.0
 */
export const isLoopback = (host: string): boolean => {
  const name = boundName(host)
  return name === "localhost" || name === "[::1]" || name === "[::ffff:7f00:1]" || /^127(\.\d{1,3}){3}$/.test(name)
}

// An address to bind as a `Host` header would name it: the URL parser lower-cases, brackets IPv6
// and writes it canonically (`0:0:0:0:0:0:0:1` → `[::1]`), so every spelling is tested as one.
const boundName = (host: string): string => {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host
  const url = URL.parse(`http://${bare.includes(":") ? `[${bare}]` : bare}`)
  return url === null ? host.toLowerCase() : url.hostname
}

/**
 * A server told to check `Host` and `Origin` with nothing to check them against: rebinding
 * protection asked for on a bind that is not loopback, where no default list can be right.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpHttpChecks } from "effect-surface/mcp"
 *
 * const checked = McpHttpChecks.checkBind({ host: "0.0.0.0", protect: true }).pipe(
 *   Effect.catchTag("UnguardedBind", (refused) => Effect.logError(refused.message))
 * )
 * ```
 *
 * @since 0.1.0
 */
export class UnguardedBind extends Data.TaggedError("UnguardedBind")<{ readonly host: string }> {
  override get message(): string {
    return `dnsRebindingProtection is on, but ${this.host} is not a loopback address and no allowedHosts or allowedOrigins were given, ` +
      `so there is nothing to check Host and Origin against: add allowedHosts (the names clients reach this server by, ` +
      `e.g. ["mcp.example.com"]) and/or allowedOrigins (e.g. ["https://app.example.com"]), or bind to 127.0.0.1`
  }
}

/**
 * Refuse to serve with rebinding protection asked for and nothing to check against: a bind that
 * is not loopback has no default allow-list, and protection that checks nothing would only look on.
 *
 * @example
 * ```ts
 * import { McpHttpChecks } from "effect-surface/mcp"
 *
 * McpHttpChecks.checkBind({ host: "0.0.0.0", protect: true }) // fails with UnguardedBind
 * McpHttpChecks.checkBind({ host: "0.0.0.0", protect: true, allowedHosts: ["mcp.example.com"] }) // succeeds
 * ```
 *
 * @since 0.1.0
 */
export const checkBind = (options: {
  readonly host: string
  readonly protect?: boolean | undefined
  readonly allowedHosts?: ReadonlyArray<string> | undefined
  readonly allowedOrigins?: ReadonlyArray<string> | undefined
}): Effect.Effect<void, UnguardedBind> =>
  options.protect === true && !isLoopback(options.host) && options.allowedHosts === undefined &&
    options.allowedOrigins === undefined
    ? Effect.fail(new UnguardedBind({ host: options.host }))
    : Effect.void

/**
 * Which `Host` and `Origin` values are served. `undefined` lists are not checked.
 *
 * @example
 * ```ts
 * import { McpHttpChecks } from "effect-surface/mcp"
 *
 * const allow: McpHttpChecks.Allow = {
 *   hosts: ["mcp.example.com"],
 *   origins: { _tag: "Exact", origins: ["https://app.example.com"] },
 *   port: 443
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Allow {
  /** Host names (any port in `port`, or none) or exact `name:port` values. */
  readonly hosts: ReadonlyArray<string> | undefined
  /** Exact origins (`scheme://name[:port]`), or for the default, any origin whose host name is listed. */
  readonly origins: { readonly _tag: "Exact"; readonly origins: ReadonlyArray<string> } | {
    readonly _tag: "Names"
    readonly names: ReadonlyArray<string>
  } | undefined
  /** The bound port, the one a bare host name in `hosts` may carry. */
  readonly port: number
}

/**
 * What is allowed for a server bound to `host:port`: with protection on (the default for a
 * loopback bind) hosts default to the loopback names with the bound port or none, and origins to
 * any origin on a loopback name; given lists replace the defaults.
 *
 * @example
 * ```ts
 * import { McpHttpChecks } from "effect-surface/mcp"
 *
 * const allow = McpHttpChecks.allowFor({ host: "127.0.0.1", port: 3000 })
 * ```
 *
 * @since 0.1.0
 */
export const allowFor = (options: {
  readonly host: string
  readonly port: number
  readonly protect?: boolean | undefined
  readonly allowedHosts?: ReadonlyArray<string> | undefined
  readonly allowedOrigins?: ReadonlyArray<string> | undefined
}): Allow => {
  const protect = options.protect ??
    (isLoopback(options.host) || options.allowedHosts !== undefined || options.allowedOrigins !== undefined)
  if (!protect) return { hosts: undefined, origins: undefined, port: options.port }
  const local = isLoopback(options.host)
  // The bound address itself is always one of the names the server answers to.
  const names = local ? [...new Set([...loopbackNames, boundName(options.host)])] : undefined
  return {
    hosts: options.allowedHosts ?? names,
    origins: options.allowedOrigins !== undefined
      ? { _tag: "Exact", origins: options.allowedOrigins.flatMap((o) => Option.toArray(originOf(o))) }
      : names !== undefined ? { _tag: "Names", names } : undefined,
    port: options.port
  }
}

const parseHost = (value: string): Option.Option<URL> => {
  // `host` with no scheme: the URL parser normalises the name, brackets IPv6 and drops a default port.
  const url = URL.parse(`http://${value}`)
  return url === null || url.username !== "" || url.pathname !== "/" || url.search !== "" ? Option.none()
    : Option.some(url)
}

const originOf = (value: string): Option.Option<string> => {
  const url = URL.parse(value)
  return url === null || (url.protocol !== "http:" && url.protocol !== "https:") ? Option.none()
    : Option.some(url.origin)
}

const hostAllowed = (allow: Allow, value: string): boolean =>
  Option.match(parseHost(value), {
    onNone: () => false,
    onSome: (url) =>
      (allow.hosts ?? []).some((entry) =>
        Option.match(parseHost(entry), {
          onNone: () => false,
          onSome: (allowed) =>
            allowed.port === ""
              ? allowed.hostname === url.hostname && (url.port === "" || url.port === String(allow.port))
              : allowed.host === url.host
        })
      )
  })

// Verdicts on `Host` values already judged against an allow list (judging parses URLs, and a client
// sends the same `Host` on every request). A memo of a pure function, bounded so a flood of distinct
// names cannot grow it.
const hostVerdicts = new WeakMap<Allow, Map<string, boolean>>()

const hostAllowedMemo = (allow: Allow, value: string): boolean => {
  let verdicts = hostVerdicts.get(allow)
  if (verdicts === undefined) {
    verdicts = new Map()
    hostVerdicts.set(allow, verdicts)
  }
  const known = verdicts.get(value)
  if (known !== undefined) return known
  const verdict = hostAllowed(allow, value)
  if (verdicts.size >= 64) verdicts.clear()
  verdicts.set(value, verdict)
  return verdict
}

const originAllowed = (origins: NonNullable<Allow["origins"]>, value: string): boolean =>
  Option.match(Option.flatMap(originOf(value), (origin) => Option.fromNullishOr(URL.parse(origin))), {
    onNone: () => false,
    onSome: (url) =>
      origins._tag === "Exact" ? origins.origins.includes(url.origin) : origins.names.includes(url.hostname)
  })

/**
 * Refuse a request whose `Host` or `Origin` is not allowed (403). A request without `Origin` (any
 * non-browser client) is judged by its `Host` alone.
 *
 * @example
 * ```ts
 * import { McpHttpChecks } from "effect-surface/mcp"
 *
 * const allow = McpHttpChecks.allowFor({ host: "127.0.0.1", port: 3000 })
 * McpHttpChecks.checkHeaders(allow, { host: "evil.example.com" }) // Some(Refusal 403)
 * McpHttpChecks.checkHeaders(allow, { host: "localhost:3000" }) // None
 * ```
 *
 * @since 0.1.0
 */
export const checkHeaders = (
  allow: Allow,
  headers: { readonly [name: string]: string | undefined }
): Option.Option<Refusal> => {
  const host = headers["host"]
  if (allow.hosts !== undefined && (host === undefined || !hostAllowedMemo(allow, host))) {
    return Option.some(
      new Refusal({ status: 403, code: -32000, message: `Forbidden: Host ${host ?? "(none)"} is not served here` })
    )
  }
  const origin = headers["origin"]
  if (allow.origins !== undefined && origin !== undefined && !originAllowed(allow.origins, origin)) {
    return Option.some(
      new Refusal({ status: 403, code: -32000, message: `Forbidden: Origin ${origin} is not allowed` })
    )
  }
  return Option.none()
}

/**
 * Whether a `Content-Type` names JSON (its media type, parameters ignored), judged as the SDK's
 * transport judges it, so no request passes here that the transport would refuse with 415.
 *
 * @example
 * ```ts
 * import { McpHttpChecks } from "effect-surface/mcp"
 *
 * McpHttpChecks.isJson("application/json; charset=utf-8") // true
 * ```
 *
 * @since 0.1.0
 */
export const isJson = (contentType: string | undefined): boolean => isJsonContentType(contentType)

/**
 * Read a request body as JSON, at most `maxBytes` of it. A declared length over the bound is
 * refused before a byte is read, and a streamed body the moment it passes the bound (413); text
 * that is not JSON is a parse error (-32700); a body nested deeper than `maxDepth` is refused (-32600).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { HttpServerRequest } from "effect/http"
 * import { McpHttpChecks } from "effect-surface/mcp"
 *
 * const body = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => McpHttpChecks.readJson(request, 4 * 1024 * 1024))
 * ```
 *
 * @since 0.1.0
 */
export const readJson = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number
): Effect.Effect<unknown, Refusal> => {
  const declared = Number(request.headers["content-length"])
  if (Number.isFinite(declared)) {
    if (declared > maxBytes) return Effect.fail(tooLarge(maxBytes))
    // Node's parser holds a body to its declared length, so one within the bound is read whole.
    return Effect.flatMap(Effect.mapError(request.arrayBuffer, unreadable), (bytes) => parse(utf8(bytes)))
  }
  return request.stream.pipe(
    Stream.mapError(unreadable),
    Stream.runFoldEffect(
      () => ({ size: 0, chunks: [] as Array<Uint8Array> }),
      (read, chunk): Effect.Effect<{ size: number; chunks: Array<Uint8Array> }, Refusal> => {
        const size = read.size + chunk.byteLength
        if (size > maxBytes) return Effect.fail(tooLarge(maxBytes))
        read.chunks.push(chunk)
        return Effect.succeed({ size, chunks: read.chunks })
      }
    ),
    Effect.flatMap(({ chunks }) => parse(utf8(Buffer.concat(chunks))))
  )
}

// Refusals are built only when a request is refused: each captures a stack trace.
const tooLarge = (maxBytes: number) =>
  new Refusal({ status: 413, code: -32000, message: `Payload Too Large: the body must not exceed ${maxBytes} bytes` })

const unreadable = () => new Refusal({ status: 400, code: -32700, message: "Parse error: the body could not be read" })

// Read in place (a Buffer over the same bytes) as a TextDecoder reads it, a leading byte-order mark
// dropped and bad sequences made U+FFFD, for JSON.parse to judge; the decoder costs more per body.
const utf8 = (bytes: ArrayBuffer | Uint8Array): string => {
  const text =
    (bytes instanceof Uint8Array ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : Buffer.from(bytes))
      .toString("utf8")
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

const parse = (text: string): Effect.Effect<unknown, Refusal> =>
  Effect.flatMap(
    Effect.try({
      try: (): unknown => JSON.parse(text),
      catch: () => new Refusal({ status: 400, code: -32700, message: "Parse error: Invalid JSON" })
    }),
    (body) => nestsDeeperThan(body, maxDepth) ? Effect.fail(tooDeep()) : Effect.succeed(body)
  )

/**
 * The deepest a request body may nest arrays and objects within each other. `JSON.parse` reads any
 * depth, but what reads a message next (the SDK's schemas, Effect's parser, a hash or a message that
 * names a value) goes a level of the stack per level of the value, and a body nested some thousands
 * deep would end a request with a stack overflow: refused here, for both eras, before anything
 * reads it. A tool's own input is held to a closer bound (128 levels) by the schema that checks it.
 *
 * @example
 * ```ts
 * import { McpHttpChecks } from "effect-surface/mcp"
 * McpHttpChecks.maxDepth // 256
 * ```
 *
 * @since 0.1.0
 */
export const maxDepth = 256

const tooDeep = () =>
  new Refusal({
    status: 400,
    code: -32600,
    message: `Invalid Request: the body nests arrays and objects deeper than ${maxDepth} levels; send it flatter`
  })

// Walked with a stack of its own, so the check cannot overflow the stack it protects.
const nestsDeeperThan = (value: unknown, limit: number): boolean => {
  if (typeof value !== "object" || value === null) return false
  const values: Array<object> = [value]
  const depths: Array<number> = [1]
  while (values.length > 0) {
    const node = values.pop() as object
    const depth = depths.pop() as number
    if (depth > limit) return true
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === "object" && child !== null) {
        values.push(child)
        depths.push(depth + 1)
      }
    }
  }
  return false
}
