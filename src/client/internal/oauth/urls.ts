/**
 * Which URLs a sign-in may open in the person's browser or send a request to: `https:`, or `http:`
 * on loopback only.
 *
 * The authorization, token and registration endpoints come from the authorization server's
 * metadata, which the MCP server chose: a stranger's words. Handed to `authorize`, an endpoint of
 * `file:`, `smb:` or `ms-msdt:` makes the person's machine open a file, a share or a program (the
 * class of CVE-2025-6514); `http:` to another host sends the code or a client's secret where
 * anyone on the path reads it, or points at a cloud metadata address. Loopback `http:` stays,
 * because that is where a developer runs an authorization server (and where RFC 8252 puts a
 * native client's redirect). Every endpoint is judged here, once, by `refusal`.
 */
import * as Net from "node:net"

/** What an endpoint is for, as its sentence names it. */
export type Role = "authorization endpoint" | "token endpoint" | "registration endpoint"

// 127.0.0.0/8, ::1 and the name localhost: the hosts a plain-http sign-in may reach.
const isLoopback = (hostname: string): boolean => {
  if (hostname === "localhost") return true
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname
  switch (Net.isIP(bare)) {
    case 4:
      return bare.startsWith("127.")
    case 6:
      return bare === "::1"
    default:
      return false
  }
}

const RULE = "a sign-in uses only https: URLs, or http: on loopback (127.0.0.0/8, ::1, localhost)"

/**
 * Why a sign-in may not open or contact `url` as the authorization server's `role`, or nothing.
 * The sentence names the scheme and host, never the query (which carries the sign-in's state).
 */
export const refusal = (url: URL, role: Role): string | undefined => {
  if (url.protocol === "https:") return undefined
  if (url.protocol === "http:" && isLoopback(url.hostname)) return undefined
  const why = url.protocol === "http:"
    ? `plain http to "${url.host}", a host that is not loopback`
    : `a ${url.protocol} URL${url.host === "" ? "" : ` (host "${url.host}")`}`
  const stopped = role === "authorization endpoint" ? "the person was not sent there" : "nothing was sent there"
  return `the authorization server's ${role} is ${why}, and ${RULE}, so ${stopped}`
}

/**
 * Why the endpoints an authorization server's metadata names may not be used, or nothing: the
 * first endpoint refused, judged before anything is registered, requested or opened.
 */
export const metadataRefusal = (
  metadata: {
    readonly authorization_endpoint?: string | undefined
    readonly token_endpoint?: string | undefined
    readonly registration_endpoint?: string | undefined
  }
): string | undefined => {
  const endpoints: ReadonlyArray<readonly [string | undefined, Role]> = [
    [metadata.authorization_endpoint, "authorization endpoint"],
    [metadata.token_endpoint, "token endpoint"],
    [metadata.registration_endpoint, "registration endpoint"]
  ]
  for (const [endpoint, role] of endpoints) {
    if (endpoint === undefined) continue
    const found = URL.canParse(endpoint)
      ? refusal(new URL(endpoint), role)
      : `the authorization server's ${role} is not a URL, so the sign-in stopped`
    if (found !== undefined) return found
  }
  return undefined
}
