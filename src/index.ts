/**
 * effect-surface: one typed contract, served to agents and editors through one core.
 *
 * Each module is exported as a namespace, as `effect` does: `Surface.make`, `Client.directDispatch`,
 * `Expose.check`. The contract (`src/surface`) comes first, the core every face stands on after it;
 * each face has its own subpath export (`effect-surface/mcp`, the wire face `effect-surface/wire`),
 * and the tool vocabulary its own (`effect-surface/tools`, here as `Tools`). Nothing here loads a
 * protocol SDK, `effect/rpc` or a socket: a server pays for the faces it imports, no more.
 *
 * @since 0.1.0
 */
export * as Client from "./surface/Client.ts"
export * as Expose from "./surface/Expose.ts"
export * as Implementation from "./surface/Implementation.ts"
export { LinkError } from "./surface/LinkError.ts"
export * as Log from "./surface/Log.ts"
export * as Owned from "./surface/Owned.ts"
export * as Project from "./surface/Project.ts"
export * as Store from "./surface/Store.ts"
export * as Surface from "./surface/Surface.ts"

export * as Approval from "./core/Approval.ts"
export * as Ask from "./core/Ask.ts"
export type * as Bundle from "./core/Bundle.ts"
export * as Caller from "./core/Caller.ts"
export * as Identity from "./core/Identity.ts"
export * as ConnectionPool from "./core/ConnectionPool.ts"
export * as Elicitation from "./core/Elicitation.ts"
export * as Engine from "./core/Engine.ts"
export * as EngineError from "./core/EngineError.ts"
export * as Fields from "./core/Fields.ts"
export * as ItemUri from "./core/ItemUri.ts"
export * as Json from "./core/Json.ts"
export * as Progress from "./core/Progress.ts"
export * as Reads from "./core/Reads.ts"
export * as ResolveError from "./core/ResolveError.ts"
// The union itself, by name at the entry: an app's declaration emit (`declaration: true`) names a type
// only through a direct export of a package entry, never through a namespace like the one above, so
// without this an app could not export a layer whose error is a composition refusal (TS2883).
export type { ResolveError as AnyResolveError } from "./core/ResolveError.ts"
export * as Resolver from "./core/Resolver.ts"
export * as Roster from "./core/Roster.ts"
export * as SchemaBridge from "./core/SchemaBridge.ts"
export * as Tombstones from "./core/Tombstones.ts"
export * as Watch from "./core/Watch.ts"
export * as Tools from "./tools.ts"
