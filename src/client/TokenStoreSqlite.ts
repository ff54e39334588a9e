/**
 * The token store on SQLite, through `node:sqlite`: sign-ins that outlive the process, in a file
 * only its owner can read.
 *
 * The file is created with mode 0600 before SQLite opens it (SQLite would create it with the
 * process's umask, usually world-readable; its journals take the file's mode). A file that already
 * exists is used only if it is its owner's alone: one (or a journal beside it) that grants the
 * group or others any access, that another user owns, or that sits in a directory others may write
 * to (without the sticky bit) is refused with a `TokenStoreError` naming the path, its mode and the
 * fix (`chmod 600`), and nothing is written to it. It is refused rather than tightened, because
 * whoever could read it may have read it already. Not checked on Windows. One table, `mcp_oauth_credentials`, one row per server and issuer, the credentials as
 * JSON text read back through `McpTokenStore.CredentialsSchema`; `saved` orders a server's rows, so
 * the latest is the one its requests carry. Schema version in `PRAGMA user_version`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import type { DatabaseSync } from "node:sqlite"
import { messageOf } from "../core/ToolFailure.ts"
import * as SqliteFile from "./internal/sqliteFile.ts"
import { type Credentials, McpTokenStore, toCredentials, type TokenStore, TokenStoreError } from "./TokenStore.ts"

/**
 * The schema version this module writes and reads.
 *
 * @example
 * ```ts
 * import { McpTokenStoreSqlite } from "effect-surface/client"
 * McpTokenStoreSqlite.SCHEMA_VERSION // 1
 * ```
 *
 * @since 0.1.0
 */
export const SCHEMA_VERSION = 1

const CREATE = `CREATE TABLE mcp_oauth_credentials (
  server TEXT NOT NULL,
  issuer TEXT NOT NULL,
  credentials TEXT NOT NULL,
  saved INTEGER NOT NULL,
  PRIMARY KEY (server, issuer)
) STRICT`

// The reason of a failure never quotes a statement's arguments, so never a credential.
const attempt = <A>(operation: string, run: () => A): Effect.Effect<A, TokenStoreError> =>
  Effect.try({
    try: run,
    catch: (error) =>
      // oxlint-disable-next-line typescript/no-unsafe-class-instance-assignment
      Predicate.isTagged(error, "TokenStoreError") ? error as TokenStoreError
        : new TokenStoreError({ operation, reason: messageOf(error) })
  })

const open = (path: string): Effect.Effect<DatabaseSync, TokenStoreError> =>
  attempt(`open ${path}`, () => SqliteFile.open(path, { create: CREATE, version: SCHEMA_VERSION, private: true }))

const credentialsOf = (text: unknown, operation: string): Credentials => {
  const checked = toCredentials(typeof text === "string" ? JSON.parse(text) : undefined, operation)
  if (Result.isFailure(checked)) throw checked.failure
  return checked.success
}

const SELECT = "SELECT server, issuer, credentials FROM mcp_oauth_credentials"
const UPSERT = `INSERT INTO mcp_oauth_credentials (server, issuer, credentials, saved)
  VALUES (?, ?, ?, (SELECT coalesce(max(saved), 0) + 1 FROM mcp_oauth_credentials))
  ON CONFLICT (server, issuer) DO UPDATE SET credentials = excluded.credentials, saved = excluded.saved`

const storeOver = (db: DatabaseSync): TokenStore => ({
  get: (server, issuer) =>
    attempt(`read the credentials of ${server}`, () => {
      const row = db.prepare(`${SELECT} WHERE server = ? AND issuer = ?`).get(server, issuer)
      return row === undefined ? undefined : credentialsOf(row["credentials"], `read the credentials of ${server}`)
    }),
  latest: (server) =>
    attempt(`read the credentials of ${server}`, () => {
      const row = db.prepare(`${SELECT} WHERE server = ? ORDER BY saved DESC LIMIT 1`).get(server)
      return row === undefined ? undefined : {
        server,
        issuer: String(row["issuer"]),
        credentials: credentialsOf(row["credentials"], `read the credentials of ${server}`)
      }
    }),
  save: (entry) =>
    Effect.flatMap(
      Effect.fromResult(toCredentials(entry.credentials, `save the credentials of ${entry.server}`)),
      (credentials) =>
        attempt(
          `save the credentials of ${entry.server}`,
          () => void db.prepare(UPSERT).run(entry.server, entry.issuer, JSON.stringify(credentials))
        )
    ),
  remove: (server, issuer) =>
    attempt(`remove the credentials of ${server}`, () =>
      issuer === undefined
        ? void db.prepare("DELETE FROM mcp_oauth_credentials WHERE server = ?").run(server)
        : void db.prepare("DELETE FROM mcp_oauth_credentials WHERE server = ? AND issuer = ?").run(server, issuer))
})

/**
 * Open (creating it with mode 0600, and migrating, as needed) the token store at `path` in the
 * current scope; the scope's end closes the database. An existing file others may read or write is
 * refused, saying how to make it private.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpTokenStoreSqlite, McpToolset } from "effect-surface/client"
 * declare const authorize: (url: URL) => Effect.Effect<URL>
 * const program = Effect.scoped(Effect.gen(function*() {
 *   const tokenStore = yield* McpTokenStoreSqlite.make("tokens.db")
 *   return yield* McpToolset.make(
 *     [{ name: "docs", type: "streamable-http", url: "https://mcp.example.com/mcp",
 *        oauth: { clientName: "my agent", redirectUrl: "http://127.0.0.1:8765/callback" } }],
 *     { authorize, tokenStore }
 *   )
 * }))
 * ```
 *
 * @since 0.1.0
 */
export const make = (path: string): Effect.Effect<TokenStore, TokenStoreError, Scope.Scope> =>
  Effect.map(Effect.acquireRelease(open(path), (db) => Effect.sync(() => db.isOpen && db.close())), storeOver)

/**
 * The SQLite token store as a layer.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpTokenStore, McpTokenStoreSqlite } from "effect-surface/client"
 * const program = Effect.flatMap(Effect.service(McpTokenStore.McpTokenStore), (s) => s.latest("x")).pipe(
 *   Effect.provide(McpTokenStoreSqlite.layer("tokens.db"))
 * )
 * ```
 *
 * @since 0.1.0
 */
export const layer = (path: string): Layer.Layer<McpTokenStore, TokenStoreError> =>
  Layer.effect(McpTokenStore, make(path))
