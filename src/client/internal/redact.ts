/**
 * Text about a server, cleared of what can authenticate to it before anyone reads it.
 *
 * A server's URL can carry a credential in its user info (`alice:pw@host`) or its query
 * (`?api_key=…`), and that URL comes back quoted in the errors of whatever failed to reach it — the
 * `fetch` that refuses a URL with credentials, the SDK's transport, a proxy. Every diagnostic, every
 * log line and every failure reason the toolset writes goes through `text`, which keeps each URL's
 * scheme, host and path and drops the rest. Text is scanned, not parsed, so a URL quoted inside any
 * sentence — whole or cut short, valid or not — is cleared the same way.
 */

// A scheme, `://`, then everything up to whitespace or a quoting character.
const URLS = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi
// User info: everything in the authority up to its last `@`.
const USER_INFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i

/** One URL without its user info, query or fragment. */
export const url = (found: string): string => {
  const bare = found.replace(USER_INFO, "$1")
  const cut = bare.search(/[?#]/)
  return cut === -1 ? bare : bare.slice(0, cut)
}

/** Every URL in `text` without its user info, query or fragment. */
export const text = (text: string): string => text.includes("://") ? text.replace(URLS, url) : text
