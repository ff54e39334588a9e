// The token stores: credentials kept per server and per issuer (the latest is what requests carry),
// forgotten per issuer or whole; the SQLite file created 0600, and a row that is not a credential
// refused by name without quoting it.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import type { Scope } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { McpTokenStore, McpTokenStoreSqlite } from "effect-surface/client"
import { tempDir } from "./servers.ts"

const SERVER = "https://mcp.example.com/mcp"
const credentials = (token: string): McpTokenStore.Credentials => ({
  client: { client_id: "client" },
  tokens: { access_token: token, token_type: "Bearer" },
  expiresAt: 1
})

const stores: ReadonlyArray<
  readonly [string, Effect.Effect<McpTokenStore.TokenStore, McpTokenStore.TokenStoreError, Scope.Scope>]
> = [
  ["memory", McpTokenStore.makeMemory],
  ["SQLite", Effect.flatMap(tempDir, (dir) => McpTokenStoreSqlite.make(Path.join(dir, "tokens.db")))]
]

// Credentials as token endpoints and registrations answer them (strings and whole seconds).
const Answered = Schema.Struct({
  client: Schema.optionalKey(Schema.Struct({
    client_id: Schema.String,
    client_secret: Schema.optionalKey(Schema.String)
  })),
  tokens: Schema.optionalKey(Schema.Struct({
    access_token: Schema.String,
    token_type: Schema.String,
    refresh_token: Schema.optionalKey(Schema.String),
    scope: Schema.optionalKey(Schema.String),
    expires_in: Schema.optionalKey(Schema.Int)
  })),
  expiresAt: Schema.optionalKey(Schema.Int)
})

describe("token stores", () => {
  it.effect.prop("whatever credentials an authorization server answered come back from SQLite as they were saved", [
    Answered
  ], ([answered]) =>
    Effect.gen(function*() {
      const store = yield* McpTokenStoreSqlite.make(":memory:")
      yield* store.save({ server: SERVER, issuer: "https://one.example", credentials: answered })
      // As JSON holds them: a -0 the generator made is 0, as it would be on the wire.
      assert.deepStrictEqual(yield* store.get(SERVER, "https://one.example"), JSON.parse(JSON.stringify(answered)))
    }))

  for (const [kind, open] of stores) {
    it.live(`${kind}: credentials are kept per server and issuer, the latest saved is what requests carry, and remove forgets one issuer's or all`, () =>
      Effect.gen(function*() {
        const store = yield* open
        yield* store.save({ server: SERVER, issuer: "https://one.example", credentials: credentials("one") })
        yield* store.save({ server: SERVER, issuer: "https://two.example", credentials: credentials("two") })
        yield* store.save({
          server: "https://other.example/mcp",
          issuer: "https://one.example",
          credentials: credentials("x")
        })
        assert.strictEqual((yield* store.latest(SERVER))?.issuer, "https://two.example")
        assert.strictEqual((yield* store.get(SERVER, "https://one.example"))?.tokens?.access_token, "one")
        yield* store.save({ server: SERVER, issuer: "https://one.example", credentials: credentials("one again") })
        assert.strictEqual((yield* store.latest(SERVER))?.credentials.tokens?.access_token, "one again")
        yield* store.remove(SERVER, "https://one.example")
        assert.strictEqual((yield* store.latest(SERVER))?.issuer, "https://two.example")
        yield* store.remove(SERVER)
        assert.isUndefined(yield* store.latest(SERVER))
        assert.strictEqual((yield* store.latest("https://other.example/mcp"))?.credentials.tokens?.access_token, "x")
      }))
  }

  it.live("the SQLite file is created readable by its owner only, and a row that is not a credential is refused without being quoted", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = Path.join(dir, "tokens.db")
      const store = yield* McpTokenStoreSqlite.make(file)
      assert.strictEqual(Fs.statSync(file).mode & 0o777, 0o600)
      const db = new (process.getBuiltinModule("node:sqlite").DatabaseSync)(file)
      db.prepare("INSERT INTO mcp_oauth_credentials VALUES (?, ?, ?, 1)").run(
        SERVER,
        "https://one.example",
        JSON.stringify({ tokens: { refresh_token: "s3cret-refresh" } })
      )
      db.close()
      const refused = yield* Effect.flip(store.latest(SERVER))
      assert.strictEqual(refused._tag, "TokenStoreError")
      assert.include(refused.message, "access_token")
      assert.notInclude(refused.message, "s3cret-refresh")
    }))
})
