/**
 * One more send for a request that died with its connection before any answer came.
 *
 * Node's `fetch` keeps sockets open between requests, and a server closing an idle one just as a
 * request leaves on it fails that request ("other side closed", a reset) though the server never
 * read it; on a busy machine the race is common. HTTP lets a client repeat an idempotent request
 * after such a failure (RFC 9110 §9.2.2), and `fetch` does not for a POST. Here a request is
 * repeatable when it is a GET or DELETE, or a POST whose JSON-RPC messages only open, read or list:
 * a call, or anything else that may have acted, is never sent twice.
 */
import * as Predicate from "effect/Predicate"

// The failures of a connection that closed under the request, as Node's fetch reports them.
const CLOSED_UNDER = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"])

// Requests that change nothing on the server, sent again with the same effect.
const READS = new Set([
  "initialize",
  "notifications/initialized",
  "server/discover",
  "ping",
  "resources/read",
  "prompts/get",
  "completion/complete",
  "tasks/get",
  "subscriptions/listen"
])

/**
 * The code a failed fetch reports: its cause's (Node's fetch wraps every network failure in a
 * `TypeError("fetch failed")`), else its own.
 *
 * @example
 * ```ts
 * const refused = Object.assign(new Error("connect refused"), { code: "ECONNREFUSED" })
 * codeOf(new TypeError("fetch failed", { cause: refused })) // "ECONNREFUSED"
 * ```
 */
export const codeOf = (error: unknown): unknown => {
  const own = (u: unknown): unknown => Predicate.hasProperty(u, "code") ? u.code : undefined
  return own(Predicate.hasProperty(error, "cause") ? error.cause : undefined) ?? own(error)
}

const reads = (message: unknown): boolean =>
  Predicate.hasProperty(message, "method") && typeof message.method === "string" &&
  (READS.has(message.method) || message.method.endsWith("/list"))

// Whether a POST body holds only messages that read: one, or a batch of them.
const readsOnly = (body: unknown): boolean => {
  if (typeof body !== "string") return false
  try {
    const parsed: unknown = JSON.parse(body)
    return Array.isArray(parsed) ? parsed.length > 0 && parsed.every(reads) : reads(parsed)
  } catch {
    return false
  }
}

/**
 * Whether a request that failed with `error` may be sent once more: its connection closed under it
 * before any answer, and sending it again cannot do anything twice.
 *
 * @example
 * ```ts
 * const socket = Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" })
 * const closed = new TypeError("fetch failed", { cause: socket })
 * repeatable({ method: "POST", body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' }, closed) // true
 * repeatable({ method: "POST", body: '{"jsonrpc":"2.0","id":2,"method":"tools/call"}' }, closed) // false
 * ```
 */
export const repeatable = (init: RequestInit | undefined, error: unknown): boolean => {
  const code = codeOf(error)
  if (typeof code !== "string" || !CLOSED_UNDER.has(code)) return false
  const method = (init?.method ?? "GET").toUpperCase()
  return method === "GET" || method === "DELETE" || (method === "POST" && readsOnly(init?.body))
}

/**
 * `send`, and once more when its request was lost with its connection and may be repeated
 * (`repeatable`); any other failure is the caller's as it came.
 */
export const once = (send: () => Promise<Response>, init: RequestInit | undefined): Promise<Response> =>
  send().catch((error: unknown) => repeatable(init, error) ? send() : Promise.reject(error))
