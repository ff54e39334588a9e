// What a store writes: only a row's enumerated fields, never a credential. A toolset connects with a
// secret header, a secret bearer from `auth`, a secret in the URL's query and a secret environment
// value, records into a SQLite file, and the file's bytes (with its journal) hold none of them —
// while they do hold the catalogue, so the read is not of an empty file.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { McpCallResult, McpStoreSqlite, McpToolset } from "effect-surface/client"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { everythingHttp, memoryStdio, tempDir } from "./servers.ts"

const HEADER = "hdr-5f0c2a9e-secret"
const BEARER = "tok-8d1b7e44-secret"
const QUERY = "qry-2c9a61f0-secret"
const ENV = "env-77e3b0d2-secret"

describe("connection stores keep no credential", () => {
  it.live(
    "a SQLite file written by a toolset with a secret header, bearer, URL query and environment value holds none of them",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const file = Path.join(dir, "toolset.db")
        const http = yield* everythingHttp("streamableHttp")
        yield* Effect.scoped(Effect.gen(function*() {
          const storage = yield* McpStoreSqlite.make(file)
          const toolset = yield* McpToolset.make([
            {
              name: "everything",
              type: "streamable-http",
              url: `${http.url}?key=${QUERY}`,
              headers: { "x-api-key": HEADER }
            },
            {
              ...memoryStdio(Path.join(dir, "memory.jsonl")),
              env: { MEMORY_FILE_PATH: Path.join(dir, "memory.jsonl"), API_TOKEN: ENV }
            }
          ], { storage, session: "ada", auth: () => ({ token: BEARER }) })
          assert.strictEqual(
            McpCallResult.textOf(yield* toolset.call("everything__echo", { message: "hi" })),
            "Echo: hi"
          )
          yield* toolset.call("memory__read_graph", {})
          assert.lengthOf(yield* storage.list, 2)
        }))
        const bytes = Fs.readdirSync(dir).filter((name) => name.startsWith("toolset.db")).map((name) =>
          Fs.readFileSync(Path.join(dir, name)).toString("latin1")
        ).join("")
        assert.include(bytes, "read_graph", "the catalogue is there to read")
        assert.include(bytes, `127.0.0.1:${http.port}/mcp`, "the URL is there, without its query")
        for (const secret of [HEADER, BEARER, QUERY, ENV]) assert.notInclude(bytes, secret)
        assert.notInclude(bytes, "x-api-key")
        assert.notInclude(bytes, "API_TOKEN")
      }),
    { timeout: 60_000 }
  )
})
