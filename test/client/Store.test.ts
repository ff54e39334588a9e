// Connection stores: the memory and SQLite layers keep the same rules — a row holds only its
// enumerated fields, saving never replaces a recorded baseline, re-trust clears it — and the SQLite
// store has a versioned schema and survives a process restart (two processes on one file).
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import type { Scope } from "effect"
import { McpStore, McpStoreSqlite } from "effect-surface/client"
import { execFile } from "node:child_process"
import * as Path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { fileURLToPath } from "node:url"
import { tempDir } from "./servers.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))

const row = (id: string, fingerprints?: Record<string, string>): McpStore.Row => ({
  id,
  name: id,
  type: "streamable-http",
  url: "https://mcp.example.com/mcp",
  tools: [{
    name: "search",
    description: "Search the docs",
    inputSchema: { type: "object", properties: { q: { type: "string" } } }
  }],
  ...(fingerprints === undefined ? {} : { toolFingerprints: fingerprints })
})

const layers: ReadonlyArray<readonly [string, Effect.Effect<McpStore.Store, McpStore.StoreError, Scope.Scope>]> = [
  ["memory", McpStore.makeMemory],
  ["SQLite in memory", McpStoreSqlite.make(":memory:")],
  ["SQLite on a file", Effect.flatMap(tempDir, (dir) => McpStoreSqlite.make(Path.join(dir, "toolset.db")))]
]

for (const [label, open] of layers) {
  describe(`the ${label} store`, () => {
    it.effect("saves, reads, lists and removes rows, each exactly as saved", () =>
      Effect.gen(function*() {
        const store = yield* open
        assert.deepStrictEqual(yield* store.list, [])
        yield* store.save(row("docs", { search: "f1" }))
        yield* store.save(row("memory"))
        assert.deepStrictEqual(yield* store.get("docs"), row("docs", { search: "f1" }))
        assert.deepStrictEqual((yield* store.list).map((r) => r.id), ["docs", "memory"])
        yield* store.remove("docs")
        assert.isUndefined(yield* store.get("docs"))
        assert.deepStrictEqual((yield* store.list).map((r) => r.id), ["memory"])
      }))

    it.effect("saving never replaces a recorded baseline, though it refreshes the catalogue", () =>
      Effect.gen(function*() {
        const store = yield* open
        yield* store.save(row("docs", { search: "first" }))
        yield* store.save({
          ...row("docs", { search: "second", extra: "x" }),
          tools: [{ name: "search", description: "changed" }]
        })
        const saved = yield* store.get("docs")
        assert.deepStrictEqual(saved?.toolFingerprints, { search: "first" })
        assert.strictEqual(saved?.tools[0]?.description, "changed")
      }))

    it.effect("a row saved without a baseline takes the first one saved after it", () =>
      Effect.gen(function*() {
        const store = yield* open
        yield* store.save(row("docs"))
        yield* store.save(row("docs", { search: "first" }))
        yield* store.save(row("docs", { search: "second" }))
        assert.deepStrictEqual((yield* store.get("docs"))?.toolFingerprints, { search: "first" })
      }))

    it.effect("re-trust clears the baseline of every row with that server name and keeps the catalogue", () =>
      Effect.gen(function*() {
        const store = yield* open
        yield* store.save(row("docs", { search: "first" }))
        yield* store.save({ ...row("docs_1a2b3c4d", { search: "first" }), name: "docs" })
        yield* store.save(row("memory", { read_graph: "m" }))
        assert.strictEqual(yield* McpStore.retrust(store, "docs"), 2)
        const rows = yield* store.list
        assert.deepStrictEqual(rows.filter((r) => r.name === "docs").map((r) => r.toolFingerprints), [
          undefined,
          undefined
        ])
        assert.strictEqual(rows.find((r) => r.id === "docs")?.tools[0]?.name, "search")
        assert.deepStrictEqual((yield* store.get("memory"))?.toolFingerprints, { read_graph: "m" })
        yield* store.save(row("docs", { search: "second" }))
        assert.deepStrictEqual((yield* store.get("docs"))?.toolFingerprints, { search: "second" })
      }))

    it.effect("a row carries only its enumerated fields: anything else on the object saved is dropped", () =>
      Effect.gen(function*() {
        const store = yield* open
        const smuggled = {
          ...row("docs"),
          headers: { authorization: "Bearer s3cret" },
          env: { API_KEY: "s3cret" },
          open: () => undefined,
          tools: [{ name: "search", description: "d", annotations: { readOnlyHint: true }, token: "s3cret" }]
        }
        yield* store.save(smuggled as McpStore.Row)
        const saved = yield* store.get("docs")
        assert.deepStrictEqual(Object.keys(saved ?? {}).sort(), ["id", "name", "tools", "type", "url"])
        // A tool keeps its definition (annotations included, as a rebuilt map shows them); nothing else.
        assert.deepStrictEqual(saved?.tools, [{
          name: "search",
          description: "d",
          annotations: { readOnlyHint: true }
        }])
      }))

    it.effect("a row that is not a row is refused with a StoreError naming the field", () =>
      Effect.gen(function*() {
        const store = yield* open
        const error = yield* Effect.flip(
          store.save({ ...row("docs"), type: "carrier-pigeon" } as unknown as McpStore.Row)
        )
        assert.strictEqual(error._tag, "StoreError")
        assert.include(error.message, "type")
        assert.deepStrictEqual(yield* store.list, [])
      }))
  })
}

describe("the SQLite store's file", () => {
  it.effect("records its schema version, and refuses a file written by a later version", () =>
    Effect.gen(function*() {
      const file = Path.join(yield* tempDir, "toolset.db")
      yield* Effect.scoped(McpStoreSqlite.make(file))
      const db = new DatabaseSync(file)
      assert.strictEqual(db.prepare("PRAGMA user_version").get()?.["user_version"], McpStoreSqlite.SCHEMA_VERSION)
      db.exec(`PRAGMA user_version = ${McpStoreSqlite.SCHEMA_VERSION + 1}`)
      db.close()
      const opened = yield* Effect.exit(Effect.scoped(McpStoreSqlite.make(file)))
      assert.isTrue(Exit.isFailure(opened))
      const error = Exit.isFailure(opened) ? yield* Effect.flip(Effect.failCause(opened.cause)) : undefined
      assert.include(error?.message ?? "", "written by a later version")
    }))

  it.effect("a corrupt row reads as a StoreError, not a defect", () =>
    Effect.gen(function*() {
      const file = Path.join(yield* tempDir, "toolset.db")
      const store = yield* McpStoreSqlite.make(file)
      yield* store.save(row("docs"))
      const db = new DatabaseSync(file)
      db.prepare("UPDATE mcp_connections SET tools = ? WHERE id = ?").run("{not json", "docs")
      db.close()
      const error = yield* Effect.flip(store.get("docs"))
      assert.strictEqual(error._tag, "StoreError")
      assert.include(error.message, "read row docs")
    }))

  it.live(
    "survives a process restart: a second process on the same file reads what the first saved, and keeps its baseline",
    () =>
      Effect.gen(function*() {
        const file = Path.join(yield* tempDir, "toolset.db")
        const turn = (id: string, fingerprints: Record<string, string>) =>
          Effect.promise(() =>
            new Promise<ReadonlyArray<McpStore.Row>>((resolve, reject) =>
              execFile(
                process.execPath,
                [
                  "--conditions=effect-surface-source",
                  Path.join(root, "test/client/fixtures/store-process.ts"),
                  file,
                  id,
                  JSON.stringify(fingerprints)
                ],
                { cwd: root },
                (error, stdout) =>
                  error === null
                    ? resolve(Schema.decodeUnknownSync(Schema.Array(McpStore.RowSchema))(JSON.parse(stdout)))
                    : reject(error)
              )
            )
          )
        const first = yield* turn("docs", { search: "first" })
        assert.deepStrictEqual(first.map((r) => r.id), ["docs"])
        const second = yield* turn("docs", { search: "second" })
        assert.deepStrictEqual(second.map((r) => r.toolFingerprints), [{ search: "first" }])
        assert.notStrictEqual(
          second[0]?.tools[0]?.description,
          first[0]?.tools[0]?.description,
          "the catalogue was refreshed by the second process"
        )
        const third = yield* turn("memory", { read_graph: "m" })
        assert.deepStrictEqual(third.map((r) => r.id), ["docs", "memory"])
      }),
    { timeout: 60_000 }
  )
})
