/**
 * The audit: the rows a guard writes for every call it is asked to make, allowed or refused,
 * whichever door it came through.
 *
 * A guard exists so that someone can later say what an agent (or a person at a shell) did through
 * it and what was stopped. A row says when, through which door, which tool, a keyed digest of the
 * arguments (never their values: they may hold what the audit must not), the decision and its
 * reason, how the call ended and how long it took — appended as a JSON line, or to a SQLite table
 * when the path ends in `.db` (through `node:sqlite`; several processes may share the file).
 *
 * The audit fails closed. It is opened, with its key, when the guard starts, so an audit that
 * cannot be opened stops the guard; and an allowed call is recorded (`started`) before it is sent,
 * so a call whose row cannot be written is not sent, and a call that was sent is on record even if
 * the process dies before it ends. Its outcome row follows under the same `id`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import * as Fs from "node:fs/promises"
import * as AuditKey from "./AuditKey.ts"

/**
 * One audit row. `id` is the call's: an allowed call has two rows under it, `started` (written
 * before the call is sent) and the one saying how it ended; a refused one has one. `time` is when
 * the call came in, `durationMs` how long after that the row was written. `decision` is the
 * guard's: `allow`, `deny` (a refusal it made, never sent upstream), or `none` (it did not decide:
 * the call was cancelled first, or the guard failed deciding). `outcome`: `started`, answered
 * (`ok`), answered with an error or failed on the way (`error`), `refused`, or `cancelled`.
 *
 * @example
 * ```ts
 * import type { Audit } from "effect-surface/guard"
 * const row: Audit.Row = {
 *   id: "5f0c…", time: "2026-01-01T00:00:00.000Z", door: "cli", tool: "get-sum", args: "hmac-sha256:…",
 *   decision: "deny", reason: 'value at "a": expected a number at most 10', outcome: "refused", durationMs: 0.4
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Row {
  readonly id: string
  readonly time: string
  readonly door: "mcp" | "cli"
  readonly tool: string
  readonly args: string
  readonly decision: "allow" | "deny" | "none"
  readonly reason: string | null
  readonly outcome: "started" | "ok" | "error" | "refused" | "cancelled"
  readonly durationMs: number
  /** Who called: the subject of the caller's verified token, or `local` (rows written before callers were named have none). */
  readonly subject?: string
  /** The client the caller called through (`local` where no token was verified). */
  readonly client?: string
}

/**
 * The schema of a row, for a reader of the log.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Audit } from "effect-surface/guard"
 * const rows = (lines: ReadonlyArray<string>) => lines.map((line) => Schema.decodeUnknownSync(Audit.RowSchema)(JSON.parse(line)))
 * ```
 *
 * @since 0.1.0
 */
export const RowSchema = Schema.Struct({
  id: Schema.String,
  time: Schema.String,
  door: Schema.Literals(["mcp", "cli"]),
  tool: Schema.String,
  args: Schema.String,
  decision: Schema.Literals(["allow", "deny", "none"]),
  reason: Schema.NullOr(Schema.String),
  outcome: Schema.Literals(["started", "ok", "error", "refused", "cancelled"]),
  durationMs: Schema.Finite,
  subject: Schema.optionalKey(Schema.String),
  client: Schema.optionalKey(Schema.String)
})

/**
 * The audit could not be opened, written or read, or its key could not be used.
 *
 * @example
 * ```ts
 * import { Audit } from "effect-surface/guard"
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
 * Where a guard's rows go, and the keyed digest they name arguments by.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Audit } from "effect-surface/guard"
 * declare const row: Audit.Row
 * const program = Effect.flatMap(Effect.service(Audit.AuditLog), (log) => log.write({ ...row, args: log.digest({ a: 1 }) }))
 * ```
 *
 * @since 0.1.0
 */
export class AuditLog extends Context.Service<AuditLog, {
  readonly path: string
  readonly write: (row: Row) => Effect.Effect<void, AuditError>
  readonly digest: (args: unknown) => string
}>()("effect-surface/AuditLog") {}

/**
 * Where the key of an audit is: the path given, or beside the log (`audit.jsonl.key`).
 *
 * @example
 * ```ts
 * import { Audit } from "effect-surface/guard"
 * Audit.keyPath("/var/guard/audit.jsonl") // "/var/guard/audit.jsonl.key"
 * ```
 *
 * @since 0.1.0
 */
export const keyPath = (path: string, key?: string): string => key ?? `${path}.key`

/**
 * How an audit is opened: `key`, the path of its key file (which must exist); without it, the key
 * beside the log, made when missing.
 *
 * @example
 * ```ts
 * import type { Audit } from "effect-surface/guard"
 * const options: Audit.Options = { key: "/etc/guard/audit.key" }
 * ```
 *
 * @since 0.1.0
 */
export interface Options {
  readonly key?: string | undefined
}

// A named key is the operator's, so a missing one is a mistake to report; the default is ours to make.
const openKey = (path: string, options: Options) =>
  (options.key === undefined ? AuditKey.readOrCreate(keyPath(path)) : AuditKey.read(options.key)).pipe(
    Effect.map((key) => (args: unknown) => AuditKey.digest(key, args)),
    Effect.mapError((error) => new AuditError({ path, reason: error.message }))
  )

const reasonOf = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

/**
 * Rows as JSON lines appended to `path` (created when missing), one write at a time.
 *
 * @example
 * ```ts
 * import { Audit } from "effect-surface/guard"
 * const log = Audit.layerJsonl("audit.jsonl")
 * ```
 *
 * @since 0.1.0
 */
export const layerJsonl = (path: string, options: Options = {}): Layer.Layer<AuditLog, AuditError> =>
  Layer.effect(
    AuditLog,
    Effect.gen(function*() {
      const failed = (cause: unknown) => new AuditError({ path, reason: reasonOf(cause) })
      const digest = yield* openKey(path, options)
      const file = yield* Effect.acquireRelease(
        Effect.tryPromise({ try: () => Fs.open(path, "a"), catch: failed }),
        (handle) => Effect.promise(() => handle.close())
      )
      const one = yield* Semaphore.make(1)
      return AuditLog.of({
        path,
        digest,
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

const COLUMNS = [
  "id",
  "time",
  "door",
  "tool",
  "args",
  "decision",
  "reason",
  "outcome",
  "duration_ms",
  "subject",
  "client"
] as const

const TABLE = `CREATE TABLE IF NOT EXISTS audit (
  id TEXT NOT NULL, time TEXT NOT NULL, door TEXT NOT NULL, tool TEXT NOT NULL, args TEXT NOT NULL,
  decision TEXT NOT NULL, reason TEXT, outcome TEXT NOT NULL, duration_ms REAL NOT NULL,
  subject TEXT, client TEXT
)`

// A table made before rows named their caller gains the two columns (its old rows keep none).
const addCallerColumns = (
  db: { readonly exec: (sql: string) => void; readonly prepare: (sql: string) => { all: () => Array<unknown> } }
) => {
  const names = new Set(
    db.prepare("PRAGMA table_info(audit)").all().map((column) => (column as { readonly name: string }).name)
  )
  for (const column of ["subject", "client"]) {
    if (!names.has(column)) db.exec(`ALTER TABLE audit ADD COLUMN ${column} TEXT`)
  }
}

/**
 * Rows in the `audit` table of the SQLite database at `path` (created when missing), in WAL mode so
 * several guards may append to one file.
 *
 * @example
 * ```ts
 * import { Audit } from "effect-surface/guard"
 * const log = Audit.layerSqlite("audit.db")
 * ```
 *
 * @since 0.1.0
 */
export const layerSqlite = (path: string, options: Options = {}): Layer.Layer<AuditLog, AuditError> =>
  Layer.effect(
    AuditLog,
    Effect.gen(function*() {
      const failed = (cause: unknown) => new AuditError({ path, reason: reasonOf(cause) })
      const digest = yield* openKey(path, options)
      const db = yield* Effect.acquireRelease(
        Effect.try({
          try: () => {
            const opened = new (sqlite().DatabaseSync)(path)
            opened.exec("PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000")
            opened.exec(TABLE)
            addCallerColumns(opened)
            return opened
          },
          catch: failed
        }),
        (opened) => Effect.sync(() => opened.close())
      )
      // Prepared now, so a table of another shape stops the guard rather than its first call.
      const insert = yield* Effect.try({
        try: () =>
          db.prepare(`INSERT INTO audit (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map(() => "?").join(", ")})`),
        catch: failed
      })
      return AuditLog.of({
        path,
        digest,
        write: (row) =>
          Effect.asVoid(Effect.try({
            try: () =>
              insert.run(
                row.id,
                row.time,
                row.door,
                row.tool,
                row.args,
                row.decision,
                row.reason,
                row.outcome,
                row.durationMs,
                row.subject ?? null,
                row.client ?? null
              ),
            catch: failed
          }))
      })
    })
  )

/**
 * The log for `path`: SQLite when it ends in `.db`, JSON lines otherwise; its key as `options` say.
 *
 * @example
 * ```ts
 * import { Audit } from "effect-surface/guard"
 * Audit.layer("audit.db") // SQLite, keyed by audit.db.key (made when missing)
 * Audit.layer("audit.jsonl", { key: "/etc/guard/audit.key" }) // JSON lines
 * ```
 *
 * @since 0.1.0
 */
export const layer = (path: string, options: Options = {}): Layer.Layer<AuditLog, AuditError> =>
  path.endsWith(".db") ? layerSqlite(path, options) : layerJsonl(path, options)

const decodeRow = Schema.decodeUnknownEffect(RowSchema)

/**
 * Every row in the log at `path`, oldest first.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Audit } from "effect-surface/guard"
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
              "SELECT id, time, door, tool, args, decision, reason, outcome, duration_ms AS durationMs, subject, client FROM audit ORDER BY rowid"
            ).all()
          } finally {
            db.close()
          }
        },
        catch: failed
      }),
      // A row written before callers were named holds NULL there: no key, as in its JSON line.
      (rows) =>
        Effect.mapError(
          Effect.forEach(rows, (row) =>
            decodeRow(
              Object.fromEntries(
                Object.entries(row).filter(([key, value]) => value !== null || (key !== "subject" && key !== "client"))
              )
            )),
          failed
        )
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
