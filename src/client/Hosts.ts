/**
 * The SSRF guard: which hosts a toolset may reach, checked before any connection and again at
 * every redirect hop, and where a credential may go.
 *
 * A server URL comes from a file somebody else wrote, so it can point anywhere the machine can
 * reach — a cloud metadata address, a database on loopback. A host outside `allowedHosts` is
 * refused before a socket opens. With no `allowedHosts`, the host a server's own URL names is
 * allowed, but only at a public address: a literal or a name that resolves to a private, loopback
 * or link-local address is refused, judged in the very lookup of each connection (so a name cannot
 * resolve one way when checked and another when connected). A host `allowedHosts` names is the
 * caller's choice and may be anywhere. A redirect is a second URL from the same stranger, so the
 * guard follows redirects itself (at most five), checking each hop the same way, and a bearer or a
 * configured header travels only to the server's own origin.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Predicate from "effect/Predicate"
import type * as Undici from "undici"
import * as Addresses from "./internal/addresses.ts"
import * as Resend from "./internal/resend.ts"

/**
 * How many redirect hops one request may follow.
 *
 * @example
 * ```ts
 * import { McpHosts } from "effect-surface/client"
 * McpHosts.MAX_REDIRECTS // 5
 * ```
 *
 * @since 0.1.0
 */
export const MAX_REDIRECTS = 5

const REDIRECTS = new Set([301, 302, 303, 307, 308])

const effectivePort = (url: URL): string => url.port !== "" ? url.port : url.protocol === "https:" ? "443" : "80"

const matches = (entry: string, url: URL): boolean => {
  const e = entry.trim().toLowerCase()
  if (e.startsWith("*.")) return url.hostname.endsWith(e.slice(1)) && url.hostname.length > e.length - 1
  if (!URL.canParse(`http://${e}`)) return false
  const parsed = new URL(`http://${e}`)
  // An entry with a port allows that port only; without one, any port of the host.
  return parsed.hostname === url.hostname &&
    (!/:\d+$/.test(e) || parsed.port === "" || parsed.port === effectivePort(url))
}

/**
 * Whether `allowed` lets a request reach `url`: only `http:` and `https:`, and a host equal to an
 * entry (`mcp.example.com`, `127.0.0.1:8080` for one port, `[::1]`), or under a `*.example.com`
 * entry. Case does not matter.
 *
 * @example
 * ```ts
 * import { McpHosts } from "effect-surface/client"
 * McpHosts.allows(["mcp.example.com"], new URL("https://mcp.example.com/mcp")) // true
 * McpHosts.allows(["mcp.example.com"], new URL("http://169.254.169.254/")) // false
 * ```
 *
 * @since 0.1.0
 */
export const allows = (allowed: ReadonlyArray<string>, url: URL): boolean =>
  (url.protocol === "http:" || url.protocol === "https:") && allowed.some((entry) => matches(entry, url))

/**
 * A request the guard stopped before it left: a host outside the list, a scheme other than HTTP, a
 * host no list names at an address that is not public, or a redirect chain longer than
 * `MAX_REDIRECTS`. Thrown from the guarded `fetch`, so the transport that called it rejects with it.
 *
 * @example
 * ```ts
 * import { McpHosts } from "effect-surface/client"
 * new McpHosts.Refused({ host: "169.254.169.254", reason: "host" })
 * ```
 *
 * @since 0.1.0
 */
export class Refused extends Data.TaggedError("McpHostRefused")<{
  readonly host: string
  readonly reason: "host" | "address" | "redirects"
  /** For `address`: the address the host is, or resolved to. */
  readonly address?: string | undefined
}> {
  override get message(): string {
    switch (this.reason) {
      case "host":
        return `the host "${this.host}" is not in allowedHosts, so no request was made to it`
      case "address":
        return `the host "${this.host}" ${
          Addresses.literal(this.host.replace(/:\d+$/, "")) === undefined ? "resolves to" : "is"
        } ${this.address}, a private, loopback or link-local address, so no request was made to it ` +
          `(name the host in allowedHosts to allow it)`
      case "redirects":
        return `more than ${MAX_REDIRECTS} redirects (the last to "${this.host}"), so the request was not sent on`
    }
  }
}

/**
 * Why a request to `url` may not leave when no `allowedHosts` names its host: its host is a literal
 * address that is not public. Names are judged later, as each connection resolves them.
 *
 * @example
 * ```ts
 * import { McpHosts } from "effect-surface/client"
 * McpHosts.unnamedRefusal(new URL("http://169.254.169.254/latest"))?.message
 * // 'the host "169.254.169.254" is 169.254.169.254, a private, loopback or link-local address, …'
 * ```
 *
 * @since 0.1.0
 */
export const unnamedRefusal = (url: URL): Refused | undefined => {
  const address = Addresses.literal(url.hostname)
  return address === undefined || Addresses.isPublic(address) ? undefined
    : new Refused({ host: url.host, reason: "address", address })
}

/**
 * What the guarded `fetch` needs: the list to check (and whether its hosts were named by the caller
 * or only allowed by default, in which case they may reach public addresses only), the server's own
 * URL (whose origin alone receives credentials), the bearer of the moment, and which configured
 * headers are secrets.
 *
 * @example
 * ```ts
 * import { McpHosts } from "effect-surface/client"
 * const options: McpHosts.GuardOptions = {
 *   allowed: ["mcp.example.com"],
 *   url: new URL("https://mcp.example.com/mcp"),
 *   bearer: () => undefined,
 *   secretHeaders: ["x-api-key"]
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface GuardOptions {
  readonly allowed: ReadonlyArray<string>
  readonly url: URL
  /** The token to send now, read at every request so a rotated one is used at once. */
  readonly bearer: () => string | undefined
  /** Header names (any case) that leave the server's origin only stripped. */
  readonly secretHeaders: ReadonlyArray<string>
  /** The list is no one's choice (no `allowedHosts`): every hop must reach public addresses only. */
  readonly publicOnly?: boolean | undefined
  readonly fetch?: typeof globalThis.fetch | undefined
}

// One dispatcher for every request that may reach public addresses only, its lookup the check;
// `undici` is loaded with the first such request.
let publicFetch: Promise<typeof globalThis.fetch> | undefined
const publicOnlyFetch = (): Promise<typeof globalThis.fetch> =>
  publicFetch ??= import("undici").then((undici: typeof Undici) => {
    const lookup = Addresses.publicLookup((host, address) => new Refused({ host, reason: "address", address }))
    const dispatcher = new undici.Agent({ connect: { lookup } })
    return ((input: URL, init?: RequestInit) =>
      // The SDK's requests are plain (a string body, headers, a signal): the same to either fetch.
      undici.fetch(input, {
        ...(init as unknown as Undici.RequestInit),
        dispatcher
      })) as unknown as typeof globalThis.fetch
  })

// A refusal the lookup raised comes back as the cause of the fetch's own failure: raise it itself.
const unwrapped = (error: unknown): unknown =>
  Predicate.hasProperty(error, "cause") && Predicate.isTagged(error.cause, "McpHostRefused") ? error.cause : error

type Init = RequestInit

const headersFor = (
  target: URL,
  init: Init | undefined,
  options: GuardOptions,
  secrets: ReadonlySet<string>
): Headers => {
  const headers = new Headers(init?.headers)
  if (target.origin !== options.url.origin) {
    headers.delete("authorization")
    for (const name of secrets) headers.delete(name)
    return headers
  }
  const token = options.bearer()
  if (token !== undefined) headers.set("authorization", `Bearer ${token}`)
  return headers
}

// The request a redirect asks for next: 303, and 301/302 after a POST, become a GET with no body.
const redirected = (status: number, init: Init | undefined): Init | undefined => {
  const method = (init?.method ?? "GET").toUpperCase()
  if (!(status === 303 && method !== "HEAD") && !((status === 301 || status === 302) && method === "POST")) return init
  const headers = new Headers(init?.headers)
  headers.delete("content-type")
  headers.delete("content-length")
  const { body: _body, ...rest } = init ?? {}
  return { ...rest, method: "GET", headers }
}

/**
 * A `fetch` for a transport to use: it refuses a host outside the list before connecting (and, when
 * `publicOnly`, an address that is not public: a literal before, a name in the connection's own
 * lookup), follows redirects itself (each hop checked again, at most `MAX_REDIRECTS`), sends once
 * more a request that only reads when its connection closed under it before any answer, puts the
 * current bearer on requests to the server's own origin and strips it and the secret headers from
 * any other.
 *
 * @example
 * ```ts
 * import { McpHosts } from "effect-surface/client"
 * const fetch = McpHosts.guardedFetch({
 *   allowed: ["mcp.example.com"],
 *   url: new URL("https://mcp.example.com/mcp"),
 *   bearer: () => undefined,
 *   secretHeaders: []
 * })
 * ```
 *
 * @since 0.1.0
 */
export const guardedFetch = (options: GuardOptions) => {
  const secrets = new Set(options.secretHeaders.map((name) => name.toLowerCase()))
  const sender = async (target: URL): Promise<typeof globalThis.fetch> => {
    if (!allows(options.allowed, target)) throw new Refused({ host: target.host, reason: "host" })
    if (options.publicOnly !== true) return options.fetch ?? globalThis.fetch
    const refused = unnamedRefusal(target)
    if (refused !== undefined) throw refused
    return options.fetch ?? await publicOnlyFetch()
  }
  return async (input: string | URL, init?: Init): Promise<Response> => {
    let target = new URL(input)
    let request = init
    for (let hop = 0;; hop++) {
      const send = await sender(target)
      const sent: Init = { ...request, headers: headersFor(target, request, options, secrets), redirect: "manual" }
      const response = await Resend.once(() => send(target, sent), request)
        .catch((error: unknown) => Promise.reject(unwrapped(error)))
      const location = REDIRECTS.has(response.status) ? response.headers.get("location") : null
      if (location === null) return response
      await response.body?.cancel()
      const next = new URL(location, target)
      if (hop + 1 > MAX_REDIRECTS) throw new Refused({ host: next.host, reason: "redirects" })
      request = redirected(response.status, request)
      target = next
    }
  }
}
