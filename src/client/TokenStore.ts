/**
 * Where a toolset keeps what an OAuth sign-in won: per server and per authorization server, the
 * client registration and the tokens.
 *
 * Credentials are secrets, so they live here and nowhere else: never in the connection store
 * (`McpStore`, whose rows are secret-free by schema), never in a log line, a diagnostic or an
 * error. They are keyed by the server's URL and by the issuer that granted them, because a client
 * ID or a refresh token means something only to the authorization server that issued it: when a
 * server moves to another authorization server, what the first one issued is never offered to the
 * second. Everything read back passes one schema, so a file somebody edited cannot hand the flow a
 * credential of the wrong shape. Two stores: in memory (the default, one per toolset), and SQLite
 * (`McpTokenStoreSqlite`, its file readable by its owner only).
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

const Json = Schema.Record(Schema.String, Schema.Unknown)

/**
 * What one authorization server granted for one server: the client registration (`client_id`,
 * and a secret for a confidential client), the tokens as the token endpoint answered them, and
 * when the access token expires (epoch milliseconds, when the answer said).
 *
 * @example
 * ```ts
 * import type { McpTokenStore } from "effect-surface/client"
 * const credentials: McpTokenStore.Credentials = {
 *   client: { client_id: "abc" },
 *   tokens: { access_token: "…", token_type: "Bearer", refresh_token: "…", scope: "mcp:read" },
 *   expiresAt: 1_800_000_000_000
 * }
 * ```
 *
 * @since 0.1.0
 */
export interface Credentials {
  readonly client?: { readonly client_id: string; readonly [key: string]: unknown } | undefined
  readonly tokens?: { readonly access_token: string; readonly [key: string]: unknown } | undefined
  readonly expiresAt?: number | undefined
}

/**
 * The schema every credential passes on its way in and out of a store.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { McpTokenStore } from "effect-surface/client"
 * Schema.decodeUnknownSync(McpTokenStore.CredentialsSchema)({ client: { client_id: "abc" } })
 * ```
 *
 * @since 0.1.0
 */
export const CredentialsSchema = Schema.Struct({
  client: Schema.optionalKey(Schema.StructWithRest(Schema.Struct({ client_id: Schema.String }), [Json])),
  tokens: Schema.optionalKey(Schema.StructWithRest(Schema.Struct({ access_token: Schema.String }), [Json])),
  expiresAt: Schema.optionalKey(Schema.Finite)
})

/**
 * A store could not do what it was asked (the file could not be opened, a row is not a credential).
 * Its reason never quotes a credential.
 *
 * @example
 * ```ts
 * import { McpTokenStore } from "effect-surface/client"
 * new McpTokenStore.TokenStoreError({ operation: "open tokens.db", reason: "permission denied" })
 * ```
 *
 * @since 0.1.0
 */
export class TokenStoreError extends Schema.TaggedError<TokenStoreError>()("TokenStoreError", {
  operation: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `the token store could not ${this.operation}: ${this.reason}`
  }
}

/**
 * Credentials as a store holds them: whose they are (the server's URL, the issuer) with them.
 *
 * @example
 * ```ts
 * import type { McpTokenStore } from "effect-surface/client"
 * const entry: McpTokenStore.Entry = { server: "https://mcp.example.com/mcp", issuer: "https://auth.example.com", credentials: {} }
 * ```
 *
 * @since 0.1.0
 */
export interface Entry {
  readonly server: string
  readonly issuer: string
  readonly credentials: Credentials
}

/**
 * A token store. `latest` answers the credentials saved last for a server, whichever issuer granted
 * them (what its requests carry); `get` those one issuer granted; `save` replaces them; `remove`
 * forgets a server's, or one issuer's.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpTokenStore } from "effect-surface/client"
 * const program = Effect.gen(function*() {
 *   const store = yield* McpTokenStore.makeMemory
 *   yield* store.save({ server: "https://mcp.example.com/mcp", issuer: "https://auth.example.com", credentials: {} })
 *   return yield* store.latest("https://mcp.example.com/mcp")
 * })
 * ```
 *
 * @since 0.1.0
 */
export interface TokenStore {
  readonly get: (server: string, issuer: string) => Effect.Effect<Credentials | undefined, TokenStoreError>
  readonly latest: (server: string) => Effect.Effect<Entry | undefined, TokenStoreError>
  readonly save: (entry: Entry) => Effect.Effect<void, TokenStoreError>
  readonly remove: (server: string, issuer?: string) => Effect.Effect<void, TokenStoreError>
}

/**
 * The token store as a service.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpTokenStore } from "effect-surface/client"
 * const program = Effect.gen(function*() {
 *   const store = yield* McpTokenStore.McpTokenStore
 *   return yield* store.latest("https://mcp.example.com/mcp")
 * }).pipe(Effect.provide(McpTokenStore.layerMemory))
 * ```
 *
 * @since 0.1.0
 */
export class McpTokenStore extends Context.Service<McpTokenStore, TokenStore>()("effect-surface/McpTokenStore") {}

const decodeCredentials = Schema.decodeUnknownResult(CredentialsSchema)

/**
 * Credentials checked against the schema, or the error naming what is wrong with them (never
 * what they hold).
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { McpTokenStore } from "effect-surface/client"
 * const checked = McpTokenStore.toCredentials({ tokens: {} }, "read")
 * if (Result.isFailure(checked)) console.log(checked.failure.reason) // names the missing access_token
 * ```
 *
 * @since 0.1.0
 */
export const toCredentials = (value: unknown, operation: string): Result.Result<Credentials, TokenStoreError> =>
  Result.mapError(
    decodeCredentials(value),
    (error) =>
      new TokenStoreError({
        operation,
        reason: `not a credential record: ${toInputError(error.issue, []).message}`
      })
  )

const keyOf = (server: string, issuer: string) => JSON.stringify([server, issuer])

/**
 * A store in this process's memory: what a toolset uses when given none, so a sign-in lasts as
 * long as the toolset.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpTokenStore } from "effect-surface/client"
 * const store = Effect.runSync(McpTokenStore.makeMemory)
 * ```
 *
 * @since 0.1.0
 */
export const makeMemory: Effect.Effect<TokenStore> = Effect.map(
  Ref.make<ReadonlyMap<string, Entry>>(new Map()),
  (ref): TokenStore => ({
    get: (server, issuer) => Effect.map(Ref.get(ref), (all) => all.get(keyOf(server, issuer))?.credentials),
    // A Map keeps insertion order, and a save re-inserts: the last entry of a server is its latest.
    latest: (server) => Effect.map(Ref.get(ref), (all) => [...all.values()].findLast((e) => e.server === server)),
    save: (entry) =>
      Effect.flatMap(
        Effect.fromResult(toCredentials(entry.credentials, `save ${entry.server}`)),
        (credentials) =>
          Ref.update(ref, (all) => {
            const next = new Map(all)
            const key = keyOf(entry.server, entry.issuer)
            next.delete(key)
            next.set(key, { server: entry.server, issuer: entry.issuer, credentials })
            return next
          })
      ),
    remove: (server, issuer) =>
      Ref.update(ref, (all) =>
        new Map(
          [...all].filter(([, e]) => !(e.server === server && (issuer === undefined || e.issuer === issuer)))
        ))
  })
)

/**
 * The memory store as a layer.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpTokenStore } from "effect-surface/client"
 * const program = Effect.flatMap(Effect.service(McpTokenStore.McpTokenStore), (s) => s.latest("x")).pipe(
 *   Effect.provide(McpTokenStore.layerMemory)
 * )
 * ```
 *
 * @since 0.1.0
 */
export const layerMemory: Layer.Layer<McpTokenStore> = Layer.effect(McpTokenStore, makeMemory)
