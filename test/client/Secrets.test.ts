// What a store writes: only a row's enumerated fields, never a credential. A toolset connects with a
// secret header, a secret bearer from `auth`, a secret in the URL's query and a secret environment
// value, records into a SQLite file, and the file's bytes (with its journal) hold none of them —
// while they do hold the catalogue, so the read is not of an empty file. And what a toolset says:
// a URL's user info and query reach no diagnostic and no log line, though the errors it met quote
// the URL whole.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Logger, References } from "effect"
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
          ], { storage, session: "ada", allowedHosts: ["127.0.0.1"], auth: () => ({ token: BEARER }) })
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

describe("diagnostics and logs keep no URL credential", () => {
  it.live(
    "a server URL's user info and query appear in no diagnostic and no log line, over Streamable HTTP and SSE",
    () =>
      Effect.gen(function*() {
        const logged: Array<string> = []
        const capture = Logger.make((options) =>
          void logged.push(`${String(options.message)} ${String(options.cause)}`)
        )
        const http = yield* everythingHttp("streamableHttp")
        const sse = yield* everythingHttp("sse")
        const withSecrets = (url: string) => {
          const parsed = new URL(url)
          return `${parsed.protocol}//alice:S3CRET-PASS@${parsed.host}${parsed.pathname}?api_key=${QUERY}`
        }
        const diagnostics = yield* Effect.scoped(Effect.flatMap(
          McpToolset.make([
            { name: "docs", type: "streamable-http", url: withSecrets(http.url) },
            { name: "legacy", type: "sse", url: withSecrets(sse.url) }
          ], { allowedHosts: ["127.0.0.1"], connectTimeoutMs: 5_000 }),
          (toolset) => toolset.diagnostics
        )).pipe(Effect.provide(Logger.layer([capture])), Effect.provideService(References.MinimumLogLevel, "All"))
        const unavailable = diagnostics.filter((d) => d.kind === "server-unavailable")
        assert.lengthOf(unavailable, 2, "neither server could be reached with credentials in its URL")
        assert.include(unavailable[0]?.message ?? "", `127.0.0.1:${http.port}/mcp`, "the URL is named, bare")
        assert.isNotEmpty(logged)
        for (const text of [...logged, JSON.stringify(diagnostics)]) {
          assert.notInclude(text, "S3CRET-PASS")
          assert.notInclude(text, QUERY)
        }
      }),
    { timeout: 60_000 }
  )
})
