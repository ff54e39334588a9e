/**
 * A SQLite file of the client's own (the connection store's, the token store's), opened at the
 * schema version its module writes.
 *
 * `node:sqlite` is loaded when a file is opened, not with the module: a program that never opens one
 * (a command's `--help`) neither needs it nor shows the warning Node 22 prints as it loads. The schema
 * version lives in `PRAGMA user_version`, so a later version of the package can migrate a file this
 * one wrote, and a file from a later version is refused rather than misread. Everything here throws,
 * for the calling module's one `attempt` to word.
 */
import * as Fs from "node:fs"
import type { DatabaseSync } from "node:sqlite"

/** What a module's file holds: the statement creating its table, and the version that is. */
export interface Schema {
  readonly create: string
  readonly version: number
  /** A new file is created readable and writable by its owner only (it holds secrets). */
  readonly private?: boolean | undefined
}

const versionOf = (db: DatabaseSync): number => Number(db.prepare("PRAGMA user_version").get()?.["user_version"] ?? 0)

// Inside an immediate transaction: two processes opening a new file create the table once.
const migrate = (db: DatabaseSync, schema: Schema): void => {
  db.exec("BEGIN IMMEDIATE")
  try {
    if (versionOf(db) === 0) {
      db.exec(schema.create)
      db.exec(`PRAGMA user_version = ${schema.version}`)
    }
    db.exec("COMMIT")
  } catch (error) {
    db.exec("ROLLBACK")
    throw error
  }
}

// Before SQLite writes a byte to it.
const createPrivate = (path: string): void => {
  if (path === ":memory:" || Fs.existsSync(path)) return
  Fs.closeSync(Fs.openSync(path, "wx", 0o600))
}

/** Open `path` (created if absent) at `schema`'s version, or throw saying why it cannot be read. */
export const open = (path: string, schema: Schema): DatabaseSync => {
  if (schema.private === true) createPrivate(path)
  const db = new (process.getBuiltinModule("node:sqlite").DatabaseSync)(path)
  try {
    db.exec("PRAGMA busy_timeout = 5000")
    if (versionOf(db) < schema.version) migrate(db, schema)
    const version = versionOf(db)
    if (version !== schema.version) {
      throw new Error(
        `its schema is version ${version}, written by a later version of this package; this one reads version ${schema.version}`
      )
    }
    return db
  } catch (error) {
    db.close()
    throw error
  }
}
