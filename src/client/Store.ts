/**
 * Where a toolset keeps what it must remember across a restart: which servers it connected, the
 * catalogue each published last, and the baseline each was first trusted with.
 *
 * A process that sleeps (a Durable Object, a serverless worker, an agent restarted between turns)
 * cannot keep a connection, but it can keep a row per server and rebuild the map from it without
 * asking a server anything. A row is an enumerated, secret-free subset — id, name, type, url, tools,
 * toolFingerprints — decoded through one schema on the way in and out, so nothing else a caller's
 * object carries (a header, an environment value, a token, a function) can reach storage: the
 * configuration is given again on wake. A URL is stored without its user info, query or fragment,
 * where credentials travel. `tools` is a cache refreshed on every listing; `toolFingerprints` is
 * the drift baseline, recorded once, which `save` keeps whatever it is given — only `retrust`
 * (remove, then save without it) clears it. Two layers: in memory, and SQLite (`McpStoreSqlite`).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { toInputError } from "../core/internal/issues.ts"
import type * as Diagnostic from "./Diagnostic.ts"
import * as Drift from "./Drift.ts"

/**
 * The transports a row may name.
 *
 * @example
 * ```ts
 * import type { McpStore } from "effect-surface/client"
 * const type: McpStore.ServerType = "streamable-http"
 * ```
 *
 * @since 0.1.0
 */
export type ServerType = "stdio" | "streamable-http" | "sse" | "transport"

/**
 * One server as stored. `id` is the server's key in the toolset (its name, or its name with a
 * suffix when two servers share it); `url` is absent for a stdio or caller-opened server;
 * `toolFingerprints` is absent until a baseline is recorded.
 *
 * @example
 * ```ts
 * import type { McpStore } from "effect-surface/client"
 * const row: McpStore.Row = {
 *   id: "docs", name: "docs", type: "streamable-http", url: "https://mcp.example.com/mcp",
 *   tools: [{ name: "search", description: "Search the docs", inputSchema: { type: "object" } }],
 *   toolFingerprints: { search: "q1w2e3…" }
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Row {
  readonly id: string
  readonly name: string
  readonly type: ServerType
  readonly url?: string | undefined
  readonly tools: ReadonlyArray<Drift.Listed>
  readonly toolFingerprints?: Drift.Baseline | undefined
}

/**
 * The schema every row passes through on its way in and out of a store: it keeps exactly the
 * enumerated fields and drops anything else.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { McpStore } from "effect-surface/client"
 * const row = Schema.decodeUnknownSync(McpStore.RowSchema)({ id: "a", name: "a", type: "stdio", tools: [], headers: { x: "1" } })
 * "headers" in row // false
 * ```
 *
 * @since 0.1.0
 */
export const RowSchema = Schema.Struct({
  id: Schema.NonEmptyString,
  name: Schema.NonEmptyString,
  type: Schema.Literals(["stdio", "streamable-http", "sse", "transport"]),
  url: Schema.optionalKey(Schema.String),
  tools: Schema.Array(Drift.ListedSchema),
  toolFingerprints: Schema.optionalKey(Schema.Record(Schema.String, Schema.String))
})
const decodeRow = Schema.decodeUnknownResult(RowSchema, { errors: "all" })

/**
 * A store could not do what it was asked (the database is locked, a row in it is not a row).
 *
 * @example
 * ```ts
 * import { McpStore } from "effect-surface/client"
 * new McpStore.StoreError({ operation: "save docs", reason: "database is locked" }).message
 * ```
 *
 * @since 0.1.0
 */
export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  operation: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `the MCP connection store could not ${this.operation}: ${this.reason}`
  }
}

/**
 * A row checked: exactly its enumerated fields, or a `StoreError` naming what is wrong.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { McpStore } from "effect-surface/client"
 * Result.isSuccess(McpStore.toRow({ id: "a", name: "a", type: "stdio", tools: [] }, "save a")) // true
 * ```
 *
 * @since 0.1.0
 */
export const toRow = (input: unknown, operation: string): Result.Result<Row, StoreError> =>
  Result.mapError(
    decodeRow(input),
    (error) => new StoreError({ operation, reason: `not a connection row: ${toInputError(error.issue, []).message}` })
  )

/**
 * What saving `incoming` over `existing` writes: the new row, with the baseline already recorded
 * kept. The one rule every store applies.
 *
 * @example
 * ```ts
 * import { McpStore } from "effect-surface/client"
 * const old: McpStore.Row = { id: "a", name: "a", type: "stdio", tools: [], toolFingerprints: { t: "1" } }
 * McpStore.merged(old, { ...old, toolFingerprints: { t: "2" } }).toolFingerprints // { t: "1" }
 * ```
 *
 * @since 0.1.0
 */
export const merged = (existing: Row | undefined, incoming: Row): Row => {
  const { toolFingerprints: _given, ...rest } = incoming
  const baseline = existing?.toolFingerprints ?? incoming.toolFingerprints
  return baseline === undefined ? rest : { ...rest, toolFingerprints: baseline }
}

/**
 * A URL as a row keeps it: scheme, host and path — user info, query and fragment, where a
 * credential can travel, are never written.
 *
 * @example
 * ```ts
 * import { McpStore } from "effect-surface/client"
 * McpStore.storedUrl("https://user:pw@mcp.example.com/mcp?key=s3cret") // "https://mcp.example.com/mcp"
 * ```
 *
 * @since 0.1.0
 */
export const storedUrl = (url: string): string => {
  const parsed = new URL(url)
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`
}

/**
 * A connection store: every row, one row, save (keeping a recorded baseline), remove.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { McpStore } from "effect-surface/client"
 * declare const store: McpStore.Store
 * const names = Effect.map(store.list, (rows) => rows.map((row) => row.name))
 * ```
 *
 * @since 0.1.0
 */
export interface Store {
  readonly list: Effect.Effect<ReadonlyArray<Row>, StoreError>
  readonly get: (id: string) => Effect.Effect<Row | undefined, StoreError>
  /** Write the row's enumerated fields; a baseline already recorded for its id is kept. */
  readonly save: (row: Row) => Effect.Effect<void, StoreError>
  readonly remove: (id: string) => Effect.Effect<void, StoreError>
}

/**
 * The store as a service, for a program that is handed one.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpStore, McpToolset } from "effect-surface/client"
 * const program = Effect.gen(function*() {
 *   const storage = yield* McpStore.McpConnectionStore
 *   return yield* McpToolset.make([{ name: "memory", type: "stdio", command: "mcp-server-memory" }], { storage })
 * })
 * ```
 *
 * @since 0.1.0
 */
export class McpConnectionStore
  extends Context.Service<McpConnectionStore, Store>()("effect-surface/McpConnectionStore")
{}

/**
 * A store in memory: rows live as long as the value (rebuilds within one process, and tests).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpStore } from "effect-surface/client"
 * const program = Effect.flatMap(McpStore.makeMemory, (store) => store.list)
 * ```
 *
 * @since 0.1.0
 */
export const makeMemory: Effect.Effect<Store> = Effect.map(
  Ref.make<ReadonlyMap<string, Row>>(new Map()),
  (rows): Store => ({
    list: Effect.map(Ref.get(rows), (map) => [...map.values()]),
    get: (id) => Effect.map(Ref.get(rows), (map) => map.get(id)),
    save: (row) =>
      Effect.flatMap(
        Effect.fromResult(toRow(row, `save ${row.id}`)),
        (checked) => Ref.update(rows, (map) => new Map(map).set(checked.id, merged(map.get(checked.id), checked)))
      ),
    remove: (id) =>
      Ref.update(rows, (map) => {
        const next = new Map(map)
        next.delete(id)
        return next
      })
  })
)

/**
 * The memory store as a layer.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpStore } from "effect-surface/client"
 * const program = Effect.flatMap(Effect.service(McpStore.McpConnectionStore), (store) => store.list).pipe(Effect.provide(McpStore.layerMemory))
 * ```
 *
 * @since 0.1.0
 */
export const layerMemory: Layer.Layer<McpConnectionStore> = Layer.effect(McpConnectionStore, makeMemory)

/**
 * Clear the baseline of every row named `serverName`, when a change was legitimate: the next
 * listing of that server is trusted and recorded as its new baseline. Saving alone cannot do this,
 * by design; this removes each row and saves it again without its fingerprints (its catalogue is
 * kept, for a rebuild). Answers how many rows it cleared.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpStore } from "effect-surface/client"
 * declare const store: McpStore.Store
 * const cleared = McpStore.retrust(store, "docs")
 * ```
 *
 * @since 0.1.0
 */
export const retrust = (store: Store, serverName: string): Effect.Effect<number, StoreError> =>
  Effect.gen(function*() {
    const rows = (yield* store.list).filter((row) => row.name === serverName)
    for (const row of rows) {
      const { toolFingerprints: _cleared, ...kept } = row
      yield* store.remove(row.id)
      yield* store.save(kept)
    }
    return rows.length
  }).pipe(Effect.withSpan("McpStore.retrust", { attributes: { "mcp.server": serverName } }))

/**
 * The connection store could not be read or written for a server. While its baseline cannot be
 * read, a fresh listing is not taken in (a changed tool could not be told from a trusted one).
 *
 * @example
 * ```ts
 * import { McpStore } from "effect-surface/client"
 * McpStore.storeUnavailable("docs", "database is locked").message
 * ```
 *
 * @since 0.1.0
 */
export const storeUnavailable = (server: string, reason: string): Diagnostic.Diagnostic => ({
  kind: "store-unavailable",
  level: "warning",
  server,
  reason,
  message:
    `the connection store failed for MCP server "${server}" (${reason}); its tool list stays as it was until the store answers.`
})

/**
 * The stored row of a server was for another endpoint (its type or URL differs): a different
 * endpoint is a different catalogue, so its baseline was dropped and this listing recorded instead.
 *
 * @example
 * ```ts
 * import { McpStore } from "effect-surface/client"
 * McpStore.storedRowReplaced("docs", "stored for https://old.example/mcp").message
 * ```
 *
 * @since 0.1.0
 */
export const storedRowReplaced = (server: string, reason: string): Diagnostic.Diagnostic => ({
  kind: "stored-row-replaced",
  level: "warning",
  server,
  reason,
  message:
    `the stored row of MCP server "${server}" was for another endpoint (${reason}); it was replaced and this server's tools trusted afresh.`
})

/**
 * After a rebuild, the server could not be reached to check its stored tools: the map shows what it
 * published last time, and the next call dials again.
 *
 * @example
 * ```ts
 * import { McpStore } from "effect-surface/client"
 * McpStore.serverUnreconciled("memory", "the process exited").message
 * ```
 *
 * @since 0.1.0
 */
export const serverUnreconciled = (server: string, reason: string): Diagnostic.Diagnostic => ({
  kind: "server-unreconciled",
  level: "warning",
  server,
  reason,
  message:
    `MCP server "${server}" could not be reached to check its stored tools (${reason}); the map shows what it published ` +
    `last time, and the next call dials it again.`
})

/**
 * A rebuild was given a server the store holds nothing for: it has no tools until its first listing
 * comes in, in the background.
 *
 * @example
 * ```ts
 * import { McpStore } from "effect-surface/client"
 * McpStore.serverNotStored("docs").message
 * ```
 *
 * @since 0.1.0
 */
export const serverNotStored = (server: string): Diagnostic.Diagnostic => ({
  kind: "server-not-stored",
  level: "info",
  server,
  message: `MCP server "${server}" has no stored row; its tools appear once it has been listed.`
})

/**
 * The store holds a server the rebuild was not given: without its configuration (command, headers)
 * it cannot be reached, so it is left out.
 *
 * @example
 * ```ts
 * import { McpStore } from "effect-surface/client"
 * McpStore.storedServerUnconfigured("legacy").message
 * ```
 *
 * @since 0.1.0
 */
export const storedServerUnconfigured = (server: string): Diagnostic.Diagnostic => ({
  kind: "stored-server-unconfigured",
  level: "info",
  server,
  message:
    `the store holds MCP server "${server}", which the configuration does not name; it is left out (the store keeps no ` +
    `command or header to reach it with).`
})
