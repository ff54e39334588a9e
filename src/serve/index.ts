/**
 * effect-surface/serve: plain tool objects served over MCP by reference, and an upstream MCP server
 * served behind grants.
 *
 * `serveTools` is the Promise door for plain tools; `ServeTools` holds their shape and the Effect
 * forms (`layer`, `layerStdio`, `layerHttp`), `ServeToolsError` the refusals. A guard is its file
 * (`GuardFile`), its lock (`GuardLock`), the grants projected onto it (`Grants`), the one execution
 * path (`Guard`), its audit (`Audit`, its digests keyed by `AuditKey`) and the MCP face over it (`GuardServe`); all over the MCP face,
 * the client toolset and the core.
 *
 * @since 0.1.0
 */
export * as ServeTools from "./ServeTools.ts"
export * as ServeToolsError from "./ServeToolsError.ts"
export { serveTools } from "./Promise.ts"
export type { HttpServedTools, ServedTools, ServeToolsOptions } from "./Promise.ts"
export * as Audit from "./Audit.ts"
export * as AuditKey from "./AuditKey.ts"
export * as Grants from "./Grants.ts"
export * as Guard from "./Guard.ts"
export * as GuardError from "./GuardError.ts"
export * as GuardFile from "./GuardFile.ts"
export * as GuardLock from "./GuardLock.ts"
export * as GuardServe from "./GuardServe.ts"
