// Layers point down: the contract (`src/surface`) ← the core (`src/core`, and `src/tools.ts`, the
// tool vocabulary's door) ← the faces. Read off every import of every source file, so an upward
// edge or a cycle fails here the moment it is written, not when a face first needs the core alone.
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../", import.meta.url))
const src = Path.join(root, "src")

const sourcesUnder = (dir: string): ReadonlyArray<string> =>
  Fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = Path.join(dir, entry.name)
    return entry.isDirectory() ? sourcesUnder(path) : entry.name.endsWith(".ts") ? [path] : []
  })

/** Every module a source names: static imports and re-exports (type-only ones too), and dynamic imports. */
const specifiersOf = (source: string): ReadonlyArray<string> => {
  // Comments hold example code whose imports are the reader's, not the module's.
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "")
  return [
    ...Array.from(code.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+"([^"]+)"/gm), (m) => m[1] ?? ""),
    ...Array.from(code.matchAll(/^\s*import\s+"([^"]+)"/gm), (m) => m[1] ?? ""),
    ...Array.from(code.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g), (m) => m[1] ?? "")
  ]
}

const relative = (file: string) => Path.relative(root, file).split(Path.sep).join("/")

interface Module {
  readonly file: string
  readonly local: ReadonlyArray<string>
  readonly packages: ReadonlyArray<string>
}

const modules: ReadonlyArray<Module> = sourcesUnder(src).map((path) => {
  const specifiers = specifiersOf(Fs.readFileSync(path, "utf8"))
  return {
    file: relative(path),
    local: specifiers.filter((s) => s.startsWith(".")).map((s) => relative(Path.resolve(Path.dirname(path), s))),
    packages: specifiers.filter((s) => !s.startsWith(".") && !s.startsWith("node:"))
  }
})

type Layer = "surface" | "core" | "protocol" | "face" | "barrel"

const layerOf = (file: string): Layer => {
  if (file.startsWith("src/surface/")) return "surface"
  if (file.startsWith("src/core/") || file === "src/tools.ts") return "core"
  if (file.startsWith("src/protocol/")) return "protocol"
  if (file === "src/index.ts") return "barrel"
  return "face"
}

// The protocol vocabulary (`src/protocol`: the eras, log levels, the 2026 messages) is what both MCP
// ends stand on, above the core and below every face.
const rank: Record<Layer, number> = { surface: 0, core: 1, protocol: 2, face: 3, barrel: 4 }

// Faces stand side by side on the core, and meet only where the design has them meet, each standing
// on the public modules (never `internal/`) of the faces named here: an ACP session's tools are a
// client toolset built from its editor's `mcpServers`; serveTools and Guard are served by the MCP face
// over the client toolset; the command line runs them. The client shares the MCP face's wire shapes
// through `src/protocol`, never by reaching into the server.
const composes: Readonly<Record<string, ReadonlyArray<string>>> = {
  acp: ["client"],
  serve: ["mcp", "client"],
  guard: ["mcp", "client", "serve"],
  cli: ["serve", "guard", "client"]
}

/** A face's folder under `src/`: `src/acp/AcpAgent.ts` → `acp`. */
const faceOf = (file: string): string => file.split("/")[1] ?? ""

const reachesAcross = (from: string, to: string): boolean =>
  faceOf(to) !== faceOf(from) &&
  !((composes[faceOf(from)] ?? []).includes(faceOf(to)) && !to.split("/").includes("internal"))
const protocolSdk = /^@(modelcontextprotocol|agentclientprotocol)\//

describe("architecture", () => {
  it("the scan sees the whole source tree", () => {
    assert.isAbove(modules.length, 50)
    assert.isTrue(modules.some((m) => m.file === "src/core/Engine.ts" && m.local.includes("src/core/Roster.ts")))
  })

  it("no module imports a layer above its own, nor one face another's beyond the meetings the design names", () => {
    const upward = modules.flatMap((m) =>
      m.local.flatMap((target) => {
        const from = layerOf(m.file)
        const to = layerOf(target)
        if (rank[to] > rank[from]) return [`${m.file} → ${target}`]
        // Faces stand side by side on the core; one reaches another's folder only as a declared composition.
        if (from === "face" && to === "face" && reachesAcross(m.file, target)) return [`${m.file} → ${target}`]
        return []
      })
    )
    assert.deepStrictEqual(upward, [])
  })

  it("a face reaches another only as a declared composition, and never into its internals", () => {
    assert.isFalse(reachesAcross("src/serve/ServeTools.ts", "src/mcp/McpServer.ts"))
    assert.isTrue(reachesAcross("src/serve/ServeTools.ts", "src/mcp/internal/httpServe.ts"))
    assert.isTrue(reachesAcross("src/mcp/face/Face.ts", "src/serve/ServeTools.ts"))
    assert.isTrue(reachesAcross("src/client/McpToolset.ts", "src/mcp/v2026/internal/requests.ts"))
    assert.isTrue(reachesAcross("src/client/McpToolset.ts", "src/mcp/McpServer.ts"))
    assert.isFalse(reachesAcross("src/acp/AcpToolset.ts", "src/client/McpToolset.ts"))
    assert.isTrue(reachesAcross("src/client/McpToolset.ts", "src/acp/AcpToolset.ts"))
  })

  it("the faces that meet do so one way: the declared compositions form no cycle", () => {
    const next = (face: string) => composes[face] ?? []
    const edges = Object.values(composes).flat().length
    // Bounded: a walk longer than the number of edges has gone round.
    const reaches = (from: string, to: string, steps: number): boolean =>
      steps > 0 && next(from).some((face) => face === to || reaches(face, to, steps - 1))
    assert.deepStrictEqual(Object.keys(composes).filter((face) => reaches(face, face, edges)), [])
  })

  it("neither the contract nor the core loads a protocol SDK", () => {
    const loaded = modules.flatMap((m) =>
      layerOf(m.file) === "face" || layerOf(m.file) === "barrel" ? [] : m.packages.filter((p) =>
        protocolSdk.test(p)
      ).map((p) => `${m.file} → ${p}`)
    )
    assert.deepStrictEqual(loaded, [])
  })

  it("no two modules import each other, directly or through others", () => {
    const edges = new Map(modules.map((m) => [m.file, m.local]))
    const cycles: Array<string> = []
    const state = new Map<string, "open" | "done">()
    const visit = (file: string, path: ReadonlyArray<string>) => {
      if (state.get(file) === "done") return
      if (state.get(file) === "open") {
        cycles.push([...path.slice(path.indexOf(file)), file].join(" → "))
        return
      }
      state.set(file, "open")
      for (const next of edges.get(file) ?? []) visit(next, [...path, file])
      state.set(file, "done")
    }
    for (const m of modules) visit(m.file, [])
    assert.deepStrictEqual(cycles, [])
  })
})

// The MCP face, room by room: each folder of `src/mcp` stands on the rooms below it and never on
// one above, so the folders are the floors. A revision's folder and its `internal/` are one room,
// and neither revision reaches into the other's, so a reader finds the 2026 request path (`v2026/`)
// without reading the 2025 sessions (`v2025/`).
const mcpFloors: ReadonlyArray<ReadonlyArray<string>> = [
  // How bytes arrive: HTTP refusals and the drain, stdio framing, the SDK channel, a Redis call.
  ["transport"],
  // Who is calling: the resource server and its token verifiers.
  ["auth"],
  // Which tools show a view in a host rendering MCP Apps, and the generated pages.
  ["views"],
  // The version-neutral face: what is served, what each caller is shown, what it is told unprompted.
  ["face"],
  // The operator's console over the face; each revision's machinery over the face.
  ["console", "v2025", "v2026"],
  // The doors: a connection in either revision, the HTTP endpoint, the server layers, the Promise API.
  ["", "internal"]
]

/** A module's room: its first folder under `src/mcp` (`""` for the doors at the top). */
const mcpRoomOf = (file: string): string => {
  const parts = file.replace(/^src\/mcp\//, "").split("/")
  return parts.length === 1 ? "" : parts[0] ?? ""
}

const mcpFloorOf = (file: string): number => mcpFloors.findIndex((floor) => floor.includes(mcpRoomOf(file)))

describe("the MCP face's layout", () => {
  const mcp = modules.filter((m) => m.file.startsWith("src/mcp/"))

  it("every module of the MCP face is in a room of a floor", () => {
    assert.deepStrictEqual(mcp.filter((m) => mcpFloorOf(m.file) < 0).map((m) => m.file), [])
  })

  it("every import in the MCP face points to its own room or a floor below", () => {
    const upward = mcp.flatMap((m) =>
      m.local.filter((target) =>
        target.startsWith("src/mcp/") && mcpRoomOf(target) !== mcpRoomOf(m.file) &&
        mcpFloorOf(target) >= mcpFloorOf(m.file) && !(mcpFloorOf(m.file) === mcpFloors.length - 1 &&
          mcpFloorOf(target) === mcpFloors.length - 1)
      ).map((target) => `${m.file} → ${target}`)
    )
    assert.deepStrictEqual(upward, [])
  })

  it("no file of src/ is over 450 lines", () => {
    const long = sourcesUnder(src).flatMap((path) => {
      const lines = Fs.readFileSync(path, "utf8").split("\n").length
      return lines > 450 ? [`${relative(path)}: ${lines}`] : []
    })
    assert.deepStrictEqual(long, [])
  })
})
