/**
 * A SQLite file of the client's own (the connection store's, the token store's), opened at the
 * schema version its module writes.
 *
 * `node:sqlite` is loaded when a file is opened, not with the module: a program that never opens one
 * (a command's `--help`) neither needs it nor shows the warning Node 22 prints as it loads. The schema
 * version lives in `PRAGMA user_version`, so a later version of the package can migrate a file this
 * one wrote, and a file from a later version is refused rather than misread. Everything here throws,
 * for the calling module's one `attempt` to word.
 *
 * A file that holds secrets is created 0600 before SQLite opens it (SQLite gives its journal, WAL
 * and shared-memory files the database's own mode). One that already exists is used only if it is
 * its owner's alone: a file (or a side file) that grants the group or others any access, or that
 * another user owns, or that sits in a directory others may write to (so they could swap it or
 * plant a journal beside it), is refused with a sentence saying how to make it private. Refused,
 * not tightened: whoever could read it may have read it already, and only the person can judge
 * whether the tokens in it must be revoked. POSIX modes only: on Windows nothing is checked.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
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

const SIDE_FILES = ["-journal", "-wal", "-shm"]

const modeOf = (mode: number): string => (mode & 0o7777).toString(8).padStart(4, "0")

const statOf = (path: string): Fs.Stats | undefined => Fs.statSync(path, { throwIfNoEntry: false })

// Why the directory `path` is named in lets others replace what is in it, or nothing. A sticky
// directory (/tmp) lets no one but a file's owner rename or remove it.
const directoryExposure = (path: string): string | undefined => {
  const directory = Path.dirname(Path.resolve(path))
  const stat = statOf(directory)
  if (stat === undefined || (stat.mode & 0o022) === 0 || (stat.mode & 0o1000) !== 0) return undefined
  return `the directory ${directory} can be written by others (mode ${modeOf(stat.mode)}), so they could ` +
    `replace ${Path.basename(path)} or plant a journal beside it; it was not used: ` +
    `run chmod go-w "${directory}", or keep the file in a directory of your own`
}

// Why an existing file (the database, or a journal beside it) is not its owner's alone, or nothing.
const fileExposure = (file: string, database: string): string | undefined => {
  const stat = statOf(file)
  if (stat === undefined) return undefined
  const uid = process.getuid?.()
  if (uid !== undefined && stat.uid !== uid) {
    return `${file} belongs to another user (uid ${stat.uid}), so it was not used: remove it, or name another path`
  }
  if ((stat.mode & 0o077) === 0) return undefined
  return `${file} can be read or written by others (mode ${modeOf(stat.mode)}), so the secrets it holds may ` +
    `have been read and it was not used: run chmod 600 "${file}"${file === database ? "" : ` "${database}"`} if ` +
    `no one else could have read it, or else remove it and sign in again`
}

// Before SQLite reads or writes a byte: an existing file its owner's alone, a new one created so.
const ensurePrivate = (path: string): void => {
  if (path === ":memory:") return
  if (process.platform !== "win32") {
    const exposed = directoryExposure(path) ??
      [path, ...SIDE_FILES.map((suffix) => path + suffix)].map((file) => fileExposure(file, path))
        .find((found) => found !== undefined)
    if (exposed !== undefined) throw new Error(exposed)
  }
  if (!Fs.existsSync(path)) Fs.closeSync(Fs.openSync(path, "wx", 0o600))
}

/** Open `path` (created if absent) at `schema`'s version, or throw saying why it cannot be read. */
export const open = (path: string, schema: Schema): DatabaseSync => {
  if (schema.private === true) ensurePrivate(path)
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
