// The SQLite token store holds refresh tokens, so its file must be its owner's alone: a new one is
// created 0600 (and so are the journals SQLite writes beside it), and an existing one that others
// may read or write, that another user owns, or that sits in a directory others may write to is
// refused with a sentence naming the path, the mode and the fix — with nothing written to it.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { McpTokenStoreSqlite } from "effect-surface/client"
import { tempDir } from "./servers.ts"

const SERVER = "https://mcp.example.com/mcp"
const saved = {
  server: SERVER,
  issuer: "https://issuer.example",
  credentials: { tokens: { access_token: "a", token_type: "Bearer", refresh_token: "s3cret-refresh" } }
}

const modeOf = (file: string) => Fs.statSync(file).mode & 0o777

// A file at `file` with `mode` set as given (past the umask), holding `content`.
const planted = (file: string, mode: number, content = "") => {
  Fs.writeFileSync(file, content)
  Fs.chmodSync(file, mode)
}

const refusal = (file: string) => Effect.flip(McpTokenStoreSqlite.make(file))

describe.skipIf(process.platform === "win32")("the SQLite token store's file", () => {
  it.live("a new file is created 0600, and the journals SQLite writes beside it are 0600 too", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "tokens.db")
      const store = yield* McpTokenStoreSqlite.make(file)
      yield* store.save(saved)
      const db = new (process.getBuiltinModule("node:sqlite").DatabaseSync)(file)
      db.exec("BEGIN IMMEDIATE")
      db.exec("INSERT INTO mcp_oauth_credentials VALUES ('x', 'y', '{}', 2)")
      const during = Fs.readdirSync(dir).map((name) => [name, modeOf(Path.join(dir, name))] as const)
      db.exec("ROLLBACK")
      db.close()
      assert.includeDeepMembers(during.map(([name]) => name), ["tokens.db", "tokens.db-journal"])
      for (const [name, mode] of during) assert.strictEqual(mode, 0o600, name)
      assert.strictEqual((yield* store.latest(SERVER))?.credentials.tokens?.refresh_token, "s3cret-refresh")
    }))

  for (const mode of [0o666, 0o644, 0o640, 0o604, 0o660]) {
    const octal = mode.toString(8).padStart(4, "0")
    it.live(`an existing file of mode ${octal} is refused, naming the path, the mode and chmod 600, and nothing is written to it`, () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const file = Path.join(dir, "tokens.db")
        planted(file, mode)
        const refused = yield* refusal(file)
        assert.strictEqual(refused._tag, "TokenStoreError")
        assert.include(refused.message, file)
        assert.include(refused.message, `mode ${octal}`)
        assert.include(refused.message, `chmod 600 "${file}"`)
        assert.strictEqual(Fs.statSync(file).size, 0, "nothing was written")
        assert.strictEqual(modeOf(file), mode, "its mode was left for the person to judge")
        assert.deepStrictEqual(Fs.readdirSync(dir), ["tokens.db"])
      }))
  }

  it.live("a file made private as the refusal says is used", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "tokens.db")
      planted(file, 0o666)
      yield* refusal(file)
      Fs.chmodSync(file, 0o600)
      const store = yield* McpTokenStoreSqlite.make(file)
      yield* store.save(saved)
      assert.strictEqual((yield* store.latest(SERVER))?.issuer, saved.issuer)
    }))

  it.live("a journal left beside a private file that others may read is refused, naming the journal", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "tokens.db")
      yield* Effect.scoped(McpTokenStoreSqlite.make(file))
      planted(`${file}-wal`, 0o644)
      const refused = yield* refusal(file)
      assert.include(refused.message, `${file}-wal`)
      assert.include(refused.message, "mode 0644")
    }))

  it.live("a file in a directory others may write to is refused, naming the directory and chmod go-w", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const shared = Path.join(dir, "shared")
      Fs.mkdirSync(shared)
      Fs.chmodSync(shared, 0o777)
      const file = Path.join(shared, "tokens.db")
      const refused = yield* refusal(file)
      assert.include(refused.message, `the directory ${shared}`)
      assert.include(refused.message, "mode 0777")
      assert.include(refused.message, `chmod go-w "${shared}"`)
      assert.isFalse(Fs.existsSync(file), "no file was created there")
    }))

  it.live("a directory others may write to but whose sticky bit keeps them from replacing the file is accepted", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const sticky = Path.join(dir, "sticky")
      Fs.mkdirSync(sticky)
      Fs.chmodSync(sticky, 0o1777)
      const file = Path.join(sticky, "tokens.db")
      yield* Effect.scoped(McpTokenStoreSqlite.make(file))
      assert.strictEqual(modeOf(file), 0o600)
    }))

  it.live.runIf(process.getuid?.() === 0)(
    "a private file another user owns is refused, naming its owner",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const file = Path.join(dir, "tokens.db")
        planted(file, 0o600)
        Fs.chownSync(file, 4242, 4242)
        const refused = yield* refusal(file)
        assert.include(refused.message, `${file} belongs to another user (uid 4242)`)
        assert.strictEqual(Fs.statSync(file).size, 0)
      })
  )
})
