/**
 * effect-surface: one typed contract, served to agents and editors through one core.
 *
 * Each module is exported as a namespace, as `effect` does: `Surface.make`, `Client.directDispatch`,
 * `Expose.check`. Faces add their own subpath exports as they land.
 *
 * @since 0.1.0
 */
export * as Client from "./surface/Client.ts"
export * as Expose from "./surface/Expose.ts"
export * as Implementation from "./surface/Implementation.ts"
export * as Log from "./surface/Log.ts"
export * as Project from "./surface/Project.ts"
export * as Store from "./surface/Store.ts"
export * as Surface from "./surface/Surface.ts"

export * as Json from "./core/Json.ts"
export { LinkError } from "./core/LinkError.ts"
export * as ConnectionPool from "./core/ConnectionPool.ts"
export * as SchemaBridge from "./core/SchemaBridge.ts"
export * as ToolResult from "./core/ToolResult.ts"
export * as Tools from "./tools.ts"
export { messageOf, ToolFailure } from "./core/ToolFailure.ts"
export { okImage } from "./core/ToolResult.ts"
export type * as Bundle from "./core/Bundle.ts"
export * as Resolver from "./core/Resolver.ts"
export * as ResolveError from "./core/ResolveError.ts"
export * as Roster from "./core/Roster.ts"
export * as Tombstones from "./core/Tombstones.ts"
export * as Wire from "./surface/Wire.ts"
export * as ItemUri from "./core/ItemUri.ts"
export * as Approval from "./core/Approval.ts"
