/**
 * effect-surface/serve: plain tool objects served over MCP, by reference.
 *
 * `serveTools` is the Promise door; `ServeTools` holds the tool shape, the refusals and the Effect
 * forms (`layer`, `layerStdio`, `layerHttp`), all over the MCP face and the core.
 *
 * @since 0.1.0
 */
export * as ServeTools from "./ServeTools.ts"
export * as ServeToolsError from "./ServeToolsError.ts"
export { serveTools } from "./Promise.ts"
export type { HttpServedTools, ServedTools, ServeToolsOptions } from "./Promise.ts"
export * as Audit from "./Audit.ts"
export * as Grants from "./Grants.ts"
export * as Guard from "./Guard.ts"
export * as GuardError from "./GuardError.ts"
export * as GuardFile from "./GuardFile.ts"
export * as GuardLock from "./GuardLock.ts"
export * as GuardServe from "./GuardServe.ts"
