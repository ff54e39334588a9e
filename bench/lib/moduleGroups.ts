// Which part of the dependency tree a module URL belongs to, for start-up attribution (import
// traces and CPU profiles): `effect` core, one `effect/<area>` (ai, http, rpc, …), `@effect/platform-node`,
// the MCP SDK, its own dependencies (zod, ajv, …), or one folder of effect-surface's sources or build.
const areas = /\/node_modules\/effect\/dist\/([a-z][a-z-]*)\//

export const groupOf = (url: string): string => {
  if (url === "" || url.startsWith("node:")) return url === "" ? "(native)" : "node builtins"
  const modules = url.lastIndexOf("/node_modules/")
  if (modules >= 0) {
    const area = areas.exec(url.slice(modules))
    if (area !== null) return `effect/${area[1]!}`
    const rest = url.slice(modules + "/node_modules/".length).split("/")
    const name = rest[0]!.startsWith("@") ? `${rest[0]!}/${rest[1]!}` : rest[0]!
    return name === "effect" ? "effect (core)" : name
  }
  // The package's own modules, from its sources or its build (dist/, as an installed copy runs).
  const src = /\/(src|dist|bench|examples|test)\/(?:([a-z]+)\/)?[^/]+$/.exec(url)
  if (src !== null)
    return src[1] === "src" || src[1] === "dist" ? `effect-surface ${src[1]}/${src[2] ?? ""}` : `${src[1]!}/`
  return "other"
}
