/**
 * The audit: one row for every call a guard is asked to make, allowed or refused, whichever door
 * it came through.
 *
 * A guard exists so that someone can later say what an agent (or a person at a shell) did through
 * it and what was stopped. So every call leaves one row — when, through which door, which tool, a
 * digest of the arguments (never their values: they may hold what the audit must not), the
 * decision and its reason, how it ended and how long it took — appended as a JSON line, or to a
 * SQLite table when the path ends in `.db` (through `node:sqlite`; several processes may share the
 * file). The log is opened when the guard starts, so an audit that cannot be written stops the
 * guard before any call is made.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Schema, Semaphore } from "effect"
import { createHash } from "node:crypto"
import * as Fs from "node:fs/promises"
import { canonical } from "./internal/canonical.ts"

/**
 * One audit row. `decision` is the guard's (`deny` is a refusal it made, never sent upstream);
 * `outcome` how the call ended: answered (`ok`), answered with an error or failed on the way
 * (`error`), or `refused`.
 *
 * @example
 * ```ts
 * import type { Audit } from "effect-surface/serve"
 * const row: Audit.Row = {
 *   time: "2026-01-01T00:00:00.000Z", door: "cli", tool: "get-sum", args: "sha256:…",
 *   decision: "deny", reason: 'value at "a": expected at most 10, got 11', outcome: "refused", durationMs: 0.4
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Row {
  readonly time: string
  readonly door: "mcp" | "cli"
  readonly tool: string
  readonly args: string
  readonly decision: "allow" | "deny"
  readonly reason: string | null
  readonly outcome: "ok" | "error" | "refused"
  readonly durationMs: number
}

/**
 * The schema of a row, for a reader of the log.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Audit } from "effect-surface/serve"
 * const rows = (lines: ReadonlyArray<string>) => lines.map((line) => Schema.decodeUnknownSync(Audit.RowSchema)(JSON.parse(line)))
 * ```
 *
 * @since 0.1.0
 */
export const RowSchema = Schema.Struct({
  time: Schema.String,
  door: Schema.Literals(["mcp", "cli"]),
  tool: Schema.String,
  args: Schema.String,
  decision: Schema.Literals(["allow", "deny"]),
  reason: Schema.NullOr(Schema.String),
  outcome: Schema.Literals(["ok", "error", "refused"]),
  durationMs: Schema.Finite
})

/**
 * The audit could not be opened, written or read.
 *
 * @example
 * ```ts
 * import { Audit } from "effect-surface/serve"
 * new Audit.AuditError({ path: "audit.jsonl", reason: "permission denied" }).message // "audit audit.jsonl: permission denied"
 * ```
 *
 * @since 0.1.0
 */
export class AuditError
  extends Schema.TaggedError<AuditError>()("AuditError", { path: Schema.String, reason: Schema.String })
{
  override get message(): string {
    return `audit ${this.path}: ${this.reason}`
  }
}

/**
 * Where a guard's rows go.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Audit } from "effect-surface/serve"
 * declare const row: Audit.Row
 * const program = Effect.flatMap(Effect.service(Audit.AuditLog), (log) => log.write(row))
 * ```
 *
 * @since 0.1.0
 */
export class AuditLog extends Context.Service<AuditLog, {
  readonly path: string
  readonly write: (row: Row) => Effect.Effect<void, AuditError>
}>()("effect-surface/AuditLog") {}

/**
 * A digest of a call's arguments: the SHA-256 of their JSON with keys in order, so two calls with
 * the same arguments have the same digest and none of the values is in the log.
 *
 * @example
 * ```ts
 * import { Audit } from "effect-surface/serve"
 * Audit.digest({ b: 1, a: 2 }) === Audit.digest({ a: 2, b: 1 }) // true
 * ```
 *
 * @since 0.1.0
 */
export const digest = (args: unknown): string =>
  `sha256:${createHash("sha256").update(canonical(args ?? null)).digest("hex")}`

const reasonOf = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

/**
 * Rows as JSON lines appended to `path` (created when missing), one write at a time.
 *
 * @example
 * ```ts
 * import { Audit } from "effect-surface/serve"
 * const log = Audit.layerJsonl("audit.jsonl")
 * ```
 *
 * @since 0.1.0
 */
export const layerJsonl = (path: string): Layer.Layer<AuditLog, AuditError> =>
  Layer.effect(
    AuditLog,
    Effect.gen(function*() {
      const failed = (cause: unknown) => new AuditError({ path, reason: reasonOf(cause) })
      const file = yield* Effect.acquireRelease(
        Effect.tryPromise({ try: () => Fs.open(path, "a"), catch: failed }),
        (handle) => Effect.promise(() => handle.close())
      )
      const one = yield* Semaphore.make(1)
      return AuditLog.of({
        path,
        write: (row) =>
          one.withPermits(1)(
            Effect.tryPromise({ try: () => file.appendFile(`${JSON.stringify(row)}\n`), catch: failed })
          )
      })
    })
  )

// Loaded when a database is opened, not with the module: a command that audits to JSON lines, or
// only prints its help, neither needs node:sqlite nor shows the warning Node 22 prints as it loads.
const sqlite = () => process.getBuiltinModule("node:sqlite")

const TABLE = `CREATE TABLE IF NOT EXISTS audit (
  time TEXT NOT NULL, door TEXT NOT NULL, tool TEXT NOT NULL, args TEXT NOT NULL,
  decision TEXT NOT NULL, reason TEXT, outcome TEXT NOT NULL, duration_ms REAL NOT NULL
)`

/**
 * Rows in the `audit` table of the SQLite database at `path` (created when missing), in WAL mode so
 * several guards may append to one file.
 *
 * @example
 * ```ts
 * import { Audit } from "effect-surface/serve"
 * const log = Audit.layerSqlite("audit.db")
 * ```
 *
 * @since 0.1.0
 */
export const layerSqlite = (path: string): Layer.Layer<AuditLog, AuditError> =>
  Layer.effect(
    AuditLog,
    Effect.gen(function*() {
      const failed = (cause: unknown) => new AuditError({ path, reason: reasonOf(cause) })
      const db = yield* Effect.acquireRelease(
        Effect.try({
          try: () => {
            const opened = new (sqlite().DatabaseSync)(path)
            opened.exec("PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000")
            opened.exec(TABLE)
            return opened
          },
          catch: failed
        }),
        (opened) => Effect.sync(() => opened.close())
      )
      const insert = db.prepare("INSERT INTO audit VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
      return AuditLog.of({
        path,
        write: (row) =>
          Effect.asVoid(Effect.try({
            try: () =>
              insert.run(row.time, row.door, row.tool, row.args, row.decision, row.reason, row.outcome, row.durationMs),
            catch: failed
          }))
      })
    })
  )

/**
 * The log for `path`: SQLite when it ends in `.db`, JSON lines otherwise.
 *
 * @example
 * ```ts
 * import { Audit } from "effect-surface/serve"
 * Audit.layer("audit.db") // SQLite
 * Audit.layer("audit.jsonl") // JSON lines
 * ```
 *
 * @since 0.1.0
 */
export const layer = (path: string): Layer.Layer<AuditLog, AuditError> =>
  path.endsWith(".db") ? layerSqlite(path) : layerJsonl(path)

const decodeRow = Schema.decodeUnknownEffect(RowSchema)

/**
 * Every row in the log at `path`, oldest first.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Audit } from "effect-surface/serve"
 * const refused = Effect.map(Audit.read("audit.jsonl"), (rows) => rows.filter((row) => row.decision === "deny"))
 * ```
 *
 * @since 0.1.0
 */
export const read = (path: string): Effect.Effect<ReadonlyArray<Row>, AuditError> => {
  const failed = (cause: unknown) => new AuditError({ path, reason: reasonOf(cause) })
  if (path.endsWith(".db")) {
    return Effect.flatMap(
      Effect.try({
        try: () => {
          const db = new (sqlite().DatabaseSync)(path, { readOnly: true })
          try {
            return db.prepare(
              "SELECT time, door, tool, args, decision, reason, outcome, duration_ms AS durationMs FROM audit ORDER BY rowid"
            ).all()
          } finally {
            db.close()
          }
        },
        catch: failed
      }),
      (rows) => Effect.mapError(Effect.forEach(rows, (row) => decodeRow({ ...row })), failed)
    )
  }
  return Effect.tryPromise({ try: () => Fs.readFile(path, "utf8"), catch: failed }).pipe(
    Effect.flatMap((text) =>
      Effect.forEach(
        text.split("\n").filter((line) => line !== ""),
        (line) =>
          Effect.try({ try: (): unknown => JSON.parse(line), catch: failed }).pipe(
            Effect.flatMap((json) => Effect.mapError(decodeRow(json), failed))
          )
      )
    )
  )
}
