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
