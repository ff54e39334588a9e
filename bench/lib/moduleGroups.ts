// Which part of the dependency tree a module URL belongs to, for start-up attribution (import
// traces and CPU profiles): `effect` core, one `effect/<area>` (ai, http, rpc, …), `@effect/platform-node`,
// the MCP SDK, its own dependencies (zod, ajv, …), or one folder of effect-surface's sources or build.
const areas = /\/node_modules\/effect\/dist\/([a-z][a-z-]*)\//

// The package's root, as the URLs of its modules begin.
const root = new URL("../../", import.meta.url).href

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
  // The package's own modules, from its sources or its build (dist/, as an installed copy runs),
  // by their first folder there (dist/mcp/modern/Wire.js is dist/mcp's).
  if (!url.startsWith(root)) return "other"
  const [top, ...rest] = url.slice(root.length).split("/")
  const folder = rest.length > 1 ? rest[0]! : ""
  if (top === "src" || top === "dist") return `effect-surface ${top}/${folder}`
  return top === "bench" || top === "examples" || top === "test" ? `${top}/` : "other"
}
