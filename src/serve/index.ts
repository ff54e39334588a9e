/**
 * effect-surface/serve: plain tool objects served over MCP by reference.
 *
 * `serveTools` is the Promise door for plain tools; `ServeTools` holds their shape and the Effect
 * forms (`layer`, `layerStdio`, `layerHttp`), `ServeToolsError` the refusals. The guarded proxy in
 * front of an upstream MCP server is its own entry, `effect-surface/guard`.
 *
 * @since 0.1.0
 */
export * as ServeTools from "./ServeTools.ts"
export * as ServeToolsError from "./ServeToolsError.ts"
export { serveTools } from "./Promise.ts"
export type { HttpServedTools, ServedTools, ServeToolsOptions } from "./Promise.ts"
