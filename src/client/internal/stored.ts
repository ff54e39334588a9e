/**
 * A server link's two questions to the connection store: what baseline does this server have, and
 * record what it just listed.
 *
 * The row for a server is built here and nowhere else, from the enumerated fields only — its key,
 * name, transport type, URL without user info or query, the decoded listing and its fingerprints —
 * so nothing else of a configuration (headers, environment, command line, a function) can reach a
 * store. A row stored for another endpoint (its type or URL differs) is no baseline for this one:
 * `make` replaces it, and a rebuild refuses it (`mismatch`).
 */
import * as Effect from "effect/Effect"
import type * as Config from "../Config.ts"
import type * as Diagnostic from "../Diagnostic.ts"
import type * as Drift from "../Drift.ts"
import { NothingStored, StoredServerMismatch } from "../Errors.ts"
import * as Store from "../Store.ts"

/** What a rebuilt link starts from instead of a first listing: the stored catalogue and baseline. */
export interface Seed {
  readonly tools: ReadonlyArray<Drift.Listed>
  readonly baseline: Drift.Baseline | undefined
}

/** The endpoint a row records for a server: its transport type, and its URL when it has one. */
export const endpointOf = (config: Config.Remote): { readonly type: Store.ServerType; readonly url?: string } =>
  config.type === "streamable-http" || config.type === "sse" ? { type: config.type, url: Store.storedUrl(config.url) }
    : { type: config.type }

const describeEndpoint = (endpoint: { readonly type: string; readonly url?: string | undefined }) =>
  endpoint.url === undefined ? endpoint.type : `${endpoint.type} ${endpoint.url}`

/** Why `row` is not this server's, or `undefined` when its endpoint is the configured one. */
export const mismatch = (
  row: Store.Row,
  config: Config.Remote
): { readonly stored: string; readonly configured: string } | undefined => {
  const endpoint = endpointOf(config)
  return row.type === endpoint.type && row.url === endpoint.url
    ? undefined
    : { stored: describeEndpoint(row), configured: describeEndpoint(endpoint) }
}

/** The row a listing is recorded as. */
export const rowOf = (
  wired: Config.Wired<Config.Remote>,
  listed: ReadonlyArray<Drift.Listed>,
  fingerprints: Drift.Baseline
): Store.Row => ({
  id: wired.key,
  name: wired.config.name,
  ...endpointOf(wired.config),
  tools: listed,
  toolFingerprints: fingerprints
})

/**
 * The server's baseline, `undefined` when none is recorded yet. A row for another endpoint is
 * removed (its baseline does not apply here) and said so. Fails with the store's reason.
 */
export const baselineOf = (
  store: Store.Store,
  wired: Config.Wired<Config.Remote>,
  emit: (diagnostic: Diagnostic.Diagnostic) => Effect.Effect<void>
): Effect.Effect<Drift.Baseline | undefined, string> =>
  Effect.gen(function*() {
    const row = yield* store.get(wired.key)
    if (row === undefined) return undefined
    const moved = mismatch(row, wired.config)
    if (moved === undefined) return row.toolFingerprints
    yield* store.remove(wired.key)
    yield* emit(
      Store.storedRowReplaced(wired.config.name, `stored as ${moved.stored}, configured as ${moved.configured}`)
    )
    return undefined
  }).pipe(Effect.mapError((error) => error.message))

/** Record a listing: the catalogue refreshed, its fingerprints kept only if no baseline is recorded. */
export const record = (
  store: Store.Store,
  wired: Config.Wired<Config.Remote>,
  listed: ReadonlyArray<Drift.Listed>,
  fingerprints: Drift.Baseline,
  emit: (diagnostic: Diagnostic.Diagnostic) => Effect.Effect<void>
): Effect.Effect<void> =>
  store.save(rowOf(wired, listed, fingerprints)).pipe(
    Effect.catch((error) => emit(Store.storeUnavailable(wired.config.name, error.message)))
  )

/**
 * What a rebuild starts each configured remote server from: its stored row as a seed (or an empty
 * one, for a server the store does not hold, listed in the background like the rest); a local bundle
 * needs none, its roster answers at once. Refuses an empty store and a row whose endpoint differs
 * from its configuration; a stored server the configuration does not name is left out and said so.
 */
export const seedsFor = (
  servers: ReadonlyArray<Config.Wired>,
  rows: ReadonlyArray<Store.Row>
): Effect.Effect<
  { readonly seeds: ReadonlyMap<string, Seed>; readonly diagnostics: ReadonlyArray<Diagnostic.Diagnostic> },
  NothingStored | StoredServerMismatch
> =>
  Effect.gen(function*() {
    if (rows.length === 0) return yield* new NothingStored({})
    const byId = new Map(rows.map((row) => [row.id, row]))
    const diagnostics: Array<Diagnostic.Diagnostic> = []
    const seeds = new Map<string, Seed>()
    for (const wired of servers) {
      const config = wired.config
      if (config.type === "local") continue
      const row = byId.get(wired.key)
      if (row === undefined) {
        diagnostics.push(Store.serverNotStored(wired.config.name))
        seeds.set(wired.key, { tools: [], baseline: undefined })
        continue
      }
      const moved = mismatch(row, config)
      if (moved !== undefined) return yield* new StoredServerMismatch({ server: wired.config.name, ...moved })
      seeds.set(wired.key, { tools: row.tools, baseline: row.toolFingerprints })
    }
    const configured = new Set(servers.map((wired) => wired.key))
    for (const row of rows) if (!configured.has(row.id)) diagnostics.push(Store.storedServerUnconfigured(row.name))
    return { seeds, diagnostics }
  })
