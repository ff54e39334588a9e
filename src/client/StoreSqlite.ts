/**
 * The connection store on SQLite, through `node:sqlite` (built into Node ≥ 22.5): the embedded
 * default, with no native addon to build and nothing to run beside the process.
 *
 * One table, `mcp_connections`, with one column per enumerated field of a row (the catalogue and
 * the baseline as JSON text), and a schema version in `PRAGMA user_version`, so a later version can
 * migrate a file this one wrote and a file from a later version is refused rather than misread.
 * Several processes may share one file: a save reads the recorded baseline and writes the row in
 * one immediate transaction, so the first baseline stays the baseline whoever saves second.
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
import { McpConnectionStore, merged, type Row, type Store, StoreError, toRow } from "./Store.ts"

/**
 * The schema version this module writes and reads.
 *
 * @example
 * ```ts
 * import { McpStoreSqlite } from "effect-surface/client"
 * McpStoreSqlite.SCHEMA_VERSION // 1
 * ```
 *
 * @since 0.1.0
 */
export const SCHEMA_VERSION = 1

const CREATE = `CREATE TABLE mcp_connections (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  url TEXT,
  tools TEXT NOT NULL,
  tool_fingerprints TEXT
) STRICT`

// A StoreError thrown from inside (a row that is not a row) is kept as it is.
const attempt = <A>(operation: string, run: () => A): Effect.Effect<A, StoreError> =>
  Effect.try({
    try: run,
    catch: (error) =>
      // oxlint-disable-next-line typescript/no-unsafe-class-instance-assignment
      Predicate.isTagged(error, "StoreError") ? error as StoreError
        : new StoreError({ operation, reason: messageOf(error) })
  })

const open = (path: string): Effect.Effect<DatabaseSync, StoreError> =>
  attempt(`open ${path}`, () => SqliteFile.open(path, { create: CREATE, version: SCHEMA_VERSION }))

type Stored = Record<string, unknown>

const parsed = (text: unknown): unknown => typeof text === "string" ? JSON.parse(text) : undefined

const fromColumns = (columns: Stored): unknown => {
  const fingerprints = parsed(columns["tool_fingerprints"])
  return {
    id: columns["id"],
    name: columns["name"],
    type: columns["type"],
    ...(columns["url"] === null ? {} : { url: columns["url"] }),
    tools: parsed(columns["tools"]),
    ...(fingerprints === undefined ? {} : { toolFingerprints: fingerprints })
  }
}

// A row's columns back into a row, through the one row schema; thrown, for a synchronous block.
const rowOf = (columns: Stored): Row => {
  const operation = `read row ${String(columns["id"])}`
  const checked = toRow(fromColumns(columns), operation)
  if (Result.isFailure(checked)) throw checked.failure
  return checked.success
}

const SELECT = "SELECT id, name, type, url, tools, tool_fingerprints FROM mcp_connections"
const UPSERT = `INSERT INTO mcp_connections (id, name, type, url, tools, tool_fingerprints) VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (id) DO UPDATE SET name = excluded.name, type = excluded.type, url = excluded.url, tools = excluded.tools,
  tool_fingerprints = excluded.tool_fingerprints`

// Read what is recorded and write the merge in one immediate transaction, in one synchronous block
// (so no other fiber's statement lands inside it).
const write = (db: DatabaseSync, row: Row): void => {
  db.exec("BEGIN IMMEDIATE")
  try {
    const columns = db.prepare(`${SELECT} WHERE id = ?`).get(row.id)
    const next = merged(columns === undefined ? undefined : rowOf(columns), row)
    db.prepare(UPSERT).run(
      next.id,
      next.name,
      next.type,
      next.url ?? null,
      JSON.stringify(next.tools),
      next.toolFingerprints === undefined ? null : JSON.stringify(next.toolFingerprints)
    )
    db.exec("COMMIT")
  } catch (error) {
    db.exec("ROLLBACK")
    throw error
  }
}

const storeOver = (db: DatabaseSync): Store => ({
  list: attempt("list rows", () => db.prepare(`${SELECT} ORDER BY rowid`).all().map(rowOf)),
  get: (id) =>
    attempt(`read row ${id}`, () => {
      const columns = db.prepare(`${SELECT} WHERE id = ?`).get(id)
      return columns === undefined ? undefined : rowOf(columns)
    }),
  save: (row) =>
    Effect.flatMap(
      Effect.fromResult(toRow(row, `save ${row.id}`)),
      (checked) => attempt(`save ${row.id}`, () => write(db, checked))
    ),
  remove: (id) => attempt(`remove ${id}`, () => void db.prepare("DELETE FROM mcp_connections WHERE id = ?").run(id))
})

/**
 * Open (creating and migrating as needed) the store at `path` — a file, or `":memory:"` — in the
 * current scope; the scope's end closes the database.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpStoreSqlite, McpToolset } from "effect-surface/client"
 * const program = Effect.scoped(Effect.gen(function*() {
 *   const storage = yield* McpStoreSqlite.make("toolset.db")
 *   return yield* McpToolset.make([{ name: "memory", type: "stdio", command: "mcp-server-memory" }], { storage })
 * }))
 * ```
 *
 * @since 0.1.0
 */
export const make = (path: string): Effect.Effect<Store, StoreError, Scope.Scope> =>
  Effect.map(Effect.acquireRelease(open(path), (db) => Effect.sync(() => db.isOpen && db.close())), storeOver)

/**
 * The SQLite store as a layer.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpStore, McpStoreSqlite } from "effect-surface/client"
 * const program = Effect.flatMap(Effect.service(McpStore.McpConnectionStore), (store) => store.list).pipe(
 *   Effect.provide(McpStoreSqlite.layer(":memory:"))
 * )
 * ```
 *
 * @since 0.1.0
 */
export const layer = (path: string): Layer.Layer<McpConnectionStore, StoreError> =>
  Layer.effect(McpConnectionStore, make(path))
