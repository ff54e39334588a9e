/**
 * The names a remote tool is projected under, and why they never surprise a policy or a provider.
 *
 * A projected name is what a policy rule matches, what a transcript records and what a model
 * provider validates, so it must be readable, legal and stable. `${server}__${tool}` is used as is
 * whenever it is legal for `^[a-zA-Z0-9_-]{1,64}$` (the strictest provider rule in use). Anything
 * else — a dot, a space, a non-ASCII letter, a name past 64 characters — is rewritten the same way in
 * every process: illegal characters become `_`, the name is clamped, and a short hash of the
 * original is appended, so two remote names that clean to the same text still differ. Two servers
 * sharing a name both get a suffix hashed from their identity (what they run or where they are, and
 * with which environment or headers when that is all that differs), so reordering a server list
 * never repoints a rule at a different backend.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"

/**
 * The rule every projected name satisfies.
 *
 * @example
 * ```ts
 * import { McpNames } from "effect-surface/client"
 * McpNames.LEGAL.test("docs__search") // true
 * McpNames.LEGAL.test("docs__search.v2") // false
 * ```
 *
 * @since 0.1.0
 */
export const LEGAL = /^[a-zA-Z0-9_-]{1,64}$/

/**
 * How many characters a projected name may have.
 *
 * @example
 * ```ts
 * import { McpNames } from "effect-surface/client"
 * McpNames.MAX_LENGTH // 64
 * ```
 *
 * @since 0.1.0
 */
export const MAX_LENGTH = 64

/**
 * What separates the server's part of a name from the tool's.
 *
 * @example
 * ```ts
 * import { McpNames } from "effect-surface/client"
 * `memory${McpNames.SEPARATOR}read_graph` // "memory__read_graph"
 * ```
 *
 * @since 0.1.0
 */
export const SEPARATOR = "__"

/**
 * Eight hex characters of the SHA-256 of a text: short enough to keep a name readable, and the
 * same in every process and on every machine, since durable records are written against the names.
 * It hashes UTF-16 code units, so text that is not well-formed Unicode (a lone surrogate) still
 * hashes apart rather than as U+FFFD.
 *
 * @example
 * ```ts
 * import { McpNames } from "effect-surface/client"
 * McpNames.hash("docs__search.v2").length // 8
 * ```
 *
 * @since 0.1.0
 */
export const hash = (text: string): string => createHash("sha256").update(text, "utf16le").digest("hex").slice(0, 8)

/**
 * Whether a name may be used as is.
 *
 * @example
 * ```ts
 * import { McpNames } from "effect-surface/client"
 * McpNames.isLegal("files__read_file") // true
 * McpNames.isLegal("files__read file") // false
 * ```
 *
 * @since 0.1.0
 */
export const isLegal = (name: string): boolean => LEGAL.test(name)

/**
 * Make any text a legal name: itself when legal, else its characters outside `[a-zA-Z0-9_-]` as
 * `_` (one per code point), clamped so that `_` and the hash of the original text fit in 64.
 *
 * @example
 * ```ts
 * import { McpNames } from "effect-surface/client"
 * McpNames.legalize("files__read_file") // "files__read_file"
 * McpNames.legalize("docs__search.v2") // "docs__search_v2_" followed by 8 hex characters
 * ```
 *
 * @since 0.1.0
 */
export const legalize = (text: string): string => {
  if (isLegal(text)) return text
  const suffix = `_${hash(text)}`
  const cleaned = Array.from(text, (c) => /^[a-zA-Z0-9_-]$/.test(c) ? c : "_").join("")
  return cleaned.slice(0, MAX_LENGTH - suffix.length) + suffix
}

/**
 * The projected name of a server's tool: `${serverKey}__${tool}`, made legal.
 *
 * @example
 * ```ts
 * import { McpNames } from "effect-surface/client"
 * McpNames.project("memory", "read_graph") // "memory__read_graph"
 * ```
 *
 * @since 0.1.0
 */
export const project = (serverKey: string, tool: string): string => legalize(`${serverKey}${SEPARATOR}${tool}`)

/**
 * What a server is, apart from what it is called: for a child process its command, arguments and
 * working directory, for a remote its transport and URL (without user info or query). Two entries
 * with one name and different identities are different backends. `particulars` is what else can
 * tell two entries apart — a child's environment, a remote's headers and full URL — and is mixed
 * into a suffix only when the identity alone cannot, so a secret's digest enters a name only when
 * nothing else distinguishes the two.
 *
 * @example
 * ```ts
 * import { McpNames } from "effect-surface/client"
 * const identity: McpNames.Identity = {
 *   name: "local",
 *   identity: ["stdio", "node", ["server.js"], null],
 *   particulars: { env: { ACCOUNT: "a" } }
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Identity {
  readonly name: string
  readonly identity: unknown
  readonly particulars?: unknown
}

// JSON with every object's keys in order, so two spellings of one environment hash alike.
const sorted = (value: unknown): unknown =>
  Array.isArray(value) ? value.map(sorted)
    : typeof value === "object" && value !== null
    ? Object.fromEntries(
      Object.entries(value).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0).map(([k, v]) => [k, sorted(v)])
    )
    : value

/**
 * The key each server's tools are named under, in the order given: its name when no other server
 * has it, else `${name}_${hash}` for every one of the servers sharing it — the hash of its identity,
 * and of its particulars too when another entry of that name has the same identity. A key depends
 * on what the entry is, never on where it stands in the list: only entries alike in everything are
 * told apart by their rank among those. `collisions` lists each shared name with the keys it became.
 *
 * @example
 * ```ts
 * import { McpNames } from "effect-surface/client"
 * const { keys } = McpNames.serverKeys([
 *   { name: "local", identity: ["stdio", "node", ["a.js"], null] },
 *   { name: "local", identity: ["stdio", "node", ["b.js"], null] }
 * ])
 * // keys: ["local_…", "local_…"], two different suffixes
 * ```
 *
 * @since 0.1.0
 */
export const serverKeys = (servers: ReadonlyArray<Identity>): {
  readonly keys: ReadonlyArray<string>
  readonly collisions: ReadonlyArray<{ readonly name: string; readonly keys: ReadonlyArray<string> }>
} => {
  const counts = new Map<string, number>()
  const alike = new Map<string, number>()
  const identities = servers.map((server) => JSON.stringify(server.identity) ?? "null")
  servers.forEach((server, i) => {
    counts.set(server.name, (counts.get(server.name) ?? 0) + 1)
    const shared = `${server.name}\u0000${identities[i]}`
    alike.set(shared, (alike.get(shared) ?? 0) + 1)
  })
  const seen = new Map<string, number>()
  const keys = servers.map((server, i) => {
    if (counts.get(server.name) === 1) return server.name
    const identity = identities[i] ?? "null"
    const told = (alike.get(`${server.name}\u0000${identity}`) ?? 0) > 1
      ? `${identity}\u0000${JSON.stringify(sorted(server.particulars ?? null))}`
      : identity
    const rank = seen.get(`${server.name}\u0000${told}`) ?? 0
    seen.set(`${server.name}\u0000${told}`, rank + 1)
    return `${server.name}_${hash(rank === 0 ? told : `${told}#${rank}`)}`
  })
  const collisions = [...counts].filter(([, n]) => n > 1).map(([name]) => ({
    name,
    keys: keys.filter((_, i) => servers[i]?.name === name)
  }))
  return { keys, collisions }
}
