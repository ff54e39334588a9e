/**
 * effect-surface/guard: an upstream MCP server served behind grants.
 *
 * A guard is its file (`GuardFile`), its lock (`GuardLock`), the grants projected onto it
 * (`Grants`), the one execution path every door takes (`Guard`), its audit (`Audit`, its digests
 * keyed by `AuditKey`) and the MCP face over it (`GuardServe`); all over the MCP face, the client
 * toolset and the core. Its own entry, so an app that serves only its own tools never loads it.
 *
 * @since 0.1.0
 */
export * as Audit from "./Audit.ts"
export * as AuditKey from "./AuditKey.ts"
export * as Grants from "./Grants.ts"
export * as Guard from "./Guard.ts"
export * as GuardError from "./GuardError.ts"
export * as GuardFile from "./GuardFile.ts"
export * as GuardLock from "./GuardLock.ts"
export * as GuardServe from "./GuardServe.ts"
